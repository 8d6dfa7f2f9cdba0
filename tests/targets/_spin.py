"""Shared by the target scripts that spend a known amount of CPU: `spin`, a loop whose
frames the tests look for, and how many of its iterations take about a millisecond here.

A fixed count of iterations is the same work whatever else the machine runs (a spin to a
deadline would do less work when the thread is preempted). The calibration times itself by
the thread's own CPU clock for the same reason: timed by the wall on a loaded machine, a
preempted calibration found a few times fewer loops per millisecond, and the routes' work
shrank until the requests' own overhead was most of it.
"""
import time


def spin(n):
    for _ in range(n):
        pass


def loops_per_ms():
    started = time.thread_time()
    spin(200000)
    return max(1000, int(200000 / ((time.thread_time() - started) * 1000)))
