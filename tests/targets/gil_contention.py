"""Two threads contending for the GIL; the main thread waits.

READY json: {"threads": {"worker-0": id, "worker-1": id, "main": id}}
"""
import threading

from _ready import ready

started = {}
lock = threading.Lock()
both = threading.Event()


def worker():
    with lock:
        started[threading.current_thread().name] = threading.get_native_id()
        if len(started) == 2:
            both.set()
    n = 0
    while True: n += 1  # noqa: E701


for i in range(2):
    threading.Thread(target=worker, name="worker-%d" % i, daemon=True).start()
both.wait()
threads = dict(started)
threads["main"] = threading.get_native_id()
ready(threads=threads)
threading.Event().wait()
