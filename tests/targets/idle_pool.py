"""A pool of threads at rest plus one busy thread, as a server between requests.

Usage: idle_pool.py [threads] [depth] [busy]. Each pool thread waits in Event.wait()
`depth` frames deep (default 500 threads, 10 deep); `busy` more threads (default 1) spin
in Python.
READY json: {"pool": threads, "depth": depth, "busy": native id of the first busy thread}
"""
import sys
import threading

from _ready import ready

POOL = int(sys.argv[1]) if len(sys.argv) > 1 else 500
DEPTH = int(sys.argv[2]) if len(sys.argv) > 2 else 10
BUSY = int(sys.argv[3]) if len(sys.argv) > 3 else 1
never = threading.Event()
parked = threading.Semaphore(0)


def rest(n):
    if n > 1:
        rest(n - 1)
        return
    parked.release()
    never.wait()


def busy(box):
    box.append(threading.get_native_id())
    while True: pass  # noqa: E701


for i in range(POOL):
    threading.Thread(target=rest, args=(DEPTH - 2,), name="pool-%d" % i, daemon=True).start()
for _ in range(POOL):
    parked.acquire()
box = []
for i in range(BUSY):
    threading.Thread(target=busy, args=(box,), name="busy" if i == 0 else "busy-%d" % i,
                     daemon=True).start()
while len(box) < BUSY:
    pass
ready(pool=POOL, depth=DEPTH, busy=box[0])
never.wait()
