#!/usr/bin/env python3
"""dump --locals on a 50-thread target with 30-deep stacks (issue 39: <= 200 ms, the target
never paused without --blocking). Side by side in one run (A B C A B C ...):

  gilscope dump -a --locals --json    every frame's five variables
  gilscope dump -a --json             the stacks alone
  CPython 3.15 dump -a                python3.15 -m profiling.sampling dump (no --locals)

on tests/targets/deep_locals_pool.py under the chroot's python3.15. The target's ticker
thread spins on time.monotonic() and keeps its longest gap: read after each dump and after
an idle pause as long as the slowest dump, it shows whether the target ever stood still.

  tests/bench/locals/bench_dump_locals.py --gilscope build/release/app/gilscope [--repeat 11]
"""
import argparse
import os
import shlex
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = os.path.normpath(os.path.join(HERE, "..", "..", "targets"))
CHROOT = os.environ.get("GILSCOPE_CHROOT_DIR", "/var/cache/gilscope/sid-python")


def in_chroot(argv, self_bound=False):
    """argv run inside the chroot with its own /proc and the targets folder bound in.
    self_bound: the chroot is also bound at its own host path inside itself, because the
    target's /proc/PID/maps names its files by their host paths, which CPython's profiler
    opens to find _PyRuntime."""
    os.makedirs(CHROOT + TARGETS, exist_ok=True)
    q = shlex.quote
    sh = "set -e; mount -t proc proc %s/proc; mount --bind %s %s%s; " % (
        q(CHROOT), q(TARGETS), q(CHROOT), q(TARGETS))
    if self_bound:
        os.makedirs(CHROOT + CHROOT, exist_ok=True)
        sh += "mount --bind %s %s%s; " % (q(CHROOT), q(CHROOT), q(CHROOT))
    sh += "exec chroot %s %s" % (q(CHROOT), " ".join(q(a) for a in argv))
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", sh]


def timed(cmd):
    start = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = (time.monotonic() - start) * 1000
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr.decode(errors="replace")))
    return elapsed, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gilscope", required=True)
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--threads", type=int, default=50)
    a = ap.parse_args()
    if not os.path.exists(CHROOT + "/usr/bin/python3.15"):
        sys.exit("no python3.15 in %s: run scripts/setup-python-chroot.sh" % CHROOT)
    target = subprocess.Popen(in_chroot(["python3.15", "-u", TARGETS + "/deep_locals_pool.py",
                                         str(a.threads)]), stdout=subprocess.PIPE, text=True)
    line = target.stdout.readline()
    if not line.startswith("READY"):
        target.kill()
        sys.exit("target did not start: %r" % line)
    pid = int(line.split()[1])

    def gap():
        os.kill(pid, signal.SIGUSR1)
        return float(target.stdout.readline().split()[1])

    commands = {
        "gilscope dump -a --locals": [a.gilscope, "dump", "-a", "--locals", "--json", str(pid)],
        "gilscope dump -a": [a.gilscope, "dump", "-a", "--json", str(pid)],
        "CPython 3.15 dump -a": in_chroot(["python3.15", "-m", "profiling.sampling", "dump",
                                           "-a", str(pid)], self_bound=True),
    }
    times = {k: [] for k in commands}
    gaps = {k: [] for k in list(commands) + ["idle"]}
    variables = 0
    try:
        gap()
        for _ in range(a.repeat):
            for name, cmd in commands.items():
                ms, out = timed(cmd)
                times[name].append(ms)
                gaps[name].append(gap())
                if name == "gilscope dump -a --locals":
                    variables = out.count(b'"kind"')
            time.sleep(max(max(v) for v in times.values()) / 1000)
            gaps["idle"].append(gap())
    finally:
        target.kill()
        target.wait()
    print("target: %d threads x 30 frames, python3.15; %d variables per --locals dump"
          % (a.threads, variables))
    print("%-28s %12s %22s" % ("", "median ms", "target's longest gap ms"))
    for name in commands:
        print("%-28s %12.1f %22.2f" % (name, statistics.median(times[name]),
                                        statistics.median(gaps[name])))
    print("%-28s %12s %22.2f" % ("(idle, no dump)", "", statistics.median(gaps["idle"])))


if __name__ == "__main__":
    main()
