"""Three threads with different habits, for comparing profilers on one target:
"heavy" spins in heavy_work() all the time, "light" spins in light_work() a third of
the time and sleeps in nap() otherwise, "sleeper" sleeps in doze(). Main waits.

READY json: {"threads": 3}
"""
import threading
import time

from _ready import ready


def busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def heavy_work():
    while True:
        busy(0.01)


def nap():
    time.sleep(0.002)


def light_work():
    while True:
        busy(0.001)
        nap()


def doze():
    while True:
        time.sleep(1)


for name, fn in (("heavy", heavy_work), ("light", light_work), ("sleeper", doze)):
    threading.Thread(target=fn, name=name, daemon=True).start()
ready(threads=3)
threading.Event().wait()
