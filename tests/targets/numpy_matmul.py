"""numpy multiplying matrices forever (tests only; Debian's python3-numpy): the time goes
into numpy's C code and the BLAS library under matmul_forever().

READY json: {}
"""
import numpy

from _ready import ready

a = numpy.random.default_rng(1).random((256, 256))
b = numpy.random.default_rng(2).random((256, 256))


def matmul_forever():
    while True:
        a @ b


ready()
matmul_forever()
