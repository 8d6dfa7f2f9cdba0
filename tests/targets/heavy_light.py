"""About 75% of the time in heavy(), 25% in light(), measured by wall clock.

READY json: {"heavy_share": 0.75}
"""
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


ready(heavy_share=0.75)
while True:
    heavy()
    light()
