"""Four threads contending for the GIL, a sleeping one, and one inside an except block.

Threads: "contender-0".."contender-3" spin in pure Python (only one can hold the GIL
at a time); "sleeper" sleeps in time.sleep (never ON_CPU); "in-except" sleeps inside
an `except` block (HAS_EXCEPTION); the main thread waits on an Event.
READY json: {"threads": {name: native thread id, ..., "main": id}}
"""
import threading
import time

from _ready import ready

started = {}
lock = threading.Lock()
all_started = threading.Event()
stop = threading.Event()
EXPECTED = 6


def register():
    with lock:
        started[threading.current_thread().name] = threading.get_native_id()
        if len(started) == EXPECTED:
            all_started.set()


def contender():
    register()
    n = 0
    while True: n += 1  # noqa: E701


def sleeper():
    register()
    while True:
        time.sleep(3600)


def in_except():
    try:
        raise ValueError("held while sleeping")
    except ValueError:
        register()
        while True:
            time.sleep(3600)


for i in range(4):
    threading.Thread(target=contender, name="contender-%d" % i, daemon=True).start()
threading.Thread(target=sleeper, name="sleeper", daemon=True).start()
threading.Thread(target=in_except, name="in-except", daemon=True).start()
all_started.wait()
time.sleep(0.2)  # let every thread reach its steady state
threads = dict(started)
threads["main"] = threading.get_native_id()
ready(threads=threads)
stop.wait()
