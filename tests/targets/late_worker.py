"""A quiet process whose one ticker thread runs in short bursts (about 1 ms every 20 ms),
and which starts a spinning worker (late_spin) a second after READY: a new thread that
appears while the known ones are off the CPU.

READY json: {"threads": 2}
"""
import threading
import time

from _ready import ready


def burst():
    end = time.perf_counter() + 0.001
    while time.perf_counter() < end:
        pass


def ticker():
    while True:
        burst()
        time.sleep(0.02)


def late_spin():
    while True:
        pass


threading.Thread(target=ticker, name="ticker", daemon=True).start()
ready(threads=2)
time.sleep(1)
threading.Thread(target=late_spin, name="late", daemon=True).start()
while True:
    time.sleep(1)
