"""Collects garbage over a large heap in a loop, so the collector is running most of
the time. Self-contained (no _ready import) because it runs from this directory."""
import gc
import os
import sys

heap = [[i] for i in range(300000)]
sys.stdout.write("READY %d {}\n" % os.getpid())
sys.stdout.flush()
while True:
    gc.collect()
