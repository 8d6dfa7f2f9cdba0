#!/usr/bin/env python3
"""What wait reasons cost the sampler (issue 36): gilscope's CPU seconds and missed ticks
while it records, the binary under test against --baseline in one run (A B A B ...):

  pool      1 kHz, -a --mode all, a pool of 500 threads at rest (tests/targets/idle_pool.py)
  single    10 kHz, --mode all, one busy thread (tests/targets/deep30.py)
  service   1 kHz, -a --mode all, 100 threads each blocked in recv (socket_service.py)

Each scenario also runs the binary under test with --wait-reasons (the leaf frames and the
fd lookups the window pays for).

  tests/bench/wait/bench_wait_cost.py --gilscope build/release/app/gilscope \
      [--baseline OLD] [--python python3] [--duration 5] [--repeat 3]
"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from bench_attach import TARGETS, attach, start_target  # noqa: E402

SCENARIOS = {
    "pool": ([os.path.join(TARGETS, "idle_pool.py"), "500"], ["-a", "--mode", "all", "-r", "1khz"]),
    "single": ([os.path.join(TARGETS, "deep30.py")], ["--mode", "all", "-r", "10khz"]),
    "service": ([os.path.join(HERE, "socket_service.py"), "100"], ["-a", "--mode", "all", "-r", "1khz"]),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gilscope", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=",".join(SCENARIOS))
    a = ap.parse_args()
    runs = [("this", a.gilscope, []), ("this --wait-reasons", a.gilscope, ["--wait-reasons"])]
    if a.baseline:
        runs.insert(0, ("baseline", a.baseline, []))
    print("%-8s %-22s %10s %10s" % ("scenario", "binary", "cpu s", "missed %"))
    for name in a.only.split(","):
        argv, args = SCENARIOS[name]
        target = start_target([a.python] + argv)
        try:
            figures = {label: ([], []) for label, _, _ in runs}
            for _ in range(a.repeat):
                for label, binary, extra in runs:
                    cpu, missed, _ = attach(binary, target.pid, args + extra, a.duration)
                    figures[label][0].append(cpu)
                    figures[label][1].append(missed)
            for label, _, _ in runs:
                cpu, missed = figures[label]
                print("%-8s %-22s %10.3f %10.2f" % (name, label, statistics.median(cpu),
                                                    statistics.median(missed)), flush=True)
        finally:
            target.kill()
            target.wait()


main()
