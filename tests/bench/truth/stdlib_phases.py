"""Issue 34's workload: four real standard-library phases in round-robin, each timing itself
with time.perf_counter (a recursive ast.NodeVisitor, copy.deepcopy, pprint.pformat,
re.compile with its cache cleared). Runs argv[1] seconds once the file argv[2] exists,
then prints "PHASES <json>" (seconds per phase) and exits.

READY json: {"phases": [names]}
"""
import ast
import copy
import json
import os
import pprint
import re
import sys
import time

from _ready import ready

SOURCE = "\n".join(
    "def f%d(a, b=%d):\n    x = [a + i * b for i in range(10)]\n"
    "    return {k: v for k, v in zip(x, x)} if a else (a, b, x)\n" % (i, i) for i in range(40))
TREE = ast.parse(SOURCE)
DATA = {"k%d" % i: [list(range(8)), {"a": (i, str(i)), "b": [None, True, 1.5]}] for i in range(60)}
PATTERNS = [r"(?P<y>\d{4})-(?P<m>\d\d)-(?P<d>\d\d)T%d" % i for i in range(20)]


class Counter(ast.NodeVisitor):
    def __init__(self):
        self.n = 0

    def generic_visit(self, node):
        self.n += 1
        super().generic_visit(node)


def phase_visitor(end):
    while time.perf_counter() < end:
        Counter().visit(TREE)


def phase_deepcopy(end):
    while time.perf_counter() < end:
        copy.deepcopy(DATA)


def phase_pformat(end):
    while time.perf_counter() < end:
        pprint.pformat(DATA)


def phase_regex(end):
    while time.perf_counter() < end:
        re.purge()
        for p in PATTERNS:
            re.compile(p)


PHASES = [(phase_visitor, 0.008), (phase_deepcopy, 0.004), (phase_pformat, 0.003),
          (phase_regex, 0.002)]


def main():
    ready(phases=[f.__name__ for f, _ in PHASES])
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.005)
    spent = {f.__name__: 0.0 for f, _ in PHASES}
    deadline = time.perf_counter() + float(sys.argv[1])
    while time.perf_counter() < deadline:
        for f, slice_s in PHASES:
            start = time.perf_counter()
            f(start + slice_s)
            spent[f.__name__] += time.perf_counter() - start
    print("PHASES " + json.dumps(spent), flush=True)


main()
