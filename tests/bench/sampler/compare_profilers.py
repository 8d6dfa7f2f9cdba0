#!/usr/bin/env python3
"""Side-by-side profiler comparison on the same target, in one run (medians).

  A. CPython 3.15's own profiler (`python3.15 -m profiling.sampling attach`, in the
     sid chroot) vs `gilscope attach`, on a 30-deep 3.15 target in that chroot,
     at 1k / 10k / 100k, beside the machine's floor (floor_loop: a loop that only sleeps
     to absolute deadlines); each row's CPU per sample above that floor.
  B. Austin 1.0.1 (`austin -i 100` and `-i 20`) vs `gilscope attach` at 10 kHz and
     50 kHz, on a 30-deep Python 3.9 target.
  C. Many threads (issue 23), CPython 3.15's profiler vs gilscope with -a, 3.15 targets
     in the chroot: a 500-thread pool at rest plus one busy thread at 1 kHz, and 16 busy
     threads 20 deep at 100 kHz. Figures: thread-stacks/s (the samples in the collapsed
     output over the duration), missed ticks %, CPU.
  D. The 3.8-3.10 walker before and after (issue 23): gilscope against an older build
     (--baseline PATH) on 3.9 targets: 30 deep at 10 kHz, and the 500-thread pool at 1 kHz.

Figures: achieved samples/s, error %, and the profiler's CPU time (user+sys of the
profiler process, from wait4) as a % of one core over the sampling time.

  tests/bench/sampler/compare_profilers.py --gilscope build/release/app/gilscope \
      [--duration 5] [--repeat 3] [--python39 PATH] [--chroot DIR] [--baseline OLD_GILSCOPE]
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


def measure_floor(floor_loop, rate, duration, cpu):
    """The machine's floor: a loop that only sleeps to absolute deadlines (floor_loop)."""
    hz = {"1khz": 1000, "10khz": 10000, "100khz": 100000}[rate]
    cpu.take()
    out, err, wall = run_measured([floor_loop, str(hz), str(duration)])
    used = cpu.take()
    m = re.search(r"rate=([0-9.]+)/s", out)
    if not m:
        return None, (err.strip().splitlines() or ["no output"])[-1]
    return (float(m.group(1)), 0.0, 100.0 * used / duration), None


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


def collapsed_total(path):
    total = 0
    with open(path, errors="replace") as f:
        for line in f:
            head, _, count = line.rstrip("\n").rpartition(" ")
            if head and count.isdigit():
                total += int(count)
    return total


def parse_missed(out):
    m = re.search(r"missed [0-9,]+ samples from the expected total of [0-9,]+ \(([0-9.]+)%\)", out)
    return float(m.group(1)) if m else 0.0


def measure_stacks(cmd, outfile, duration, cpu):
    """Runs a recording that writes collapsed stacks to outfile: (stacks/s, missed %, CPU %)."""
    if os.path.exists(outfile):
        os.unlink(outfile)
    cpu.take()
    out, err, wall = run_measured(cmd)
    used = cpu.take()
    if not os.path.exists(outfile):
        return None, (err.strip().splitlines() or ["no output"])[-1]
    stacks = collapsed_total(outfile)
    os.unlink(outfile)
    return (stacks / duration, parse_missed(out + err), 100.0 * used / duration), None


def gilscope_stacks(binary, pid, rate, duration, cpu, extra=()):
    outfile = tempfile.mktemp(suffix=".txt")
    cmd = [binary, "attach", "-a", "-r", rate, "-d", str(duration), "-o", outfile] + list(extra) + [str(pid)]
    return measure_stacks(cmd, outfile, duration, cpu)


def cpython_stacks(chroot, pid, rate, duration, cpu):
    cmd = ["nsenter", "-t", str(pid), "-m", "--", "chroot", chroot, "python3.15", "-m", "profiling.sampling",
           "attach", "-a", "-r", rate, "-d", str(duration), "--collapsed", "-o", "/tmp/cpython_stacks.txt",
           str(pid)]
    return measure_stacks(cmd, os.path.join(chroot, "tmp", "cpython_stacks.txt"), duration, cpu)


def stacks_table(title, rows, repeat):
    print("\n" + title + " (median of %d)" % repeat)
    print("%-44s %14s %9s %16s" % ("profiler", "thread-stacks/s", "missed%", "CPU % of a core"))
    for name, runs, note in rows:
        ok = [r for r in runs if r]
        if not ok:
            print("%-44s %s" % (name, "failed: " + (note or "?")))
            continue
        med = [statistics.median(x[i] for x in ok) for i in range(3)]
        print("%-44s %14.0f %9.2f %16.1f" % (name, med[0], med[1], med[2]))
    sys.stdout.flush()


def chroot_target(chroot, script, args=()):
    work = os.path.join(chroot, "tmp", "gilscope-bench")
    os.makedirs(work, exist_ok=True)
    for name in (script, "_ready.py"):
        shutil.copy(os.path.join(TARGETS, name), work)
    inner = "mount -t proc proc %s/proc && exec chroot %s python3.15 /tmp/gilscope-bench/%s %s" % (
        chroot, chroot, script, " ".join(args))
    return start_target(["unshare", "--mount", "sh", "-c", inner])


def part_c(args, cpu):
    chroot = args.chroot
    if not os.path.exists(os.path.join(chroot, "usr/bin/python3.15")):
        print("\nC. skipped: no python3.15 in %s (run scripts/setup-python-chroot.sh)" % chroot)
        return
    for script, rate, title in (("idle_pool.py", "1khz", "500 threads at rest + 1 busy, -a at 1 kHz"),
                                ("busy_threads.py", "100khz", "16 busy threads 20 deep, -a at 100 kHz")):
        target, pid = chroot_target(chroot, script)
        try:
            rows = []
            runs, note = repeat_measure(args.repeat, lambda: cpython_stacks(chroot, pid, rate, args.duration, cpu))
            rows.append(("CPython 3.15 profiling.sampling -a " + rate, runs, note))
            if args.baseline:
                runs, note = repeat_measure(
                    args.repeat, lambda: gilscope_stacks(args.baseline, pid, rate, args.duration, cpu))
                rows.append(("gilscope (baseline) -a " + rate, runs, note))
            runs, note = repeat_measure(args.repeat, lambda: gilscope_stacks(args.gilscope, pid, rate, args.duration, cpu))
            rows.append(("gilscope -a " + rate, runs, note))
            runs, note = repeat_measure(
                args.repeat, lambda: gilscope_stacks(args.gilscope, pid, rate, args.duration, cpu, ["--rt-priority", "1"]))
            rows.append(("gilscope -a %s --rt-priority 1" % rate, runs, note))
            stacks_table("C. %s, Python 3.15, %d s per run" % (title, args.duration), rows, args.repeat)
        finally:
            stop(target)


def part_d(args, cpu):
    if not args.baseline or not os.path.exists(args.python39):
        print("\nD. skipped: needs --baseline and %s" % args.python39)
        return
    for script, flags, rate, title in (("deep30.py", [], "10khz", "30 deep, main thread, 10 kHz"),
                                       ("idle_pool.py", ["-a"], "1khz", "500 threads at rest + 1 busy, -a, 1 kHz")):
        target, pid = start_target([args.python39, os.path.join(TARGETS, script)])
        try:
            rows = []
            for label, binary in (("gilscope (baseline)", args.baseline), ("gilscope", args.gilscope)):
                def once(binary=binary):
                    outfile = tempfile.mktemp(suffix=".txt")
                    cmd = [binary, "attach"] + flags + ["-r", rate, "-d", str(args.duration), "-o", outfile, str(pid)]
                    return measure_stacks(cmd, outfile, args.duration, cpu)
                runs, note = repeat_measure(args.repeat, once)
                rows.append(("%s %s" % (label, rate), runs, note))
            stacks_table("D. 3.9's walker: %s, %d s per run" % (title, args.duration), rows, args.repeat)
        finally:
            stop(target)


def table(title, rows, repeat, floors=None):
    """floors: rate -> the floor loop's CPU % at it; adds each row's CPU per sample above it."""
    print("\n" + title + " (median of %d)" % repeat)
    print("%-34s %12s %9s %18s %14s" % ("profiler", "achieved/s", "errors%", "CPU % of a core",
                                         "us/sample>floor" if floors else ""))
    for name, runs, note in rows:
        ok = [r for r in runs if r]
        if not ok:
            print("%-34s %s" % (name, "failed: " + (note or "?")))
            continue
        med = [statistics.median(x[i] for x in ok) for i in range(3)]
        above = ""
        for rate, floor in (floors or {}).items():
            if rate in name.split() and med[0] > 0:
                above = "%.2f" % ((med[2] - floor) / 100.0 * 1e6 / med[0])
        print("%-34s %12.0f %9.2f %18.1f %14s" % (name, med[0], med[1], med[2], above))
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
        rows, floors = [], {}
        for rate in ("1khz", "10khz", "100khz"):
            if args.floor_loop:
                runs, note = repeat_measure(args.repeat, lambda: measure_floor(args.floor_loop, rate, args.duration, cpu))
                rows.append(("floor loop (sleeps only) " + rate, runs, note))
                ok = [r for r in runs if r]
                if ok:
                    floors[rate] = statistics.median(r[2] for r in ok)
            runs, note = repeat_measure(args.repeat, lambda: measure_cpython(chroot, pid, rate, args.duration, cpu))
            rows.append(("CPython 3.15 profiling.sampling " + rate, runs, note))
            if args.baseline:
                runs, note = repeat_measure(args.repeat, lambda: measure_gilscope(args.baseline, pid, rate, args.duration, cpu))
                rows.append(("gilscope (baseline) " + rate, runs, note))
            runs, note = repeat_measure(args.repeat, lambda: measure_gilscope(args.gilscope, pid, rate, args.duration, cpu))
            rows.append(("gilscope " + rate, runs, note))
            runs, note = repeat_measure(args.repeat, lambda: measure_gilscope(args.gilscope, pid, rate, args.duration, cpu, 1))
            rows.append(("gilscope " + rate + " --rt-priority 1", runs, note))
        table("A. 30-deep Python 3.15 target, %d s per run" % args.duration, rows, args.repeat, floors)
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
    ap.add_argument("--only", choices=["a", "b", "c", "d"])
    ap.add_argument("--baseline", help="an older gilscope binary, measured beside (parts A, C and D)")
    ap.add_argument("--floor-loop", help="floor_loop from the build (default: beside --gilscope's build)")
    args = ap.parse_args()
    args.gilscope = os.path.abspath(args.gilscope)
    if not args.floor_loop:
        guess = os.path.join(os.path.dirname(args.gilscope), "..", "tests", "bench", "sampler", "floor_loop")
        args.floor_loop = os.path.normpath(guess) if os.path.exists(guess) else None
    if args.baseline:
        args.baseline = os.path.abspath(args.baseline)
    cpu = ChildCpu()
    print("load average: %.1f %.1f %.1f on %d CPUs" % (os.getloadavg() + (os.cpu_count(),)))
    if args.only in (None, "a"):
        part_a(args, cpu)
    if args.only in (None, "b"):
        part_b(args, cpu)
    if args.only in (None, "c"):
        part_c(args, cpu)
    if args.only in (None, "d"):
        part_d(args, cpu)


if __name__ == "__main__":
    main()
