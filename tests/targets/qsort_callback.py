"""libc's qsort calling back into Python through ctypes: sort_forever() sorts with
py_cmp() as the C comparison function. With --native-stacks a sample inside py_cmp
reads sort_forever -> qsort (libc) -> ... -> py_cmp, in that order.

READY json: {}
"""
import ctypes
import ctypes.util

from _ready import ready

libc = ctypes.CDLL(ctypes.util.find_library("c"))
CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))


def py_cmp(a, b):
    s = 0
    for i in range(50):
        s += i
    return a[0] - b[0]


cmp = CMP(py_cmp)
N = 500
Array = ctypes.c_int * N


def sort_forever():
    while True:
        values = Array(*range(N, 0, -1))
        libc.qsort(values, N, ctypes.sizeof(ctypes.c_int), cmp)


ready()
sort_forever()
