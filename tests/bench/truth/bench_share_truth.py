#!/usr/bin/env python3
"""Are gilscope's shares true? (issue 34) A target of four phases that times itself runs
under `gilscope attach -r RATE --collapsed`; each phase's share of the samples that show a
phase is held against the target's own perf_counter share, on every interpreter found,
quiet and with a busy process on each core, the binary under test and --baseline side by
side (A B A B ...).

  tests/bench/truth/bench_share_truth.py --gilscope build/release/app/gilscope \
      [--baseline OLD_GILSCOPE] [--workload stdlib|phases] [--duration 6] [--repeat 3] \
      [--rate 1khz] [--only 3.8,3.12] [--conditions quiet,busy] [-- EXTRA GILSCOPE ARGS]

Prints one row per interpreter, condition and binary: medians over the repeats of the
error rate gilscope reports, the worst phase's error in points, and each phase's
truth -> measured share.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = os.path.normpath(os.path.join(HERE, "..", "..", "targets"))
WORKLOADS = {"stdlib": os.path.join(HERE, "stdlib_phases.py"),
             "phases": os.path.join(TARGETS, "timed_phases.py")}
CHROOT = os.environ.get("GILSCOPE_CHROOT_DIR", "/var/cache/gilscope/sid-python")


def interpreters():
    """(label, argv prefix, host dir the target's files go to, the same dir as it sees it)."""
    found = []
    for v in ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13"):
        exe = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/%s.*/bin/python%s" % (v, v))))
        if exe:
            found.append((v, [exe[-1]], None))
    for v in ("3.14", "3.15"):
        if os.path.exists(os.path.join(CHROOT, "usr/bin/python" + v)):
            found.append((v, None, v))
    return found


class Target:
    def __init__(self, label, argv, chroot_version, workload, duration):
        if chroot_version:
            self.host_dir = tempfile.mkdtemp(prefix="truth-", dir=os.path.join(CHROOT, "tmp"))
            seen_dir = "/tmp/" + os.path.basename(self.host_dir)
        else:
            self.host_dir = seen_dir = tempfile.mkdtemp(prefix="truth-")
        for f in (workload, os.path.join(TARGETS, "_ready.py")):
            shutil.copy(f, self.host_dir)
        script = os.path.join(seen_dir, os.path.basename(workload))
        self.gate = os.path.join(self.host_dir, "gate")
        args = [script, str(duration), os.path.join(seen_dir, "gate")]
        if chroot_version:
            inner = "mount -t proc proc %s/proc && exec chroot %s python%s %s" % (
                CHROOT, CHROOT, chroot_version, " ".join(args))
            cmd = ["unshare", "--mount", "sh", "-c", inner]
        else:
            cmd = argv + args
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.p.stdout.readline()
        if not line.startswith("READY"):
            raise RuntimeError("%s: target did not start: %r" % (label, line))
        self.pid = int(line.split()[1])
        self.phases = json.loads(line.split(" ", 2)[2])["phases"]

    def truth(self):
        for line in self.p.stdout:
            if line.startswith("PHASES "):
                return json.loads(line[7:])
        return None

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()
        shutil.rmtree(self.host_dir, ignore_errors=True)


def shares(counts):
    total = sum(counts.values())
    return {k: 100.0 * v / total for k, v in counts.items()} if total else {}


def collapsed_phases(path, phases):
    counts = {p: 0 for p in phases}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            names = {frame.split(" (")[0] for frame in stack.split(";")}
            for p in phases:
                if p in names:
                    counts[p] += int(n)
    return counts


def one_run(binary, interp, workload, duration, rate, extra):
    label, argv, chroot_version = interp
    target = Target(label, argv, chroot_version, workload, duration)
    out = os.path.join(target.host_dir, "out.collapsed")
    try:
        g = subprocess.Popen([binary, "attach", str(target.pid), "-r", rate, "--collapsed", "-o", out,
                              "--realtime-stats"] + extra,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        err = []
        for line in g.stdout:  # the gate opens once gilscope samples
            err.append(line)
            if line.startswith("Real-time sampling stats"):
                open(target.gate, "w").close()
                break
        err += g.stdout.readlines()
        g.wait()
        truth = target.truth()
        if g.returncode != 0 or truth is None:
            raise RuntimeError("%s: gilscope exit %s: %s" % (label, g.returncode, "".join(err[-5:])))
        error_rate = next((float(l.split(":")[1].strip(" %\n")) for l in err if l.startswith("Error rate:")), -1)
        measured = shares(collapsed_phases(out, target.phases))
        true = shares({k: truth[k] for k in target.phases})
        worst = max(abs(measured.get(p, 0) - true[p]) for p in target.phases)
        return {"errors": error_rate, "worst": worst, "true": true, "measured": measured}
    finally:
        target.close()


class Contention:
    """A busy process on each core, started and stopped by the bench."""

    def __init__(self, on):
        self.procs = []
        if on:
            for _ in range(os.cpu_count() or 1):
                self.procs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gilscope", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="stdlib")
    ap.add_argument("--duration", type=float, default=6)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rate", default="1khz")
    ap.add_argument("--only", default="")
    ap.add_argument("--conditions", default="quiet,busy")
    ap.add_argument("extra", nargs="*")
    args = ap.parse_args()
    binaries = [("now", args.gilscope)] + ([("before", args.baseline)] if args.baseline else [])
    only = set(filter(None, args.only.split(",")))
    print("workload %s, %g s per run, %s, medians of %d; errors: the summary's error rate"
          % (args.workload, args.duration, args.rate, args.repeat))
    print("%-5s %-6s %-7s %8s %7s  %s" % ("py", "cond", "binary", "errors%", "worst", "phases truth -> measured"))
    for interp in interpreters():
        if only and interp[0] not in only:
            continue
        for cond in args.conditions.split(","):
            runs = {name: [] for name, _ in binaries}
            with Contention(cond == "busy"):
                for _ in range(args.repeat):
                    for name, binary in binaries:
                        try:
                            runs[name].append(one_run(binary, interp, WORKLOADS[args.workload],
                                                      args.duration, args.rate, args.extra))
                        except RuntimeError as e:
                            print("  " + str(e))
            for name, _ in binaries:
                r = runs[name]
                if not r:
                    continue
                phases = r[0]["true"].keys()
                cells = ["%s %.1f->%.1f" % (p.replace("phase_", ""),
                                            statistics.median(x["true"][p] for x in r),
                                            statistics.median(x["measured"].get(p, 0) for x in r))
                         for p in phases]
                print("%-5s %-6s %-7s %8.2f %7.2f  %s" % (
                    interp[0], cond, name, statistics.median(x["errors"] for x in r),
                    statistics.median(x["worst"] for x in r), "  ".join(cells)))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
