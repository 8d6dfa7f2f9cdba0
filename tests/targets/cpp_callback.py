"""A C++ library (argv[1], built from demo_callback.cpp by the test) calling back into
Python: visit_forever() -> demo_run -> demo::runTwice -> demo::Visitor<int>::visit ->
py_visit().

READY json: {}
"""
import ctypes
import sys

from _ready import ready

lib = ctypes.CDLL(sys.argv[1])
CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)


def py_visit(i):
    s = 0
    for k in range(30):
        s += k
    return i


cb = CB(py_visit)


def visit_forever():
    while True:
        lib.demo_run(cb, 200)


ready()
visit_forever()
