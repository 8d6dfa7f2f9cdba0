"""Prints CPython's own answer for every instruction's source location, so the C++
line-table decoders can be checked against the real thing.
READY json: {"firstlineno", "table" (hex), "code_bytes", "positions": [[offset, line, end_line, col, end_col]]}
"""
import json
import os
import sys


def sample(a, b):
    total = 0
    for i in range(a):
        if i % 3 == 0:
            total += (a *
                      b)
        else:
            total -= i


    return [total,
            a, b]


code = sample.__code__
positions = []
if hasattr(code, "co_positions"):  # 3.11+: per code unit
    for i, (line, end, col, endcol) in enumerate(code.co_positions()):
        positions.append([i * 2, line if line is not None else -1,
                          end if end is not None else -1,
                          col if col is not None else -1, endcol if endcol is not None else -1])
    table = code.co_linetable
elif hasattr(code, "co_lines"):  # 3.10: ranges in bytes
    for start, end, line in code.co_lines():
        for off in range(start, end, 2):
            positions.append([off, line if line is not None else -1, -1, -1, -1])
    table = code.co_linetable
else:  # 3.8/3.9: line starts from co_lnotab via dis
    import dis
    starts = dict(dis.findlinestarts(code))
    line = code.co_firstlineno
    for off in range(0, len(code.co_code), 2):
        line = starts.get(off, line)
        positions.append([off, line, -1, -1, -1])
    table = code.co_lnotab
sys.stdout.write("READY %d %s\n" % (os.getpid(), json.dumps({
    "firstlineno": code.co_firstlineno, "table": table.hex(), "positions": positions})))
sys.stdout.flush()
