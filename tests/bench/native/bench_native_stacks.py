#!/usr/bin/env python3
"""--native-stacks: the target's slowdown (its own loop rate) at 1 kHz and 10 kHz with
--native-stacks, with --native-stacks --blocking and with plain Python stacks, against
no profiler, side by side in one run; and gilscope's CPU per sample for a stack of 30
Python frames over 20 native frames. Medians of --runs windows, interleaved so that
load changes reach every configuration alike. Not a CTest test:

    tests/bench/native/bench_native_stacks.py [--gilscope build/release/app/gilscope]
        [--baseline OTHER_GILSCOPE] [--python python3] [--seconds 3] [--runs 3]
        [--qsort-python PYTHON]...

Then, for each --qsort-python (default: --python), the error rate and CPU per sample on
tests/targets/qsort_callback.py at 1 kHz (libc's qsort calling a Python comparison, the
worst case for pairing a perf sample with a later Python read), with and without pausing.

gilscope's CPU per sample comes twice: over its whole run (attaching, reading the
target's libraries and writing the output included, which a short window inflates), and
while sampling (its threads' on-CPU time across the measured window, over the samples its
achieved rate took in it).

The "kernel alone" rows open the perf event --native-stacks opens, on the target's main
thread, with no gilscope at all (tests/bench/native/kernel_sampling.py): with no record,
the timer's interrupts alone; with registers and stack, what the kernel does per sample.
Their slowdown is the floor any perf-based sampler has on this machine.

--baseline runs every gilscope configuration with a second binary too (rows marked
"baseline:"), interleaved with the first, so that two builds compare in one run.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kernel_sampling import KernelSampling  # noqa: E402

STACK_BYTES = 8192  # PerfThreadEvents::kStackBytes
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def build_library(tmp):
    lib = os.path.join(tmp, "libdemo.so")
    subprocess.run(["c++", "-O2", "-shared", "-fPIC", "-o", lib,
                    os.path.join(ROOT, "tests", "targets", "demo_callback.cpp")], check=True)
    return lib


def read_count(path):
    with open(path, "rb") as f:
        return int.from_bytes(f.read(8), "little")


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def task_cpu_ns(pid):
    """On-CPU time of every thread of pid so far (schedstat: nanoseconds)."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended meanwhile
    return total


def loop_rate(args, counter):
    c0, t0 = read_count(counter), time.monotonic()
    time.sleep(args.seconds)
    c1, t1 = read_count(counter), time.monotonic()
    return (c1 - c0) / (t1 - t0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gilscope", default=os.path.join(ROOT, "build", "release", "app", "gilscope"))
    p.add_argument("--baseline", help="a second gilscope binary, run side by side")
    p.add_argument("--python", default="python3")
    p.add_argument("--seconds", type=float, default=3)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--qsort-python", action="append", default=[])
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        lib = build_library(tmp)
        counter = os.path.join(tmp, "count")
        with open(counter, "wb") as f:
            f.write(b"\0" * 8)
        target = subprocess.Popen([args.python, os.path.join(HERE, "native_deep.py"), lib, counter],
                                  stdout=subprocess.PIPE, text=True)
        try:
            target.stdout.readline()
            configs = [("no profiler", None, None, None)]
            binaries = [("", args.gilscope)]
            if args.baseline:
                binaries.append(("baseline: ", args.baseline))
            for rate in ("1khz", "10khz"):
                configs += [("kernel alone, %s: timer, no record" % rate, rate, None, "floor"),
                            ("kernel alone, %s: regs + %d B stack" % (rate, STACK_BYTES), rate,
                             STACK_BYTES, "floor")]
                for label, binary in binaries:
                    configs += [("%s%s plain" % (label, rate), rate, [], binary),
                                ("%s%s --native-stacks" % (label, rate), rate,
                                 ["--native-stacks"], binary),
                                ("%s%s --native-stacks --blocking" % (label, rate), rate,
                                 ["--native-stacks", "--blocking"], binary)]
            results = {name: [] for name, _, _, _ in configs}
            for _ in range(args.runs):
                for name, rate, extra, binary in configs:
                    results[name].append(run_one(args, binary, target.pid, counter, rate, extra))
            base = statistics.median(r[0] for r in results["no profiler"])
            print("target: %s, 30 Python frames over 20 native frames; %d windows of %.0f s each"
                  % (args.python, args.runs, args.seconds))
            print("µs CPU/sample: the whole run's (attach and output included) / while sampling")
            print("%-46s %12s %10s %16s %8s" % ("configuration", "loops/s", "slowdown",
                                                "µs CPU/sample", "errors"))
            for name, _, _, _ in configs:
                rs = results[name]
                rate = statistics.median(r[0] for r in rs)
                print("%-46s %12.1f %9.1f%% %16s %8s" % (
                    name, rate, 100.0 * (1 - rate / base) if name != "no profiler" else 0.0,
                    cpu_column(rs), median_of(rs, 2, "%.2f%%")))
        finally:
            target.kill()
            target.wait()
    binaries = [("", args.gilscope)] + ([("baseline: ", args.baseline)] if args.baseline else [])
    qsort_errors(args, binaries)


def qsort_errors(args, binaries):
    print("\nqsort_callback.py at 1 kHz: median of %d windows of %.0f s" % (args.runs, args.seconds))
    print("%-28s %-40s %16s %8s" % ("interpreter", "configuration", "µs CPU/sample", "errors"))
    for python in args.qsort_python or [args.python]:
        version = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"],
                                 capture_output=True, text=True).stdout.strip() or python
        target = subprocess.Popen([python, os.path.join(ROOT, "tests", "targets",
                                                        "qsort_callback.py")],
                                  stdout=subprocess.PIPE, text=True)
        try:
            target.stdout.readline()
            configs = [(label + mode, binary, extra)
                       for label, binary in binaries
                       for mode, extra in (("--native-stacks", ["--native-stacks"]),
                                           ("--native-stacks --blocking",
                                            ["--native-stacks", "--blocking"]))]
            results = {name: [] for name, _, _ in configs}
            for _ in range(args.runs):
                for name, binary, extra in configs:
                    results[name].append(run_one(args, binary, target.pid, None, "1khz", extra))
            for name, _, _ in configs:
                print("%-28s %-40s %16s %8s" % (version, name, cpu_column(results[name]),
                                                median_of(results[name], 2, "%.2f%%")))
        finally:
            target.kill()
            target.wait()


def median_of(results, index, fmt):
    values = [r[index] for r in results if r[index] is not None]
    return fmt % statistics.median(values) if values else "-"


def cpu_column(results):
    return median_of(results, 1, "%.1f") + " / " + median_of(results, 3, "%.1f")


def run_one(args, binary, pid, counter, rate, extra):
    """Loop rate of the target over args.seconds, with `binary` recording at `rate` with
    `extra` (None: no profiler). Returns (loops/s, gilscope CPU µs per sample over the whole
    run, error %, CPU µs per sample while sampling). binary "floor": the kernel alone
    samples the target's main thread, with `extra` bytes of stack (None: no record)."""
    if binary == "floor":
        period = 1000000 if rate == "1khz" else 100000
        try:
            with KernelSampling(pid, period, extra):
                return loop_rate(args, counter), None, None, None
        except OSError as e:
            print("kernel alone: %s" % e, file=sys.stderr)
            return 0.0, None, None, None
    if extra is None:
        return loop_rate(args, counter), None, None, None
    proc = subprocess.Popen([binary, "attach", str(pid), "-d", str(args.seconds + 1),
                             "-o", os.devnull, "--collapsed", "-r", rate] + extra,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(0.5)  # attached and sampling
    cpu0, t0 = task_cpu_ns(proc.pid), time.monotonic()
    if counter:
        rate_seen = loop_rate(args, counter)
    else:  # qsort: gilscope's figures only
        rate_seen = None
        time.sleep(args.seconds)
    cpu1, t1 = task_cpu_ns(proc.pid), time.monotonic()
    out = proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    m = re.search(r"Captured (\d+) samples", out)
    e = re.search(r"Error rate: ([0-9.]+)%", out)
    r = re.search(r"Sample rate: ([0-9.]+) samples/sec", out)
    samples = int(m.group(1)) if m else 0
    cpu = usage.ru_utime + usage.ru_stime
    # While sampling: the CPU of the window over the samples the achieved rate took in it,
    # without attaching, reading the target's libraries and writing the output.
    steady = ((cpu1 - cpu0) / 1e3 / (float(r.group(1)) * (t1 - t0))
              if r and float(r.group(1)) > 0 else None)
    return (rate_seen, cpu * 1e6 / samples if samples else None,
            float(e.group(1)) if e else None, steady)


if __name__ == "__main__":
    sys.exit(main())
