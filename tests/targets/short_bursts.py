"""Work in bursts shorter than a scheduler tick: one thread runs burst() for 0.5 ms, 12
frames deep, then sleeps 4.5 ms; two threads wait, the main thread sleeps. A profiler
that learns a thread ran only from its process's CPU clock (moved at a tick or a switch)
misses most bursts.

READY json: {"worker": native id}
"""
import threading
import time

from _ready import ready

stop = threading.Event()
box = []


def deep(n, leaf):
    return leaf() if n == 0 else deep(n - 1, leaf)


def burst():
    end = time.perf_counter() + 0.0005
    while time.perf_counter() < end:
        pass


def worker():
    box.append(threading.get_native_id())
    while True:
        deep(12, burst)
        time.sleep(0.0045)


for name in ("waiter-1", "waiter-2"):
    threading.Thread(target=deep, args=(10, stop.wait), name=name, daemon=True).start()
threading.Thread(target=worker, name="worker", daemon=True).start()
while not box:
    time.sleep(0.001)
ready(worker=box[0])
while True:
    time.sleep(1)
