#!/usr/bin/env python3
"""What reading a free-threaded Python costs (issue 37): gilscope's CPU per sample and
missed ticks on the same program under python3.13t (built in the chroot by
scripts/setup-python-chroot.sh) and under 3.13 with its GIL, in one run (A B A B ...):

  single  10 kHz, --mode all, one busy thread 30 frames deep (tests/targets/deep30.py)
  pool    -a 1 kHz, --mode all, 200 threads at rest and 8 busy (idle_pool.py 200 10 8)

Without a GIL there is no switch counter to prove a resting thread's stack unchanged, so
3.13t walks every thread every tick (UnchangedStacks serves nothing): the pool shows it.

  tests/bench/freethreaded/bench_free_threaded.py --gilscope build/release/app/gilscope \
      [--gil-python ~/.pyenv/versions/3.13.0/bin/python3.13] [--duration 5] [--repeat 3]
"""
import argparse
import glob
import os
import shlex
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_attach import TARGETS, attach, start_target  # noqa: E402

CHROOT = os.environ.get("GILSCOPE_CHROOT_DIR", "/var/cache/gilscope/sid-python")
SCENARIOS = {
    "single": (["deep30.py"], ["--mode", "all", "-r", "10khz"]),
    "pool": (["idle_pool.py", "200", "10", "8"], ["-a", "--mode", "all", "-r", "1khz"]),
}


def target_command(python, in_chroot, argv):
    script = [os.path.join(TARGETS, argv[0])] + argv[1:]
    if not in_chroot:
        return [python, "-u"] + script
    # As the tests do: the chroot's own /proc and the targets folder, then exec into it.
    os.makedirs(CHROOT + TARGETS, exist_ok=True)
    sh = "set -e; mount -t proc proc %s/proc; mount --bind %s %s%s; exec chroot %s %s" % (
        shlex.quote(CHROOT), shlex.quote(TARGETS), shlex.quote(CHROOT), shlex.quote(TARGETS),
        shlex.quote(CHROOT), " ".join(shlex.quote(a) for a in [python, "-u"] + script))
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", sh]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gilscope", required=True)
    ap.add_argument("--gil-python", default=os.path.expanduser(
        "~/.pyenv/versions/3.13.0/bin/python3.13"))
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=",".join(SCENARIOS))
    a = ap.parse_args()
    ft = sorted(glob.glob(CHROOT + "/opt/python3.13t/bin/python3.13t"))
    if not ft:
        sys.exit("no python3.13t in %s: run scripts/setup-python-chroot.sh" % CHROOT)
    pythons = [("3.13 (GIL)", a.gil_python, False),
               ("3.13t", "/opt/python3.13t/bin/python3.13t", True)]
    print("%-8s %-12s %10s %14s %10s" % ("scenario", "target", "cpu s", "µs per sample",
                                          "missed %"))
    for name in a.only.split(","):
        argv, args = SCENARIOS[name]
        targets = {label: start_target(target_command(py, chroot, argv))
                   for label, py, chroot in pythons}
        try:
            figures = {label: ([], [], []) for label, _, _ in pythons}
            for _ in range(a.repeat):
                for label, _, _ in pythons:
                    cpu, missed, samples = attach(a.gilscope, targets[label].pid, args,
                                                  a.duration)
                    figures[label][0].append(cpu)
                    figures[label][1].append(1e6 * cpu / samples if samples else 0.0)
                    figures[label][2].append(missed)
            for label, _, _ in pythons:
                cpu, per, missed = (statistics.median(v) for v in figures[label])
                print("%-8s %-12s %10.3f %14.2f %10.2f" % (name, label, cpu, per, missed),
                      flush=True)
        finally:
            for p in targets.values():
                p.kill()
                p.wait()


main()
