"""One of two processes that share a pid in turn (issue 47's pid-reuse test).

argv[1] is "first" or "successor": each spins in a function named after its role, so a
sample of the one can never be mistaken for the other. Run both without ASLR (setarch
-R): the successor's memory then lies where the first's did, and a reader that still
read by the old pid would find real frames there.

READY json: {"role": role}
"""
import sys

from _ready import ready


def spin_first():
    while True:
        sum(range(100))


def spin_successor():
    while True:
        sum(range(100))


role = sys.argv[1]
ready(role=role)
spin_first() if role == "first" else spin_successor()
