"""Shared by the target scripts that spend a known amount of CPU: `spin`, a loop whose
frames the tests look for, and how many of its iterations take about a millisecond here.

A fixed count of iterations is the same work whatever else the machine runs (a spin to a
deadline would do less work when the thread is preempted).
"""
import time


def spin(n):
    for _ in range(n):
        pass


def loops_per_ms():
    started = time.perf_counter()
    spin(200000)
    return max(1000, int(200000 / ((time.perf_counter() - started) * 1000)))
