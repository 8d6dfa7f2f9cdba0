"""One thread that waits for each reason in turn, timing itself (issue 36): the truth a
profiler's wait reasons are checked against.

worker_loop runs these phases in round-robin, each timed with time.perf_counter:
  phase_lock     blocks on a threading.Lock that hold_lock keeps for 6 ms   <lock wait>
  phase_recv     recv on a loopback TCP socket whose peer answers in 5 ms  <read TCP 127.0.0.1:PORT>
  phase_sleep    time.sleep(0.004)                                         <sleep>
  phase_select   select() on a pipe nobody writes, 4 ms                    <poll>
  phase_compute  arithmetic for 3 ms, on a CPU                             (no wait frame)
and wait_child waits all along for a child process that lives as long as its stdin pipe.

Runs argv[1] seconds (default 30) once argv[2] (a path, optional) exists, then prints
"PHASES <json>" (seconds per phase) and exits.

READY json: {"phases": [names], "port": server port, "child": child pid}
"""
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time

from _ready import ready

lock = threading.Lock()
want_lock = threading.Event()
lock_held = threading.Event()
stop = threading.Event()


def hold_lock():
    while not stop.is_set():
        if not want_lock.wait(0.05):
            continue
        want_lock.clear()
        with lock:
            lock_held.set()
            time.sleep(0.006)


def serve(listener):
    conn, _ = listener.accept()
    while True:
        data = conn.recv(16)
        if not data:
            return
        time.sleep(0.005)
        conn.sendall(b"pong")


def phase_lock(ctx):
    lock_held.clear()
    want_lock.set()
    lock_held.wait()
    with lock:
        pass


def phase_recv(ctx):
    ctx["client"].sendall(b"ping")
    ctx["client"].recv(16)


def phase_sleep(ctx):
    time.sleep(0.004)


def phase_select(ctx):
    select.select([ctx["pipe"]], [], [], 0.004)


def phase_compute(ctx):
    end = time.perf_counter() + 0.003
    x = 0
    while time.perf_counter() < end:
        for i in range(200):
            x = (x * 31 + i) % 1000003


PHASES = [phase_lock, phase_recv, phase_sleep, phase_select, phase_compute]


def worker_loop(ctx, seconds, spent):
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for f in PHASES:
            start = time.perf_counter()
            f(ctx)
            spent[f.__name__] += time.perf_counter() - start


def wait_child(child):
    child.wait()


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    threading.Thread(target=serve, args=(listener,), name="server", daemon=True).start()
    client = socket.create_connection(("127.0.0.1", port))
    pipe_r, pipe_w = os.pipe()
    threading.Thread(target=hold_lock, name="holder", daemon=True).start()
    # Lives until its stdin closes: when this process ends, so does the child.
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    threading.Thread(target=wait_child, args=(child,), name="child-waiter",
                     daemon=True).start()
    ready(phases=[f.__name__ for f in PHASES], port=port, child=child.pid)
    while len(sys.argv) > 2 and not os.path.exists(sys.argv[2]):
        time.sleep(0.005)
    spent = {f.__name__: 0.0 for f in PHASES}
    ctx = {"client": client, "pipe": pipe_r}
    worker = threading.Thread(target=worker_loop, args=(ctx, float(sys.argv[1]) if len(sys.argv) > 1 else 30.0, spent),
                              name="worker")
    worker.start()
    worker.join()
    print("PHASES " + json.dumps(spent), flush=True)
    stop.set()
    child.stdin.close()
    child.wait()
    client.close()
    os.close(pipe_w)


main()
