#!/usr/bin/env python3
"""Side-by-side profiler comparison on the same target, in one run (medians).

  A. CPython 3.15's own profiler (`python3.15 -m profiling.sampling attach`, in the
     sid chroot) vs `gilscope attach`, on a 30-deep 3.15 target in that chroot,
     at 1k / 10k / 100k.
  B. Austin 1.0.1 (`austin -i 100` and `-i 20`) vs `gilscope attach` at 10 kHz and
     50 kHz, on a 30-deep Python 3.9 target.

Figures: achieved samples/s, error %, and the profiler's CPU time (user+sys of the
profiler process, from wait4) as a % of one core over the sampling time.

  tests/bench/sampler/compare_profilers.py --gilscope build/release/app/gilscope \
      [--duration 5] [--repeat 3] [--python39 PATH] [--chroot DIR]
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = os.path.normpath(os.path.join(HERE, "..", "..", "targets"))


def start_target(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    if not line.startswith("READY"):
        p.kill()
        raise RuntimeError("target did not start: %r" % line)
    return p, int(line.split()[1])


def stop(p):
    if p.poll() is None:
        p.kill()
    p.wait()


def run_measured(cmd, seconds=None):
    """Runs cmd; with seconds, sends SIGINT after that long. Returns (out, err, cpu_s, wall_s)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if seconds is not None:
        try:
            p.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGINT)
    out, err = p.communicate()
    wall = time.monotonic() - t0
    # communicate() reaped it; rusage of children covers exactly this one since last call
    return out, err, wall


class ChildCpu:
    """CPU time of reaped children, as a delta (RUSAGE_CHILDREN accumulates)."""

    def __init__(self):
        self.last = self._now()

    @staticmethod
    def _now():
        r = os.times()
        return r.children_user + r.children_system

    def take(self):
        now = self._now()
        d, self.last = now - self.last, now
        return d


def parse_cpython_style(out):
    rate = re.search(r"Sample rate: ([0-9.,]+) samples/sec", out)
    err = re.search(r"Error rate: ([0-9.,]+)", out)
    cap = re.search(r"in ([0-9.]+) seconds", out)
    if not rate:
        return None
    return (float(rate.group(1).replace(",", "")), float(err.group(1).replace(",", "")) if err else float("nan"),
            float(cap.group(1)) if cap else None)


def measure_gilscope(gilscope, pid, rate, duration, cpu, rt=0):
    outfile = tempfile.mktemp(suffix=".txt")
    cpu.take()
    out, err, wall = run_measured([gilscope, "attach", "-r", rate, "-d", str(duration), "-o", outfile,
                                   "--rt-priority", str(rt), str(pid)])
    used = cpu.take()
    if os.path.exists(outfile):
        os.unlink(outfile)
    parsed = parse_cpython_style(out)
    if not parsed:
        return None, err.strip().splitlines()[-1] if err.strip() else "no output"
    achieved, errors, seconds = parsed
    return (achieved, errors, 100.0 * used / (seconds or duration)), None


def measure_cpython(chroot, pid, rate, duration, cpu):
    # Inside the target's own mount namespace (where the chroot has /proc): from another
    # one, CPython's profiler cannot find the target's PyRuntime section.
    cmd = ["nsenter", "-t", str(pid), "-m", "--", "chroot", chroot, "python3.15", "-m", "profiling.sampling",
           "attach", "-r", rate, "-d", str(duration), "--collapsed", "-o", "/tmp/cpython_bench.txt", str(pid)]
    cpu.take()
    out, err, wall = run_measured(cmd)
    used = cpu.take()
    parsed = parse_cpython_style(out)
    if not parsed:
        return None, (err.strip().splitlines() or ["no output"])[-1]
    achieved, errors, seconds = parsed
    return (achieved, errors, 100.0 * used / (seconds or duration)), None


def measure_austin(interval, pid, duration, cpu):
    outfile = tempfile.mktemp(suffix=".austin")
    cpu.take()
    out, err, wall = run_measured(["austin", "-t", "2000", "-i", str(interval), "-p", str(pid), "-o", outfile],
                                  seconds=duration)
    used = cpu.take()
    try:
        with open(outfile, errors="replace") as f:
            samples = sum(1 for line in f if line.strip() and not line.startswith("#"))
        os.unlink(outfile)
    except OSError:
        return None, "no output file"
    m = re.search(r"Error rate : (\d+)/(\d+)", err)
    errors = 100.0 * int(m.group(1)) / max(1, int(m.group(2))) if m else float("nan")
    return (samples / duration, errors, 100.0 * used / duration), None


def table(title, rows, repeat):
    print("\n" + title + " (median of %d)" % repeat)
    print("%-34s %12s %9s %18s" % ("profiler", "achieved/s", "errors%", "CPU % of a core"))
    for name, runs, note in rows:
        ok = [r for r in runs if r]
        if not ok:
            print("%-34s %s" % (name, "failed: " + (note or "?")))
            continue
        med = [statistics.median(x[i] for x in ok) for i in range(3)]
        print("%-34s %12.0f %9.2f %18.1f" % (name, med[0], med[1], med[2]))
    sys.stdout.flush()


def repeat_measure(n, fn):
    runs, note = [], None
    for _ in range(n):
        r, e = fn()
        runs.append(r)
        note = note or e
    return runs, note


def part_a(args, cpu):
    chroot = args.chroot
    if not os.path.exists(os.path.join(chroot, "usr/bin/python3.15")):
        print("\nA. skipped: no python3.15 in %s (run scripts/setup-python-chroot.sh)" % chroot)
        return
    work = os.path.join(chroot, "tmp", "gilscope-bench")
    os.makedirs(work, exist_ok=True)
    for name in ("deep30.py", "_ready.py"):
        shutil.copy(os.path.join(TARGETS, name), work)
    inner = "mount -t proc proc %s/proc && exec chroot %s python3.15 /tmp/gilscope-bench/deep30.py" % (chroot, chroot)
    target, pid = start_target(["unshare", "--mount", "sh", "-c", inner])
    try:
        rows = []
        for rate in ("1khz", "10khz", "100khz"):
            runs, note = repeat_measure(args.repeat, lambda: measure_cpython(chroot, pid, rate, args.duration, cpu))
            rows.append(("CPython 3.15 profiling.sampling " + rate, runs, note))
            runs, note = repeat_measure(args.repeat, lambda: measure_gilscope(args.gilscope, pid, rate, args.duration, cpu))
            rows.append(("gilscope " + rate, runs, note))
            runs, note = repeat_measure(args.repeat, lambda: measure_gilscope(args.gilscope, pid, rate, args.duration, cpu, 1))
            rows.append(("gilscope " + rate + " --rt-priority 1", runs, note))
        table("A. 30-deep Python 3.15 target, %d s per run" % args.duration, rows, args.repeat)
    finally:
        stop(target)


def part_b(args, cpu):
    if not shutil.which("austin") or not os.path.exists(args.python39):
        print("\nB. skipped: needs austin and %s" % args.python39)
        return
    target, pid = start_target([args.python39, os.path.join(TARGETS, "deep30.py")])
    try:
        rows = []
        for interval in (100, 20):
            runs, note = repeat_measure(args.repeat, lambda: measure_austin(interval, pid, args.duration, cpu))
            rows.append(("austin -i %d" % interval, runs, note))
        for rate in ("10khz", "50khz"):
            runs, note = repeat_measure(args.repeat, lambda: measure_gilscope(args.gilscope, pid, rate, args.duration, cpu))
            rows.append(("gilscope -r " + rate, runs, note))
            runs, note = repeat_measure(args.repeat, lambda: measure_gilscope(args.gilscope, pid, rate, args.duration, cpu, 1))
            rows.append(("gilscope -r %s --rt-priority 1" % rate, runs, note))
        table("B. 30-deep Python 3.9 target, %d s per run" % args.duration, rows, args.repeat)
    finally:
        stop(target)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gilscope", required=True)
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python39", default=os.path.expanduser("~/.pyenv/versions/3.9.18/bin/python3.9"))
    ap.add_argument("--chroot", default=os.environ.get("GILSCOPE_CHROOT_DIR", "/var/cache/gilscope/sid-python"))
    ap.add_argument("--only", choices=["a", "b"])
    args = ap.parse_args()
    args.gilscope = os.path.abspath(args.gilscope)
    cpu = ChildCpu()
    print("load average: %.1f %.1f %.1f on %d CPUs" % (os.getloadavg() + (os.cpu_count(),)))
    if args.only in (None, "a"):
        part_a(args, cpu)
    if args.only in (None, "b"):
        part_b(args, cpu)


if __name__ == "__main__":
    main()
