"""Garbage-collector activity: the main thread builds reference cycles in a loop, so
the cyclic collector runs often; a second thread spins and contends for the GIL.

READY json: {"threads": {"main": id, "spinner": id}}
"""
import gc
import threading

from _ready import ready

gc.set_threshold(200, 5, 5)  # collect often
spinner_id = []
started = threading.Event()


def spinner():
    spinner_id.append(threading.get_native_id())
    started.set()
    while True: pass  # noqa: E701


class Node:
    def __init__(self):
        self.other = None
        self.payload = [0] * 16


def churn():
    while True:
        for _ in range(100):
            a, b = Node(), Node()
            a.other, b.other = b, a  # a cycle only the collector can free


threading.Thread(target=spinner, name="spinner", daemon=True).start()
started.wait()
ready(threads={"main": threading.get_native_id(), "spinner": spinner_id[0]})
churn()
