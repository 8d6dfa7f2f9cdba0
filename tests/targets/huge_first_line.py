"""Code objects whose co_firstlineno is 2**31 - 1, the largest a code object holds.

inner() runs on its `def` line, so CPython reports line 2147483647 for it; outer() runs
one line further, past what a line number can hold, and CPython 3.10+ reports no line
(f_lineno is None) for it.
READY json: {"inner": 2147483647}
"""
from _ready import ready


def outer():
    inner()


def inner(): ready(inner=2**31 - 1); exec("while True: pass")  # noqa: E702


outer.__code__ = outer.__code__.replace(co_firstlineno=2**31 - 1)
inner.__code__ = inner.__code__.replace(co_firstlineno=2**31 - 1)
outer()
