"""A thread whose stack changes at a known rhythm while it mostly sleeps, beside a main
thread that keeps the GIL busy (or, with --quiet-main, sleeps) and four threads at rest.

The waiter runs phase_a(), phase_b(), phase_c(), phase_a(), ... PHASE seconds each.
Each calls the same pause(), so pause's frame sits at the same address with the same
instruction pointer in every phase: only its caller tells them apart. On entering a
phase it prints "PHASE <letter> <CLOCK_MONOTONIC ns>", taken after the phase's frame is
pushed and so after the previous phase's frames were popped: a sample read after that
time that shows the previous phase was served stale.
READY json: {"waiter": native id, "phase_s": PHASE}
"""
import sys
import threading
import time

from _ready import ready

PHASE = 0.03
never = threading.Event()
go = threading.Event()


def mark(letter):
    # One write per line: print() writes the text and the newline apart, and another
    # thread's line could land between them.
    sys.stdout.write("PHASE %s %d\n" % (letter, time.monotonic_ns()))
    sys.stdout.flush()


def pause():
    time.sleep(0.002)


def phase_a(until):
    mark("a")
    while time.monotonic() < until:
        pause()


def phase_b(until):
    mark("b")
    while time.monotonic() < until:
        pause()


def phase_c(until):
    mark("c")
    while time.monotonic() < until:
        pause()


def waiter(box):
    box.append(threading.get_native_id())
    go.wait()  # after READY: the test reads every line after it
    while True:
        for phase in (phase_a, phase_b, phase_c):
            phase(time.monotonic() + PHASE)


for i in range(4):
    threading.Thread(target=never.wait, name="rest-%d" % i, daemon=True).start()
box = []
threading.Thread(target=waiter, args=(box,), name="waiter", daemon=True).start()
while not box:
    time.sleep(0.001)
ready(waiter=box[0], phase_s=PHASE)
go.set()
if "--quiet-main" in sys.argv:
    while True:
        time.sleep(1)
while True: pass  # noqa: E701
