"""A mostly idle process: 16 threads sleep 30 frames deep, one worker runs about 5% of
the time (5 ms of every 100 ms), the main thread waits on an Event.

READY json: {"threads": 18}
"""
import threading
import time

from _ready import ready

started = threading.Semaphore(0)
stop = threading.Event()


def deep(n):
    if n == 0:
        started.release()
        stop.wait()
    else:
        deep(n - 1)


def work():
    started.release()
    while True:
        end = time.perf_counter() + 0.005
        while time.perf_counter() < end:
            pass
        time.sleep(0.095)


for i in range(16):
    threading.Thread(target=deep, args=(28,), name="idle-%d" % i, daemon=True).start()
threading.Thread(target=work, name="worker", daemon=True).start()
for _ in range(17):
    started.acquire()
ready(threads=18)
stop.wait()
