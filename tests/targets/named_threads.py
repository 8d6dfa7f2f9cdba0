"""Threads named by threading, one renamed on request, and one threading did not make.

Threads: "db-writer" (a Thread subclass, spins in pure Python), "http-worker-1" (sleeps),
"a-name-longer-than-fifteen-bytes" (longer than the kernel's 15-byte comm), "worker-é名"
(not ASCII), "to-be-renamed" (sleeps; on SIGUSR1 it becomes "renamed-worker" and the
script prints "RENAMED"), and "raw": a thread started with _thread, which threading does
not register. The main thread waits for signals.
READY json: {"threads": {name: native thread id, ..., "raw": id, "main": id}}
"""
import _thread
import signal
import threading
import time

from _ready import ready

started = {}
lock = threading.Lock()
all_started = threading.Event()
EXPECTED = 6


def register(name):
    with lock:
        started[name] = threading.get_native_id()
        if len(started) == EXPECTED:
            all_started.set()


class Writer(threading.Thread):
    def run(self):
        register(self.name)
        n = 0
        while True: n += 1  # noqa: E701


def sleeper():
    register(threading.current_thread().name)
    while True:
        time.sleep(3600)


def raw():
    register("raw")
    while True:
        time.sleep(3600)


Writer(name="db-writer", daemon=True).start()
renamed = None
for name in ("http-worker-1", "a-name-longer-than-fifteen-bytes", "worker-é名", "to-be-renamed"):
    t = threading.Thread(target=sleeper, name=name, daemon=True)
    t.start()
    if name == "to-be-renamed":
        renamed = t
_thread.start_new_thread(raw, ())
all_started.wait()


def rename(signum, frame):
    renamed.name = "renamed-worker"
    print("RENAMED", flush=True)


signal.signal(signal.SIGUSR1, rename)
threads = dict(started)
threads["main"] = threading.get_native_id()
ready(threads=threads)
while True:
    signal.pause()
