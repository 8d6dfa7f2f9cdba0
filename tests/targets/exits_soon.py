"""Spins for SECONDS (default 1) then exits with CODE (default 0).

Usage: exits_soon.py [seconds] [code]. READY json: {"seconds": s, "code": c}
"""
import sys
import time

from _ready import ready

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
CODE = int(sys.argv[2]) if len(sys.argv) > 2 else 0


def work():
    end = time.perf_counter() + SECONDS
    while time.perf_counter() < end:
        pass


ready(seconds=SECONDS, code=CODE)
work()
sys.exit(CODE)
