"""Recursion N deep (default 1000), spinning at the bottom.

Usage: recursion.py [depth]. READY json: {"depth": frames of recurse()}
"""
import sys

from _ready import ready

DEPTH = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
sys.setrecursionlimit(DEPTH + 500)


def recurse(n):
    if n > 1:
        recurse(n - 1)
        return
    ready(depth=DEPTH)
    while True: pass  # noqa: E701


recurse(DEPTH)
