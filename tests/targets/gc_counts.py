"""The interpreter's own GC counts, in known steps. Automatic collection is off, so only
the collections this script asks for happen; each one frees cycles it made first. With a
path as argv[1], it waits for that file to exist before it starts (so the test can start
recording first). After each step it prints what gc.get_stats() then says, with when the
step was done in CLOCK_MONOTONIC microseconds (the sampler's clock):

  GC <done_us> <c0> <c1> <c2> <collected>   collections per generation, objects freed
  DONE <done_us>                             0.4 s after the last step (the exit's
                                             own collection comes after it)

READY json: {}
"""
import gc
import os
import sys
import time

from _ready import ready


def now_us():
    return time.monotonic_ns() // 1000


def say_stats():
    stats = gc.get_stats()
    words = ["GC", now_us()] + [s["collections"] for s in stats]
    words.append(sum(s["collected"] for s in stats))
    sys.stdout.write(" ".join(str(w) for w in words) + "\n")
    sys.stdout.flush()


def make_cycles(n):
    for _ in range(n):
        a = []
        a.append(a)


gc.disable()
ready()
if len(sys.argv) > 1:
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.005)

time.sleep(0.3)
say_stats()
# One generation at a time, then a burst of young collections.
for generation, times in ((0, 1), (1, 1), (2, 1), (0, 20), (2, 2)):
    for _ in range(times):
        make_cycles(100)
        gc.collect(generation)
    say_stats()
    time.sleep(0.3)
time.sleep(0.1)
sys.stdout.write("DONE %d\n" % now_us())
sys.stdout.flush()
