"""A loop split between heavy_part() and light_part() by wall clock, for diff tests (70 and
30 compare as a regression and its fix): runs argv[1] seconds, heavy_part taking argv[2]
percent of each 50 ms loop (long, so a busy machine's scheduling delays barely move the
split). Prints "SHARE <heavy_part %>" (its measured share of the two) and exits. With a
path as argv[3], it waits for that file to exist before it starts (so the test can start
recording first), and after SHARE for it to be gone before it exits (so the test can stop
recording first: an exit's clean-up on a loaded machine can take a second); it waits
asleep, without the GIL.

READY json: {}
"""
import os
import sys
import time

from _ready import ready


def busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


HEAVY = 0.050 * float(sys.argv[2]) / 100
LIGHT = 0.050 - HEAVY


def heavy_part():
    busy(HEAVY)


def light_part():
    busy(LIGHT)


ready()
if len(sys.argv) > 3:
    while not os.path.exists(sys.argv[3]):
        time.sleep(0.005)
t_heavy = t_light = 0.0
deadline = time.perf_counter() + float(sys.argv[1])
while time.perf_counter() < deadline:
    a = time.perf_counter()
    heavy_part()
    b = time.perf_counter()
    light_part()
    c = time.perf_counter()
    t_heavy += b - a
    t_light += c - b
print("SHARE %.2f" % (100 * t_heavy / (t_heavy + t_light)), flush=True)
if len(sys.argv) > 3:
    while os.path.exists(sys.argv[3]):
        time.sleep(0.005)
