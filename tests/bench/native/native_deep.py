"""Benchmark target for --native-stacks: 30 Python frames, then a C++ recursion 20 deep
(demo_nest in argv[1], built from tests/targets/demo_callback.cpp), then a Python
callback that spins for a while. Writes its loop count as 8 bytes to argv[2] (a file
the benchmark maps) so that its own speed can be measured from outside.
"""
import ctypes
import mmap
import os
import sys

lib = ctypes.CDLL(sys.argv[1])
CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)

fd = os.open(sys.argv[2], os.O_RDWR)
counter = mmap.mmap(fd, 8)


def leaf(i):
    s = 0
    for k in range(2000):
        s += k
    return s & 1


cb = CB(leaf)


def python_deep(n):
    if n == 0:
        return lib.demo_nest(20, cb)
    return python_deep(n - 1)


count = 0
print("READY", os.getpid(), flush=True)
while True:
    python_deep(28)
    count += 1
    counter[0:8] = count.to_bytes(8, "little")
