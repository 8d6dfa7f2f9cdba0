"""Recurses to a random depth of at most 20 and returns, in a loop (py-spy's test_recursive).

Frames come and go all the time, so a reader that follows a frame freed meanwhile
(3.8-3.10 put freed frames on a free list linked through f_back) sees a wrong stack.
Every real stack is rooted at <module> and is at most 22 frames deep: <module>, then
recurse() at most 21 times (or random's randint/randrange/_randbelow).
READY json: {}
"""
import random

from _ready import ready


def recurse(n):
    if n == 0:
        return
    recurse(n - 1)


ready()
while True:
    recurse(random.randint(1, 20))
