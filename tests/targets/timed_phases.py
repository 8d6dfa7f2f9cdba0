"""Four phases in round-robin, each timing itself with time.perf_counter: the truth that a
profiler's shares are checked against (issue 34).

  phase_recursion   a tree recursion: calls and returns all the time (tears most)
  phase_generators  a chain of generators, resumed and suspended for every item
  phase_loop        arithmetic in one frame: no calls at all
  phase_objects     small method calls on objects, dict and list building

Each phase runs for a slice of 2-9 ms (seeded, so every run is alike) in work units of
tens of microseconds. Runs argv[1] seconds, then prints "PHASES <json>" (seconds per phase)
and exits. With a path as argv[2], it waits for that file to exist before it starts, so a
test can start recording first; the wait is in wait_for_gate(), outside every phase.

READY json: {"phases": [names]}
"""
import json
import os
import random
import sys
import time

from _ready import ready


def tree(n):
    if n < 2:
        return 1
    return tree(n - 1) + tree(n - 2)


def phase_recursion(end):
    while time.perf_counter() < end:
        tree(12)


def numbers(n):
    for i in range(n):
        yield i


def squares(items):
    for i in items:
        yield i * i


def odd(items):
    for i in items:
        if i & 1:
            yield i


def phase_generators(end):
    while time.perf_counter() < end:
        sum(odd(squares(numbers(300))))


def phase_loop(end):
    while time.perf_counter() < end:
        x = 0
        for i in range(2000):
            x = (x * 31 + i) % 1000003


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm(self):
        return self.x * self.x + self.y * self.y


def phase_objects(end):
    while time.perf_counter() < end:
        table = {}
        for i in range(200):
            p = Point(i, -i)
            table[i] = [p.norm(), str(i)]


PHASES = [
    (phase_recursion, 0.0065),
    (phase_generators, 0.0045),
    (phase_loop, 0.0035),
    (phase_objects, 0.0025),
]


def wait_for_gate(path):
    while not os.path.exists(path):
        time.sleep(0.005)


def main():
    ready(phases=[f.__name__ for f, _ in PHASES])
    if len(sys.argv) > 2:
        wait_for_gate(sys.argv[2])
    rng = random.Random(34)
    spent = {f.__name__: 0.0 for f, _ in PHASES}
    deadline = time.perf_counter() + float(sys.argv[1])
    while time.perf_counter() < deadline:
        for f, mean in PHASES:
            start = time.perf_counter()
            f(start + mean * rng.uniform(0.4, 1.6))
            spent[f.__name__] += time.perf_counter() - start
    print("PHASES " + json.dumps(spent), flush=True)


main()
