"""One thread holds the GIL for long stretches inside hog() (a C loop, sum(), never
lets the GIL go mid-call); two threads running waiter() wait for it meanwhile.

READY json: {"threads": {"hog": id, "waiter-0": id, "waiter-1": id, "main": id}}
"""
import threading

from _ready import ready

started = {}
lock = threading.Lock()
all_started = threading.Event()


def register():
    with lock:
        started[threading.current_thread().name] = threading.get_native_id()
        if len(started) == 3:
            all_started.set()


def hog():
    return sum(range(3_000_000))


def hog_loop():
    register()
    while True:
        hog()


def waiter():
    register()
    n = 0
    while True:
        n += 1


threading.Thread(target=hog_loop, name="hog", daemon=True).start()
for i in range(2):
    threading.Thread(target=waiter, name="waiter-%d" % i, daemon=True).start()
all_started.wait()
threads = dict(started)
threads["main"] = threading.get_native_id()
ready(threads=threads)
threading.Event().wait()
