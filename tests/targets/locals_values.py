"""A frame whose variables hold every kind of value `gilscope dump --locals` prints, with
known values (issue 39): the test compares each one's text. hold() sleeps forever once
READY is printed.

READY json: {"line": the line hold() sleeps on, "thing": hex address of `obj`}
"""
import time

from _ready import caller_line, ready


class Thing:
    pass


def hold(pos, *args, kw="k", **kwargs):
    none = None
    yes = True
    no = False
    small = 42
    negative = -7
    big = 2**100
    huge_negative = -(10**40)
    zero = 0
    pi = 3.25
    text = "h\u00e9llo 'world'"
    long_text = "x" * 500
    raw = b"\x00ab\xff"
    items = [1, "two", 3.5, None, [4], (5,), {"six": 6}]
    pair = (1, 2)
    single = (7,)
    empty_list = []
    mapping = {"a": 1, "b": [2]}
    numbers = {3}
    frozen = frozenset()
    obj = Thing()
    captured = "in a cell"

    def peek():
        return captured

    ready(line=caller_line(0) + 2, thing=hex(id(obj)))
    while True:
        time.sleep(1)


hold(1, 2, 3, extra=1)
