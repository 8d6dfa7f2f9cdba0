"""Three threads queue on one threading.Lock that a fourth holds while it computes
(issue 36): "who ran while others waited on the lock" has one answer, crunch_under_lock.

  holder     takes the lock and runs crunch_under_lock() for about 4 ms (hashing, which
             lets go of the GIL, so the waiters reach the lock even under a GIL), then
             lets go of the lock for half a millisecond
  waiter-N   takes the same lock (waiting most of the time), then sleeps 2 ms: the waiters
             queue on the lock, not on each other or on the GIL

Runs argv[1] seconds (default 60), then exits.
READY json: {"holder": native id, "waiters": [native ids]}
"""
import hashlib
import sys
import threading
import time

from _ready import ready

lock = threading.Lock()
stop = threading.Event()
BLOB = b"x" * (256 << 10)


def crunch_under_lock():
    end = time.perf_counter() + 0.004
    while time.perf_counter() < end:
        hashlib.sha256(BLOB).digest()


def holder(ids):
    ids.append(threading.get_native_id())
    while not stop.is_set():
        with lock:
            crunch_under_lock()
        time.sleep(0.0005)  # lets a waiter in now and then


def waiter(ids):
    ids.append(threading.get_native_id())
    while not stop.is_set():
        with lock:
            pass
        time.sleep(0.002)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    held, waiting = [], []
    threads = [threading.Thread(target=holder, args=(held,), name="holder")]
    threads += [threading.Thread(target=waiter, args=(waiting,), name="waiter-%d" % i)
                for i in range(3)]
    for t in threads:
        t.start()
    while len(held) + len(waiting) < len(threads):
        time.sleep(0.001)
    ready(holder=held[0], waiters=waiting)
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()


main()
