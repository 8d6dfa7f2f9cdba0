"""heavy_light.py's workload, timing itself: runs argv[1] seconds, then prints
"SHARE <heavy %>" (heavy's share of heavy + light, by wall clock) and exits. With a
path as argv[2], it waits for that file to exist before it starts (so the test can
start recording first).

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


def heavy():
    busy(0.003)


def light():
    busy(0.001)


ready()
if len(sys.argv) > 2:
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.005)
t_heavy = t_light = 0.0
deadline = time.perf_counter() + float(sys.argv[1])
while time.perf_counter() < deadline:
    a = time.perf_counter()
    heavy()
    b = time.perf_counter()
    light()
    c = time.perf_counter()
    t_heavy += b - a
    t_light += c - b
print("SHARE %.2f" % (100 * t_heavy / (t_heavy + t_light)), flush=True)
