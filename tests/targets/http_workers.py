"""The walk-through service of issue 36: six "http-worker" threads that parse JSON, hash,
render, then record the request in shared statistics under one threading.Lock (a little
work and a 1 ms write held under it), and sleep a moment. The lock is the bottleneck: the
workers spend a large share of their requests in update_stats waiting for it, which they
time themselves with perf_counter (the truth `<lock wait>` is checked against).

Runs argv[1] seconds (default 60) once the file argv[2] (optional) exists, then prints
"TIMES <json>": per worker, seconds in handle() and seconds spent acquiring the lock.

READY json: {"workers": {name: native id}}
"""
import hashlib
import json
import os
import sys
import threading
import time

from _ready import ready

WORKERS = 6
PAYLOAD = json.dumps({"user": "ada", "items": list(range(40)), "note": "x" * 200})
lock = threading.Lock()
stats = {}
start, stop = threading.Event(), threading.Event()


def parse():
    return json.loads(PAYLOAD)


def digest(doc):
    h = hashlib.sha256()
    for item in doc["items"]:
        h.update(str(item).encode())
    return h.hexdigest()


def render(doc, key):
    return "<li>%s</li>" % "".join("<b>%d</b>" % i for i in doc["items"]) + key


def update_stats(key, waited):
    begin = time.perf_counter()
    with lock:
        waited[0] += time.perf_counter() - begin
        # Held under the lock, what makes the others queue: a little work, and a write.
        for _ in range(50):
            stats[key[:4]] = stats.get(key[:4], 0) + 1
        time.sleep(0.001)


def handle(waited):
    doc = parse()
    key = digest(doc)
    render(doc, key)
    update_stats(key, waited)


def worker(times):
    waited, handling = [0.0], 0.0
    start.wait()
    while not stop.is_set():
        begin = time.perf_counter()
        handle(waited)
        handling += time.perf_counter() - begin
        time.sleep(0.001)
    times[threading.current_thread().name] = {"handle": handling, "lock": waited[0]}


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    gate = sys.argv[2] if len(sys.argv) > 2 else None
    times = {}
    threads = [threading.Thread(target=worker, args=(times,), name="http-worker-%d" % i)
               for i in range(WORKERS)]
    for t in threads:
        t.start()
    ready(workers={t.name: t.native_id for t in threads})
    while gate and not os.path.exists(gate):
        time.sleep(0.005)
    start.set()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    print("TIMES " + json.dumps(times), flush=True)


main()
