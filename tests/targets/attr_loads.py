"""Attribute loads the specialising interpreter (3.11+) treats differently.

stable() reads .x from objects of one class: its load specialises
(LOAD_ATTR_INSTANCE_VALUE). changing() reads .real from numbers of changing types (int,
float, complex, bool): no specialisation fits, and the load stays the adaptive LOAD_ATTR
(LOAD_ATTR_ADAPTIVE in 3.11). Loops forever.
READY json: {"stable_line": N, "changing_line": M} (the lines of the two loads)
"""
from _ready import ready


class Point:
    def __init__(self, x):
        self.x = x


STABLE = [Point(i) for i in range(400)]
CHANGING = [1, 2.0, 3j, True, 5] * 80


def stable(objs):
    t = 0
    for o in objs:
        v = o.x  # stable load
        t += v
    return t


def changing(objs):
    t = 0
    for o in objs:
        v = o.real  # changing load
        t += v
    return t


def line_of(marker):
    with open(__file__, encoding="utf-8") as f:
        for n, text in enumerate(f, 1):
            if text.rstrip().endswith("# " + marker):
                return n
    return -1


ready(stable_line=line_of("stable load"), changing_line=line_of("changing load"))
while True:
    stable(STABLE)
    changing(CHANGING)
