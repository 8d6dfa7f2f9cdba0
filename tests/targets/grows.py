"""A process that grows: its memory in four steps of 50 MB, then a thread pool from 4 to
40 threads. With a path as argv[1], it waits for that file to exist before it starts
(so the test can start recording first). Each step prints when it was done, in
CLOCK_MONOTONIC microseconds (the sampler's clock):

  MEMORY <k> <done_us> <rss>  after the k-th 50 MB block is written (every page
                              resident), with the resident bytes it then read of
                              itself; k = 0 before the first block
  THREADS <n> <done_us>       once n pool threads are running
  DONE

READY json: {}
"""
import os
import sys
import threading
import time

from _ready import ready

STEP = 50 << 20


def now_us():
    return time.monotonic_ns() // 1000


def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def say(*words):
    sys.stdout.write(" ".join(str(w) for w in words) + "\n")
    sys.stdout.flush()


ready()
if len(sys.argv) > 1:
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.005)

release = threading.Event()
pool = []


def grow_pool(n):
    while len(pool) < n:
        t = threading.Thread(target=release.wait, name="pool-%d" % len(pool), daemon=True)
        t.start()
        pool.append(t)


grow_pool(4)
time.sleep(0.3)
say("MEMORY", 0, now_us(), resident())
blocks = []
for k in range(1, 5):
    blocks.append(b"x" * STEP)  # written byte by byte: resident once it is made
    say("MEMORY", k, now_us(), resident())
    time.sleep(0.3)
for n in (13, 22, 31, 40):
    grow_pool(n)
    say("THREADS", n, now_us())
    time.sleep(0.3)
release.set()
for t in pool:
    t.join()
say("DONE")
