"""C code calling back into Python: outer() sorts with a Python key() (sorted() is C),
then sleeper() sleeps in C. With --native, CPython's profiler shows
<native>;<module>;outer;<native>;key and <native>;<module>;sleeper.

READY json: {"key_line": line of key's def}
"""
import time

from _ready import ready


def key(x):
    s = 0
    for i in range(200):
        s += i
    return s


def outer():
    return sorted(range(500), key=key)


def sleeper():
    time.sleep(0.01)


ready(key_line=key.__code__.co_firstlineno)
while True:
    outer()
    sleeper()
