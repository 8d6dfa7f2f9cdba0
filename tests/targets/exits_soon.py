"""Spins for SECONDS (default 1) then exits with CODE (default 0).

Usage: exits_soon.py [seconds] [code] [go-file]. READY json: {"seconds": s, "code": c}
With go-file, it starts spinning only once that file exists (a test creates it when the
profiler has started sampling).
"""
import os
import sys
import time

from _ready import ready

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
CODE = int(sys.argv[2]) if len(sys.argv) > 2 else 0
GO_FILE = sys.argv[3] if len(sys.argv) > 3 else None


def work():
    end = time.perf_counter() + SECONDS
    while time.perf_counter() < end:
        pass


ready(seconds=SECONDS, code=CODE)
while GO_FILE and not os.path.exists(GO_FILE):
    time.sleep(0.01)
work()
sys.exit(CODE)
