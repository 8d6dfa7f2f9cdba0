"""Many threads all running Python, each `depth` frames deep.

Usage: busy_threads.py [threads] [depth] (default 16 threads, 20 deep).
READY json: {"threads": threads, "depth": depth}
"""
import sys
import threading

from _ready import ready

THREADS = int(sys.argv[1]) if len(sys.argv) > 1 else 16
DEPTH = int(sys.argv[2]) if len(sys.argv) > 2 else 20
running = threading.Semaphore(0)


def level(n):
    if n > 1:
        level(n - 1)
        return
    running.release()
    while True: pass  # noqa: E701


for i in range(THREADS):
    # Thread._bootstrap, _bootstrap_inner and run sit below level(): 3 frames.
    threading.Thread(target=level, args=(DEPTH - 3,), name="busy-%d" % i, daemon=True).start()
for _ in range(THREADS):
    running.acquire()
ready(threads=THREADS, depth=DEPTH)
threading.Event().wait()
