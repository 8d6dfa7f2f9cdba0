#!/usr/bin/env python3
"""What --label-from costs the sampler (issue 50): gilscope's CPU per sample with two
labels against none, on the same target in one run, alternating, medians of --repeat:
two context variables, two labels read from the worker's frame (request.path and
request.tenant, --label-from KEY=FUNC:EXPR), and OpenTelemetry's span (--label-from otel:
three labels from one span).

  A. 8 threads at 1 kHz whose requests last 20 ms (the labels change now and then);
  B. the same threads with a new request at every step (the context changes between
     any two samples: every labelled sample reads the context again).

  tests/bench/labels/bench_labels.py --gilscope build/release/app/gilscope \
      [--python PATH] [--duration 5] [--repeat 5]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.normpath(os.path.join(HERE, "..", "..", "targets", "labelled_workers.py"))


def record(gilscope, pid, duration, labels):
    out = tempfile.NamedTemporaryFile(suffix=".bin", delete=False).name
    cmd = [gilscope, "attach", "-a", "-r", "1khz", "-d", str(duration), "--binary", "-o", out]
    for label in labels:
        cmd += ["--label-from", label]
    cmd.append(str(pid))
    before = os.times()
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = os.times()
    os.unlink(out)
    if p.returncode != 0:
        sys.exit("gilscope failed: " + p.stderr)
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    samples = 0
    for line in p.stdout.splitlines() + p.stderr.splitlines():
        if "Binary profile written" in line:
            samples = int(line.split("(")[1].split()[0])
    return cpu, samples


CASES = (("none", []), ("two labels", ["route", "tenant"]),
         ("two frame labels", ["route=worker:request.path", "tenant=worker:request.tenant"]),
         ("otel", ["otel"]))


def run_case(args, period_ms):
    target = subprocess.Popen([args.python, TARGET, "8", str(period_ms)], stdout=subprocess.PIPE,
                              text=True)
    try:
        if not target.stdout.readline().startswith("READY"):
            sys.exit("the target did not start")
        per = {name: [] for name, _ in CASES}
        for _ in range(args.repeat):
            for name, labels in CASES:
                cpu, samples = record(args.gilscope, target.pid, args.duration, labels)
                per[name].append(1e6 * cpu / max(samples, 1))
        return {k: statistics.median(v) for k, v in per.items()}
    finally:
        target.kill()
        target.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gilscope", required=True)
    ap.add_argument("--python", default="/root/.pyenv/versions/3.12.1/bin/python3.12")
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print("gilscope CPU per thread-sample (µs), 8 threads at 1 kHz, median of %d, %s" %
          (args.repeat, os.path.basename(args.python)))
    for title, period in (("A. requests of 20 ms", 20), ("B. a new request every step", 0)):
        m = run_case(args, period)
        print("%-32s none %6.2f   two labels %6.2f (+%.0f %%)   two frame labels %6.2f (+%.0f %%)"
              "   otel span %6.2f (+%.0f %%)" %
              (title, m["none"], m["two labels"], 100 * (m["two labels"] / m["none"] - 1),
               m["two frame labels"], 100 * (m["two frame labels"] / m["none"] - 1),
               m["otel"], 100 * (m["otel"] / m["none"] - 1)))


if __name__ == "__main__":
    main()
