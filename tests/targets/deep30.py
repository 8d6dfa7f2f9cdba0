"""The main thread spinning 30 frames deep (including <module>).

Usage: deep30.py [total_depth]. READY json: {"depth": total frames}
"""
import sys

from _ready import ready

TOTAL = int(sys.argv[1]) if len(sys.argv) > 1 else 30


def level(n):
    if n > 1:
        level(n - 1)
        return
    ready(depth=TOTAL)
    while True: pass  # noqa: E701


level(TOTAL - 1)  # plus <module> = TOTAL frames
