"""Recursion N deep (default 1000), spinning at the bottom.

Usage: recursion.py [depth]. READY json: {"depth": frames of recurse()}
"""
import resource
import sys

from _ready import ready

DEPTH = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
sys.setrecursionlimit(DEPTH + 500)
# 3.8-3.10 recurse on the C stack too: let the main thread's stack grow past 8 MiB.
STACK = 100 << 20
soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
if soft != resource.RLIM_INFINITY and soft < STACK:
    if hard != resource.RLIM_INFINITY:
        STACK = min(STACK, hard)
    resource.setrlimit(resource.RLIMIT_STACK, (STACK, hard))


def recurse(n):
    if n > 1:
        recurse(n - 1)
        return
    ready(depth=DEPTH)
    while True: pass  # noqa: E701


recurse(DEPTH)
