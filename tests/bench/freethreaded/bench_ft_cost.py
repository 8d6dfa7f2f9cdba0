#!/usr/bin/env python3
"""What reading a free-threaded target's thread states and counting parallelism costs
(issue 49): gilscope's CPU per sample on python3.13t, 8 busy threads at 1 kHz, medians of
--repeat, in one run:

  binary   attach --binary: the reader (attached/suspended come from the thread-state
           bytes every sample copies anyway) and the .bin writer;
  gecko    attach --gecko: the same plus the Gecko collector, which counts parallelism;
  baseline --baseline PATH: another gilscope (say, a build of the commit before issue 49)
           recording --binary the same way, side by side.

  tests/bench/freethreaded/bench_ft_cost.py --gilscope build/release/app/gilscope \
      [--python /var/cache/gilscope/sid-python/opt/python3.13t/bin/python3.13t] \
      [--baseline OTHER_GILSCOPE] [--duration 5] [--repeat 5]
The interpreter runs inside the sid chroot (its /proc mounted), as the tests run it.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = os.path.normpath(os.path.join(HERE, "..", "..", "targets"))
CHROOT = "/var/cache/gilscope/sid-python"


def record(gilscope, pid, duration, output):
    out = tempfile.NamedTemporaryFile(suffix=".out", delete=False).name
    cmd = [gilscope, "attach", "-a", "-r", "1khz", "-d", str(duration), output, "-o", out, str(pid)]
    before = os.times()
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = os.times()
    os.unlink(out)
    if p.returncode != 0:
        sys.exit("gilscope failed: " + p.stderr)
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gilscope", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--python", default="/opt/python3.13t/bin/python3.13t")
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if not os.path.exists(CHROOT + args.python):
        print("bench_ft_cost: no python3.13t in the chroot (scripts/setup-python-chroot.sh); skipped")
        return
    scratch = tempfile.mkdtemp(dir=CHROOT + "/tmp")
    for name in ("ft_scaling.py", "_ready.py"):
        with open(os.path.join(TARGETS, name)) as src, open(os.path.join(scratch, name), "w") as dst:
            dst.write(src.read())
    inside = scratch[len(CHROOT):]
    sh = ("mount -t proc proc %s/proc; exec chroot %s %s %s/ft_scaling.py busy 3600"
          % (CHROOT, CHROOT, args.python, inside))
    env = dict(os.environ, FT_THREADS="8")
    target = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c", sh],
                              stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = target.stdout.readline()
        if not line.startswith("READY"):
            sys.exit("the target did not start")
        pid = int(line.split()[1])
        # the in-chroot pid is the host's too (no pid namespace)
        samples = 8 * 1000 * args.duration
        cases = [("binary", args.gilscope, "--binary"), ("gecko", args.gilscope, "--gecko")]
        if args.baseline:
            cases.append(("baseline binary", args.baseline, "--binary"))
        per = {name: [] for name, _, _ in cases}
        for _ in range(args.repeat):
            for name, binary, output in cases:
                per[name].append(1e6 * record(binary, pid, args.duration, output) / samples)
        print("python3.13t, 8 busy threads, 1 kHz, %g s x %d (median us of gilscope CPU per "
              "thread-sample):" % (args.duration, args.repeat))
        for name, values in per.items():
            print("  %-16s %6.2f" % (name, statistics.median(values)))
        if args.baseline:
            ratio = statistics.median(per["binary"]) / statistics.median(per["baseline binary"])
            print("  binary / baseline: %.3f" % ratio)
    finally:
        target.kill()
        target.wait()
        for name in os.listdir(scratch):
            os.unlink(os.path.join(scratch, name))
        os.rmdir(scratch)


main()
