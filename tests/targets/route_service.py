"""A threaded HTTP service on the standard library (http.server, a thread per request)
whose handler sets the context variable `route` and spends a different, self-timed amount
of CPU per route. A client thread in the same process sends real requests, one at a time.

argv: SECONDS GATE. The handler's frame holds the request too (self.path, for
--label-from path=do_GET:self.path). Serves at once and prints READY; once the file GATE
exists, the client sends requests for SECONDS, then the script prints "ROUTES <json>" (each route's
seconds between its handler's set() and reset() of the route) and exits.

The span is timed by the wall clock: one request runs at a time and its handler never
blocks, so that is the time it ran or waited only for a core, which is what "on CPU" counts
(a preempted thread is on a CPU, as in /proc). Timed by the thread's CPU clock, a loaded
machine moved 2-3 points between the routes: the time each waited preempted differs.

READY json: {"port": N}
"""
import contextvars
import http.client
import http.server
import json
import os
import sys
import threading
import time

from _ready import ready
from _spin import loops_per_ms, spin

route = contextvars.ContextVar("route")
GATE = sys.argv[-1]


# Loop counts for a route's work (about 4, 12 and 24 ms), long beside what a request
# costs besides (a thread, a parse, a response).
per_ms = loops_per_ms()
COST = {"/fast": 4 * per_ms, "/medium": 12 * per_ms, "/slow": 24 * per_ms}
spent = {path: 0.0 for path in COST}
spent_lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        # As a framework does: the route is set for the request and reset after it, and
        # the handler times exactly that span.
        start = time.perf_counter()
        token = route.set(self.path)
        spin(COST[self.path])
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
        route.reset(token)
        with spent_lock:
            spent[self.path] += time.perf_counter() - start

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
ready(port=server.server_address[1])
while not os.path.exists(GATE):
    time.sleep(0.005)
deadline = time.perf_counter() + float(sys.argv[1])
while time.perf_counter() < deadline:
    for path in COST:
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1])
        connection.request("GET", path)
        connection.getresponse().read()
        connection.close()
server.shutdown()
print("ROUTES " + json.dumps(spent), flush=True)
