#!/usr/bin/env python3
"""An idle control socket costs the sampler nothing measurable (issue 39): gilscope's CPU
seconds and missed ticks at 10 kHz on one busy thread (tests/targets/deep30.py), with and
without --control, side by side in one run (A B A B ...), medians.

  tests/bench/control/bench_control_idle.py --gilscope build/release/app/gilscope \
      [--python python3] [--duration 5] [--repeat 5]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

TARGETS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                        "targets"))


def record(gilscope, pid, extra, duration):
    with tempfile.TemporaryDirectory() as d:
        args = [a.replace("{dir}", d) for a in extra]
        cmd = [gilscope, "attach", "-r", "10khz", "-d", str(duration), "--collapsed", "-o",
               os.path.join(d, "out")] + args + [str(pid)]
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("gilscope failed: %s\n%s" % (" ".join(cmd), out))
    m = re.search(r"missed \d+ samples.*\(([0-9.]+)%\)", out)
    return usage.ru_utime + usage.ru_stime, float(m.group(1)) if m else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gilscope", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    target = subprocess.Popen([a.python, os.path.join(TARGETS, "deep30.py")],
                              stdout=subprocess.PIPE, text=True)
    if not target.stdout.readline().startswith("READY"):
        sys.exit("target did not start")
    runs = [("without --control", []), ("with --control", ["--control", "unix:{dir}/ctl.sock"])]
    figures = {label: ([], []) for label, _ in runs}
    try:
        for _ in range(a.repeat):
            for label, extra in runs:
                cpu, missed = record(a.gilscope, target.pid, extra, a.duration)
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
