"""A light service: every 20 ms it handles a "request" (about 2 ms of work in handle()).
With a number N as an argument it is a pre-forking server: it forks N workers with
os.fork() (no exec, as gunicorn and uwsgi do) that serve the same way, and the parent
only waits. Workers leave when the parent is gone. Other arguments are ignored (tests
use them to tell their processes apart).

READY json: {"workers": [worker pids]}
"""
import os
import sys
import time

from _ready import ready


def handle():
    end = time.perf_counter() + 0.002
    while time.perf_counter() < end:
        pass


def serve(parent):
    while parent is None or os.getppid() == parent:
        handle()
        time.sleep(0.018)
    os._exit(0)


forks = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 0
workers = []
for _ in range(forks):
    pid = os.fork()
    if pid == 0:
        serve(os.getppid())
    workers.append(pid)
ready(workers=workers)
if forks:
    while True:
        time.sleep(1)
serve(None)
