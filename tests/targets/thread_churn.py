"""Threads that start, call three deep and end, over and over (thread states and frame
chunks are freed and their memory reused all the time).

READY json: {"main": native id of the main thread}
"""
import threading

from _ready import ready


def churn_leaf():
    total = 0
    for i in range(20000):
        total += i
    return total


def churn_middle():
    return churn_leaf()


def churn_top():
    return churn_middle()


def churn():
    while True:
        workers = [threading.Thread(target=churn_top) for _ in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()


ready(main=threading.get_native_id())
churn()
