"""Worker threads that each take "requests" in a loop: for each one, the context
variables `route` and `tenant` are set (and the local `request` holds them as attributes,
for labels read from the worker's frame), an OpenTelemetry-shaped span is made current
(for --label-from otel; the structure of tests/targets/otel_service.py), the request burns
CPU for PERIOD_MS, and they are reset. argv: THREADS PERIOD_MS (0: a new request at every step of the loop, about every
50 µs, so the context changes between any two samples).

READY json: {}
"""
import contextvars
import random
import sys
import threading
import time
import uuid

from _ready import ready

route = contextvars.ContextVar("route")
tenant = contextvars.ContextVar("tenant")
ROUTES = ["/checkout", "/cart", "/search", "/login"]


otel_context = contextvars.ContextVar("current_context", default={})
SPAN_KEY = "current-span-" + str(uuid.uuid4())


class Context(dict):
    pass


class SpanContext(tuple):
    pass


class Span:
    def __init__(self, name):
        self._name = name
        self._context = SpanContext((random.getrandbits(128), random.getrandbits(64) | 1, False))
        self._attributes = {}
        self._events = []


class Request:
    def __init__(self, path, tenant):
        self.path = path
        self.tenant = tenant


def busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def worker(n, period):
    i = 0
    while True:
        request = Request(ROUTES[i % len(ROUTES)], "tenant-%d" % (i % 7))
        r = route.set(request.path)
        t = tenant.set(request.tenant)
        ctx = Context()
        dict.__setitem__(ctx, SPAN_KEY, Span("GET " + request.path))
        o = otel_context.set(ctx)
        busy(period)
        otel_context.reset(o)
        tenant.reset(t)
        route.reset(r)
        i += 1


threads = int(sys.argv[1])
period = float(sys.argv[2]) / 1000
for n in range(threads):
    threading.Thread(target=worker, args=(n, period), daemon=True).start()
ready()
while True:
    time.sleep(1)
