"""A program that marks its own phases with resources/python/gilscope_ctl.py (issue 39):
warm-up, then `with gilscope_phase("checkout")` around checkout_work(), then cool-down, each
about 0.3 s of CPU; exits by itself. Without a recording the marks do nothing."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "resources", "python"))
from gilscope_ctl import gilscope_phase  # noqa: E402


def spin(seconds):
    end = time.process_time() + seconds
    x = 0
    while time.process_time() < end:
        x += 1
    return x


def warm_up():
    return spin(0.3)


def checkout_work():
    return spin(0.3)


def cool_down():
    return spin(0.3)


warm_up()
with gilscope_phase("checkout"):
    checkout_work()
cool_down()
