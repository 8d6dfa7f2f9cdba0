"""Four named threads running Python at once (issue 37): on a free-threaded build
(python3.13t) they use every core; under a GIL, one at a time. Each thread alternates
between two functions for a known share of its time, timed with time.perf_counter, the
truth a profiler's per-thread shares are checked against:

  worker_calls  a tree recursion: calls and returns all the time
  worker_loop   arithmetic in one frame: no calls at all

Thread "pw-worker-I" spends about (I+1)/5 of its time in worker_calls. Runs argv[1]
seconds once the file argv[2] exists (so a test can start recording first), then prints
"TIMES <json>": per thread, seconds per function, and the process's CPU seconds and wall
seconds over the run (their ratio is how many threads ran at once, on average).

READY json: {"threads": {name: native_id}, "free_threaded": bool}
"""
import json
import os
import random
import sys
import threading
import time

from _ready import ready

WORKERS = 4
SLICE = 0.008  # seconds per pair of slices, on average


def tree(n):
    if n < 2:
        return 1
    return tree(n - 1) + tree(n - 2)


def worker_calls(end):
    while time.perf_counter() < end:
        tree(8)


def worker_loop(end):
    while time.perf_counter() < end:
        x = 0
        for i in range(500):
            x = (x * 31 + i) % 1000003


def worker(index, start, stop, spent):
    share = (index + 1) / 5
    # Slices of random length (seeded: every run is alike): a workload that repeats with a
    # fixed period would alias with a sampler that ticks with one.
    rng = random.Random(37 + index)
    start.wait()
    while not stop.is_set():
        for f, length in ((worker_calls, SLICE * share), (worker_loop, SLICE * (1 - share))):
            begin = time.perf_counter()
            f(begin + length * rng.uniform(0.4, 1.6))
            spent[f.__name__] += time.perf_counter() - begin


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    gate = sys.argv[2] if len(sys.argv) > 2 else None
    start, stop = threading.Event(), threading.Event()
    spent = [{"worker_calls": 0.0, "worker_loop": 0.0} for _ in range(WORKERS)]
    threads = [
        threading.Thread(target=worker, args=(i, start, stop, spent[i]), name="pw-worker-%d" % i)
        for i in range(WORKERS)
    ]
    for t in threads:
        t.start()
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    ready(threads={t.name: t.native_id for t in threads}, free_threaded=not gil)
    while gate and not os.path.exists(gate):
        time.sleep(0.005)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    start.set()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    times = {t.name: spent[i] for i, t in enumerate(threads)}
    print("TIMES " + json.dumps({"threads": times, "cpu": cpu, "wall": wall}), flush=True)


main()
