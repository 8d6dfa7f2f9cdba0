"""Starts two Python children once a go-file exists: one directly, one through /bin/sh
(so the Python process is the shell's child), then waits for both and exits.

Usage: spawner.py GO_FILE [SECONDS] [fork]. With "fork", it starts one child instead, by
os.fork() without an exec (as multiprocessing's fork does). Each child runs heavy_work()/light_work() (about
75%/25% of its time) for SECONDS (default 1.5) and writes its pid and CLOCK_MONOTONIC
start time to GO_FILE.children, one "PID START" line each.
READY json: {"children": 2}
"""
import os
import subprocess
import sys
import time

from _ready import ready

GO_FILE = sys.argv[1]
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 1.5

CHILD = r"""
import os, sys, time
start = time.clock_gettime(time.CLOCK_MONOTONIC)
with open(sys.argv[1], "a") as f:
    f.write("%d %.6f\n" % (os.getpid(), start))

def busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass

def heavy_work():
    busy(0.003)

def light_work():
    busy(0.001)

end = time.perf_counter() + float(sys.argv[2])
while time.perf_counter() < end:
    heavy_work()
    light_work()
"""


def parent_wait():
    while not os.path.exists(GO_FILE):
        time.sleep(0.01)


FORK = len(sys.argv) > 3 and sys.argv[3] == "fork"
ready(children=1 if FORK else 2)
parent_wait()
log = GO_FILE + ".children"
if FORK:
    pid = os.fork()
    if pid == 0:
        sys.argv = ["-c", log, str(SECONDS)]
        try:
            exec(CHILD, {"__name__": "__main__"})
        finally:
            os._exit(0)
    sys.exit(0 if os.waitpid(pid, 0)[1] == 0 else 1)
direct = subprocess.Popen([sys.executable, "-c", CHILD, log, str(SECONDS)])
# "; exit" keeps the shell alive, so it forks the interpreter instead of exec'ing it.
shell = subprocess.Popen(["/bin/sh", "-c", '"$0" -c "$1" "$2" "$3"; exit $?',
                          sys.executable, CHILD, log, str(SECONDS)])
sys.exit(direct.wait() or shell.wait())
