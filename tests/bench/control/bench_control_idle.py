#!/usr/bin/env python3
"""An idle control socket costs the sampler nothing measurable (issue 39): gilscope's CPU
seconds and missed ticks at 10 kHz on one busy thread (tests/targets/deep30.py), with and
without --control, side by side in one run (A B A B ...), medians.

  tests/bench/control/bench_control_idle.py --gilscope build/release/app/gilscope \
      [--python python3] [--duration 5] [--repeat 5]
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_attach import TARGETS, attach, start_target  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gilscope", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    target = start_target([a.python, os.path.join(TARGETS, "deep30.py")])
    runs = [("without --control", []), ("with --control", ["--control", "unix:{dir}/ctl.sock"])]
    figures = {label: ([], []) for label, _ in runs}
    try:
        for _ in range(a.repeat):
            for label, extra in runs:
                cpu, missed, _ = attach(a.gilscope, target.pid, ["-r", "10khz"] + extra,
                                        a.duration)
                figures[label][0].append(cpu)
                figures[label][1].append(missed)
    finally:
        target.kill()
        target.wait()
    print("%-20s %10s %10s" % ("", "cpu s", "missed %"))
    for label, _ in runs:
        cpu, missed = figures[label]
        print("%-20s %10.3f %10.2f" % (label, statistics.median(cpu), statistics.median(missed)))


main()
