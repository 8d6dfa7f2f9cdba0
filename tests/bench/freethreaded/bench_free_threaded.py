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
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = os.path.normpath(os.path.join(HERE, "..", "..", "targets"))
CHROOT = os.environ.get("GILSCOPE_CHROOT_DIR", "/var/cache/gilscope/sid-python")
SCENARIOS = {
    "single": (["deep30.py"], ["--mode", "all", "-r", "10khz"]),
    "pool": (["idle_pool.py", "200", "10", "8"], ["-a", "--mode", "all", "-r", "1khz"]),
}


def start_target(python, in_chroot, argv):
    script = [os.path.join(TARGETS, argv[0])] + argv[1:]
    if in_chroot:
        # As the tests do: the chroot's own /proc and the targets folder, then exec into it.
        sh = "set -e; mount -t proc proc %s/proc; mount --bind %s %s%s; exec chroot %s %s" % (
            shlex.quote(CHROOT), shlex.quote(TARGETS), shlex.quote(CHROOT), shlex.quote(TARGETS),
            shlex.quote(CHROOT), " ".join(shlex.quote(a) for a in [python, "-u"] + script))
        os.makedirs(CHROOT + TARGETS, exist_ok=True)
        cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", sh]
    else:
        cmd = [python, "-u"] + script
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line.startswith("READY"):
        p.kill()
        sys.exit("target did not start: %r" % line)
    return p


def record(gilscope, pid, args, duration):
    with tempfile.TemporaryDirectory() as d:
        cmd = [gilscope, "attach"] + args + ["-d", str(duration), "--collapsed", "-o",
                                             os.path.join(d, "out"), str(pid)]
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("gilscope failed: %s\n%s" % (" ".join(cmd), out))
    missed = re.search(r"missed \d+ samples.*\(([0-9.]+)%\)", out)
    samples = re.search(r"Captured ([0-9]+) samples", out)
    cpu = usage.ru_utime + usage.ru_stime
    n = int(samples.group(1)) if samples else 0
    return cpu, (1e6 * cpu / n if n else 0.0), float(missed.group(1)) if missed else 0.0


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
        targets = {label: start_target(py, chroot, argv) for label, py, chroot in pythons}
        try:
            figures = {label: ([], [], []) for label, _, _ in pythons}
            for _ in range(a.repeat):
                for label, _, _ in pythons:
                    for i, v in enumerate(record(a.gilscope, targets[label].pid, args, a.duration)):
                        figures[label][i].append(v)
            for label, _, _ in pythons:
                cpu, per, missed = (statistics.median(v) for v in figures[label])
                print("%-8s %-12s %10.3f %14.2f %10.2f" % (name, label, cpu, per, missed),
                      flush=True)
        finally:
            for p in targets.values():
                p.kill()
                p.wait()


main()
