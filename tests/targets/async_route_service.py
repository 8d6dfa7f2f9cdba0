"""An asyncio server (asyncio.start_server) whose handler sets the context variable `route`
for each request and spends a different, self-timed amount of CPU per route, in slices with
an `await` between them, so that many requests interleave on the one thread. Client tasks
in the same event loop send real requests over TCP, several at once.

Each task runs in a copy of the context it was made in, and the thread's current context is
the running task's: a sample inside a handler's slice carries its request's route.

argv: SECONDS GATE. Serves at once and prints READY; once the file GATE exists, the clients
send requests for SECONDS, then the script prints "ROUTES <json>" (each route's seconds
spent in its handlers' slices) and exits.

Slices are timed by the wall clock, for what "on CPU" counts: the thread runs or waits only
for a core during a slice (a preempted thread is on a CPU, as in /proc). Timed by the
thread's CPU clock, a loaded machine moved 2-4 points between the routes.

READY json: {"port": N}
"""
import asyncio
import contextvars
import json
import os
import sys
import time

from _ready import ready
from _spin import loops_per_ms, spin

route = contextvars.ContextVar("route")
GATE = sys.argv[-1]
CLIENTS = 4  # requests in flight at once


per_ms = loops_per_ms()
# Total CPU per route in slices of about 1 ms: /slow interleaves with the others 24 times.
SLICES = {"/fast": 4, "/medium": 12, "/slow": 24}
spent = {path: 0.0 for path in SLICES}


async def handle(reader, writer):
    path = (await reader.readline()).decode().split()[1]
    route.set(path)  # this connection's task has a context of its own
    for _ in range(SLICES[path]):
        start = time.perf_counter()
        spin(per_ms)
        spent[path] += time.perf_counter() - start
        await asyncio.sleep(0)  # let the other requests run
    writer.write(b"ok\n")
    await writer.drain()
    writer.close()


async def client(port, deadline, index):
    paths = list(SLICES)
    i = index
    while time.perf_counter() < deadline:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(("GET %s\n" % paths[i % len(paths)]).encode())
        await writer.drain()
        await reader.readline()
        writer.close()
        i += 1


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    ready(port=port)
    while not os.path.exists(GATE):
        await asyncio.sleep(0.005)
    deadline = time.perf_counter() + float(sys.argv[1])
    await asyncio.gather(*(client(port, deadline, i) for i in range(CLIENTS)))
    server.close()
    print("ROUTES " + json.dumps(spent), flush=True)


asyncio.run(main())
