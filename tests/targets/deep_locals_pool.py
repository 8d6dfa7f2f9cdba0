"""dump --locals' benchmark target (issue 39): THREADS threads (default 50), each 30 frames
deep with five variables per frame (int, float, str, list, dict), resting in sleep; and a
ticker thread that spins on time.monotonic() and keeps the longest gap it saw: SIGUSR1
prints it ("GAP <ms>") and starts over, so a benchmark can tell whether the target ever
stopped while it was read.

READY json: {"threads": THREADS}
"""
import signal
import sys
import threading
import time

from _ready import ready

THREADS = int(sys.argv[1]) if len(sys.argv) > 1 else 50
DEPTH = 30
started = threading.Barrier(THREADS + 1)
longest = [0.0]


def level(n, tag):
    count = n * 3
    ratio = n / 7.0
    label = "level %d of %s" % (n, tag)
    items = [n, n + 1, n + 2]
    info = {"n": n, "tag": tag}
    if n == 0:
        started.wait()
        while True:
            time.sleep(3600)
    return level(n - 1, tag) + count + ratio + len(label) + len(items) + len(info)


def ticker():
    last = time.monotonic()
    while True:
        now = time.monotonic()
        longest[0] = max(longest[0], now - last)
        last = now


def report(signum, frame):
    sys.stdout.write("GAP %.3f\n" % (longest[0] * 1000))
    sys.stdout.flush()
    longest[0] = 0.0


signal.signal(signal.SIGUSR1, report)
for i in range(THREADS):
    threading.Thread(target=level, args=(DEPTH - 1, "t%d" % i), name="deep-%d" % i,
                     daemon=True).start()
started.wait()
threading.Thread(target=ticker, name="ticker", daemon=True).start()
ready(threads=THREADS)
while True:
    time.sleep(3600)
