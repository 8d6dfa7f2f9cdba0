"""A service traced the way OpenTelemetry's SDK traces it, built with the same structure,
since OpenTelemetry is not packaged in Debian (the structure read, and the versions it was
checked against, are in docs/labels.md):

- the runtime context is a ContextVar named "current_context" holding a dict subclass
  (opentelemetry/context/contextvars_context.py, context/context.py);
- the current span sits in it under "current-span-" and a UUID (context/__init__.py
  create_key, trace/propagation/__init__.py _SPAN_KEY);
- a span keeps its name in `_name` and its SpanContext in `_context` (sdk/trace ReadableSpan);
  the SpanContext is a tuple subclass (trace_id, span_id, is_remote, trace_flags,
  trace_state, is_valid) whose fields are properties (trace/span.py).

Two worker threads serve requests, taking turns: each is a root span "GET <route>" with a
nested span "db.query" inside it, and spends a known number of loop iterations in each, in
`spin`, which runs only inside a span.

Each span is timed by the wall clock, for what a sampler's "on CPU" counts: one worker runs
at a time and never blocks inside a span, so that is the time it ran or waited only for a
core (a preempted thread is on a CPU, as in /proc). Two workers at once on a GIL would each
wait for the other's GIL in their spans, and timed by their CPU clocks instead, a loaded
machine moved 2-5 points between the spans: the time each waited preempted differs.

argv: SECONDS GATE. Prints READY, waits for the file GATE, serves for SECONDS, then writes
spans.json beside GATE ({span_id hex: [trace_id hex, name]}), prints "SPANS <json>":
{"cpu": {span name: seconds while it was the current span}, "count": spans} and exits.
"""
import contextvars
import json
import os
import random
import sys
import threading
import time
import uuid

from _ready import ready
from _spin import loops_per_ms, spin

GATE = sys.argv[-1]


class Context(dict):
    """opentelemetry.context.context.Context: an immutable dict."""

    def __setitem__(self, key, value):
        raise ValueError


_current_context = contextvars.ContextVar("current_context", default=Context())
_SPAN_KEY = "current-span-" + str(uuid.uuid4())


class SpanContext(tuple):
    def __new__(cls, trace_id, span_id, is_remote=False, trace_flags=1, trace_state=None):
        return tuple.__new__(cls, (trace_id, span_id, is_remote, trace_flags, trace_state, True))

    @property
    def trace_id(self):
        return self[0]

    @property
    def span_id(self):
        return self[1]


class Span:
    """The attributes the SDK's Span sets in __init__ (ReadableSpan's, then Span's), `_name`
    and `_context` among them."""

    def __init__(self, name, context, parent=None):
        self._name = name
        self._context = context
        self._kind = 0
        self._parent = parent
        self._start_time = time.time_ns()
        self._end_time = None
        self._attributes = {"http.route": name}
        self._events = []
        self._links = []
        self._status = None
        self._instrumentation_info = None
        self._instrumentation_scope = None
        self._resource = None
        self._sampler = None
        self._trace_config = None
        self._record_exception = True
        self._set_status_on_exception = True
        self._span_processor = None
        self._limits = None
        self._lock = threading.Lock()

    @property
    def name(self):
        return self._name

    def get_span_context(self):
        return self._context


spans = {}  # span_id hex -> [trace_id hex, name]
cpu = {}  # span name -> seconds while current
lock = threading.Lock()
per_thread = threading.local()  # each thread's own spans and cpu, merged into them at its end


open_spans = threading.local()  # the spans open on this thread, innermost last


class use_span:
    """trace.use_span / start_as_current_span: attach a context holding the span, detach
    after. Counts the time while it was the current span: its total less its nested spans'
    totals."""

    def __init__(self, name, trace_id=None):
        parent = _current_context.get().get(_SPAN_KEY)
        trace_id = trace_id if parent is None else parent._context[0]
        self.span = Span(name, SpanContext(trace_id, random.getrandbits(64) | 1), parent)
        self.name = name
        self.nested = 0.0

    def __enter__(self):
        ctx = Context(_current_context.get())
        dict.__setitem__(ctx, _SPAN_KEY, self.span)
        self.token = _current_context.set(ctx)
        self.outer = getattr(open_spans, "stack", [])
        open_spans.stack = self.outer + [self]
        self.start = time.perf_counter()
        return self.span

    def __exit__(self, *exc):
        total = time.perf_counter() - self.start
        _current_context.reset(self.token)
        open_spans.stack = self.outer
        if self.outer:
            self.outer[-1].nested += total
        # Kept per thread, merged at the end: a lock here is contended on a free-threaded
        # build, and its wait is nobody's span time.
        mine = per_thread.__dict__.setdefault("spans", {})
        mine["%016x" % self.span._context[1]] = ["%032x" % self.span._context[0], self.name]
        cpu_mine = per_thread.__dict__.setdefault("cpu", {})
        cpu_mine[self.name] = cpu_mine.get(self.name, 0.0) + total - self.nested
        return False


per_ms = loops_per_ms()
ROUTES = {"/fast": 3, "/slow": 12}  # ms of the request's own span
QUERY_MS = 6  # ms of its nested db.query span


def handle(route):
    # The trace id sometimes needs all 128 bits, sometimes fewer than 64.
    trace_id = random.getrandbits(128) | (1 << 127) if random.random() < 0.5 else random.getrandbits(60) | 1
    with use_span("GET " + route, trace_id):
        spin(ROUTES[route] * per_ms // 2)
        with use_span("db.query"):
            spin(QUERY_MS * per_ms)
        spin(ROUTES[route] * per_ms // 2)


turn = threading.Condition()
whose_turn = [0]


def worker(index, deadline):
    more = True
    while more:
        with turn:
            turn.wait_for(lambda: whose_turn[0] == index)
            more = time.perf_counter() < deadline
            if more:
                for route in ROUTES:
                    handle(route)
            whose_turn[0] = 1 - index
            turn.notify_all()
    with lock:
        spans.update(getattr(per_thread, "spans", {}))
        for name, seconds in getattr(per_thread, "cpu", {}).items():
            cpu[name] = cpu.get(name, 0.0) + seconds


ready(span_key=_SPAN_KEY)
while not os.path.exists(GATE):
    time.sleep(0.005)
deadline = time.perf_counter() + float(sys.argv[1])
threads = [threading.Thread(target=worker, args=(i, deadline)) for i in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
# The spans go to a file beside the gate: thousands of them would fill the pipe of a
# test that reads the output only once the profiler is done.
with open(os.path.join(os.path.dirname(GATE), "spans.json"), "w") as out:
    json.dump(spans, out)
print("SPANS " + json.dumps({"cpu": cpu, "count": len(spans)}), flush=True)
