"""A C++ library (argv[1], built from demo_callback.cpp by the test) that spins in C for
a few milliseconds, then calls back into Python: spin_forever() -> demo_spin ->
demo::spinFor most of the time.

READY json: {}
"""
import ctypes
import sys

from _ready import ready

lib = ctypes.CDLL(sys.argv[1])
CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)
lib.demo_spin.restype = ctypes.c_ulong
lib.demo_spin.argtypes = [CB, ctypes.c_ulong]


def py_back(i):
    return i


cb = CB(py_back)


def spin_forever():
    while True:
        lib.demo_spin(cb, 3000000)


ready()
spin_forever()
