"""Why threads do not run at once (issue 49), timed by the program itself.

  ft_scaling.py gc SECONDS [GATE]
      Thread "gc-thread" calls gc.collect() in a loop over a heap of a few hundred thousand
      objects; "compute-I" threads run arithmetic (three, or one fewer than the CPUs when
      that is less). On a free-threaded build every collection stops the world: they are
      suspended until it ends. Prints "TIMES {"collect_s": ..., "collections": N,
      "collect_line": L, "workers": N, "lost_s": ...}": lost_s is the compute threads' time
      off a CPU (wall time less their own CPU time), which the pauses took;
      the seconds spent inside gc.collect(), which is how long the world was stopped (give
      or take the finalizers it runs after), and the line it is called from. Automatic
      collections are off: every pause is one of these.
  ft_scaling.py busy SECONDS [GATE]
      Four independent "busy-I" threads run arithmetic (FT_THREADS=N: N of them): as many
      run at once as there are cores (a GIL: one). Prints "TIMES {"cpu": ..., "wall": ...}".

Both wait for the file GATE before the timed part (so a test can start recording first).
READY json: {"threads": {name: native_id}, "free_threaded": bool, "cpus": N}
"""
import gc
import json
import os
import sys
import threading
import time

from _ready import caller_line, ready


def compute(stop, lost=None):
    wall0, cpu0 = time.perf_counter(), time.thread_time()
    while not stop.is_set():
        x = 0
        for i in range(2000):
            x = (x * 31 + i) % 1000003
    if lost is not None:
        # Off a CPU while it wanted one: stopped by a pause, or (more threads than CPUs)
        # waiting for a CPU, which is why the gc mode runs no more than the CPUs allow.
        lost.append((time.perf_counter() - wall0) - (time.thread_time() - cpu0))


def collector(stop, spent):
    # A heap whose traversal takes a while: every collection visits it.
    heap = [[i, str(i), {"k": i}] for i in range(150000)]
    while not stop.is_set():
        begin = time.perf_counter()
        spent["line"] = caller_line(0) + 1
        gc.collect()
        spent["collect_s"] += time.perf_counter() - begin
        spent["collections"] += 1
        time.sleep(0.01)  # the world runs between two pauses
    del heap


def main():
    # Only the explicit collections stop the world: the heap's allocations would trigger
    # automatic ones from other lines.
    gc.disable()
    mode = sys.argv[1]
    seconds = float(sys.argv[2])
    gate = sys.argv[3] if len(sys.argv) > 3 else None
    start, stop = threading.Event(), threading.Event()
    spent = {"collect_s": 0.0, "collections": 0, "line": 0}

    def gated(f, *args):
        def run():
            start.wait()
            f(*args)

        return run

    lost = []
    cpus = len(os.sched_getaffinity(0))
    # Three compute beside the collector where there are CPUs for them (FT_COMPUTE=N says
    # how many): then each one's time off a CPU is the time the pauses took from it.
    computing = int(os.environ.get("FT_COMPUTE", max(1, min(3, cpus - 1))))
    if mode == "gc":
        threads = [threading.Thread(target=gated(collector, stop, spent), name="gc-thread")]
        threads += [
            threading.Thread(target=gated(compute, stop, lost), name="compute-%d" % i)
            for i in range(computing)
        ]
    else:
        threads = [
            threading.Thread(target=gated(compute, stop), name="busy-%d" % i)
            for i in range(int(os.environ.get("FT_THREADS", "4")))
        ]
    for t in threads:
        t.start()
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    ready(
        threads={t.name: t.native_id for t in threads},
        free_threaded=not gil,
        cpus=cpus,
    )
    while gate and not os.path.exists(gate):
        time.sleep(0.005)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    start.set()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    times = {"cpu": cpu, "wall": wall}
    if mode == "gc":
        times.update(
            collect_s=spent["collect_s"],
            collections=spent["collections"],
            collect_line=spent["line"],
            workers=computing,
            lost_s=sum(lost),
        )
    print("TIMES " + json.dumps(times), flush=True)


main()
