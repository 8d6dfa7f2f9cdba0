"""A Python program that, on SIGUSR1, replaces itself with a new Python program (execv of
the same interpreter: same pid, same executable, a new memory image). Both halves work
in a loop, each in a function of its own; the arguments pass through the exec (tests use
them to tell their processes apart).

READY json: {} (printed by the first program only)
"""
import os
import signal
import sys

from _ready import ready


def before_exec():
    while True:
        sum(range(1000))


def after_exec():
    while True:
        sum(range(1000))


if "--execd" in sys.argv:
    after_exec()


def exec_again(signum, frame):
    os.execv(sys.executable, [sys.executable, __file__, "--execd"] + sys.argv[1:])


signal.signal(signal.SIGUSR1, exec_again)
ready()
before_exec()
