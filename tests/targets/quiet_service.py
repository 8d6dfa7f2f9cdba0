"""A quiet service, as most on a host are: one thread handles a "request" (about 1 ms
of work, 12 frames deep) every 100 ms, two wait 10 frames deep, the main thread sleeps.
Arguments are ignored (benchmarks use them to tell their processes apart).

READY json: {"threads": 4}
"""
import threading
import time

from _ready import ready

stop = threading.Event()


def deep(n, leaf):
    return leaf() if n == 0 else deep(n - 1, leaf)


def request():
    end = time.perf_counter() + 0.001
    while time.perf_counter() < end:
        pass


def handler():
    while True:
        deep(12, request)
        time.sleep(0.1)


for name in ("waiter-1", "waiter-2"):
    threading.Thread(target=deep, args=(10, stop.wait), name=name, daemon=True).start()
threading.Thread(target=handler, name="handler", daemon=True).start()
ready(threads=4)
while True:
    time.sleep(1)
