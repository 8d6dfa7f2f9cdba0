"""Two threads deadlocked on two locks, each holding one and waiting for the other: what
`gilscope dump -a` must explain (issue 39).

READY json: {"a_line": line of `with lock_b:` in first, "b_line": of `with lock_a:` in second}
"""
import threading
import time

from _ready import caller_line, ready

lock_a = threading.Lock()
lock_b = threading.Lock()
both_hold = threading.Barrier(2)
lines = {}


def first():
    order = 17  # dump --locals shows it
    with lock_a:
        both_hold.wait()
        lines["a_line"] = caller_line(0) + 1
        with lock_b:
            pass


def second():
    customer = "ada"  # dump --locals shows it
    with lock_b:
        both_hold.wait()
        lines["b_line"] = caller_line(0) + 1
        with lock_a:
            pass


def blocked_in_futex(thread):
    """Whether the thread sleeps in futex(2), i.e. in the lock's acquire, not on its way."""
    try:
        with open("/proc/self/task/%d/syscall" % thread.native_id) as f:
            return f.read().split(" ", 1)[0] == "202"  # x86-64's futex
    except OSError:
        return False


threads = [threading.Thread(target=first, name="first", daemon=True),
           threading.Thread(target=second, name="second", daemon=True)]
for t in threads:
    t.start()
# READY once both wait on the lock: on a loaded machine a thread can still be on its way
# there after setting its line, and a dump would find it running.
while len(lines) < 2 or not all(blocked_in_futex(t) for t in threads):
    time.sleep(0.01)
ready(**lines)
while True:
    time.sleep(1)
