"""Eight threads: four spinning in Python, four sleeping.

READY json: {"threads": {name: native thread id, ..., "main": id}}
"""
import threading
import time

from _ready import ready

started = {}
lock = threading.Lock()
all_started = threading.Event()


def register():
    with lock:
        started[threading.current_thread().name] = threading.get_native_id()
        if len(started) == 8:
            all_started.set()


def spinner():
    register()
    while True: pass  # noqa: E701


def sleeper():
    register()
    while True:
        time.sleep(3600)


for i in range(4):
    threading.Thread(target=spinner, name="spinner-%d" % i, daemon=True).start()
    threading.Thread(target=sleeper, name="sleeper-%d" % i, daemon=True).start()
all_started.wait()
threads = dict(started)
threads["main"] = threading.get_native_id()
ready(threads=threads)
threading.Event().wait()
