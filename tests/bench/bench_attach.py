"""What the benchmarks that time `gilscope attach` share: starting a target that prints
READY, and one recording of it with gilscope's CPU seconds (from wait4), missed ticks and
samples as its summary gives them.

    sys.path.insert(0, <tests/bench>); import bench_attach
"""
import os
import re
import subprocess
import sys
import tempfile

TARGETS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                        "targets"))


def start_target(cmd):
    """Starts cmd (a target script's command line) and waits for its READY line."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line.startswith("READY"):
        p.kill()
        sys.exit("target did not start: %r" % line)
    return p


def attach(gilscope, pid, args, duration):
    """One `gilscope attach ARGS -d DURATION --collapsed` of pid ("{dir}" in args is a
    scratch folder). Returns (CPU seconds, missed %, samples)."""
    with tempfile.TemporaryDirectory() as d:
        args = [a.replace("{dir}", d) for a in args]
        cmd = [gilscope, "attach"] + args + ["-d", str(duration), "--collapsed", "-o",
                                             os.path.join(d, "out"), str(pid)]
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("gilscope failed: %s\n%s" % (" ".join(cmd), out))
    missed = re.search(r"missed \d+ samples.*\(([0-9.]+)%\)", out)
    samples = re.search(r"Captured ([0-9]+) samples", out)
    return (usage.ru_utime + usage.ru_stime, float(missed.group(1)) if missed else 0.0,
            int(samples.group(1)) if samples else 0)
