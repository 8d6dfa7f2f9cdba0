"""A target whose code claims source files it should not get shown (issue 47).

Each argument is a file name. For each, one thread runs a function compiled with that
name as its co_filename, so every sample, dump and heatmap names it: symlinks out of the
process's root, ".." past it, files only root may read, a FIFO, /dev/zero, a huge file.
The code's real text is this script's; the names are lies, as a hostile process may tell.

The functions' first line is `def spin_N():`, their second the loop: a profiler that
shows line 2 of a file that is not shown must not show its bytes either.

READY json: {"names": [the names, in argument order]}
"""
import sys
import threading
import time

from _ready import ready

SOURCE = """def spin_{n}():
    while True:
        sum(range(200))
        time.sleep(0.0005)
"""


def start(n, name):
    scope = {"time": time}
    exec(compile(SOURCE.format(n=n), name, "exec"), scope)
    thread = threading.Thread(target=scope["spin_%d" % n], name="hostile-%d" % n, daemon=True)
    thread.start()


names = sys.argv[1:]
for n, name in enumerate(names):
    start(n, name)
ready(names=names)
while True:
    time.sleep(1)
