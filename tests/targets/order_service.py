"""A 20-thread order service for the window's Snapshot screenshot (issue 39): twelve
workers waiting on a queue, four pricing threads computing, two ledger threads deadlocked
on two locks, a poller sleeping, and the main thread joining them. Runs until killed.

READY json: {"threads": number of threads}
"""
import queue
import threading
import time

from _ready import ready

orders = queue.Queue()
ledger_lock, audit_lock = threading.Lock(), threading.Lock()
both_hold = threading.Barrier(2)


def worker(n):
    handled = 0
    last_order = {"id": 1000 + n, "customer": "ada", "items": ["tea", "scones"], "total": 12.5}
    while True:
        order = orders.get()
        handled += 1
        last_order = order


def price(items, discount):
    total = 0.0
    for i, item in enumerate(items * 2000):
        total += (len(item) * 1.07 + i % 7) * (1 - discount)
    return total


def pricing(n):
    basket = ["tea", "scones", "jam", "cream"][: n + 1]
    while True:
        price(basket, discount=0.1 * n)


def post_entry():
    entry = {"account": "4711", "amount": -12.5}
    with ledger_lock:
        both_hold.wait()
        with audit_lock:
            return entry


def audit_entry():
    reviewer = "grace"
    with audit_lock:
        both_hold.wait()
        with ledger_lock:
            return reviewer


def poller():
    interval = 0.5
    polls = 0
    while True:
        polls += 1
        time.sleep(interval)


threads = [threading.Thread(target=worker, args=(n,), name="worker-%d" % n, daemon=True)
           for n in range(12)]
threads += [threading.Thread(target=pricing, args=(n,), name="pricing-%d" % n, daemon=True)
            for n in range(4)]
threads += [threading.Thread(target=post_entry, name="ledger", daemon=True),
            threading.Thread(target=audit_entry, name="audit", daemon=True),
            threading.Thread(target=poller, name="poller", daemon=True)]
for t in threads:
    t.start()
time.sleep(0.3)
ready(threads=len(threads) + 1)
for t in threads:
    t.join()
