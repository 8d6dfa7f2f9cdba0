"""A short multi-threaded workload for the .bin interop tests: three workers with
different stacks (recursion, JSON, sleep) and a computing main thread; exits by itself
after about 1.5 seconds."""
import json
import threading
import time

DEADLINE = time.monotonic() + 1.5


def recurse(n):
    if n == 0:
        x = 0
        for i in range(2000):
            x += i
        return x
    return recurse(n - 1)


def recurser():
    while time.monotonic() < DEADLINE:
        recurse(12)


def jsoner():
    doc = {"k%d" % i: [i, str(i), {"x": i}] for i in range(200)}
    while time.monotonic() < DEADLINE:
        json.loads(json.dumps(doc))


def sleeper():
    while time.monotonic() < DEADLINE:
        time.sleep(0.05)


def main():
    threads = [threading.Thread(target=f, name=f.__name__) for f in (recurser, jsoner, sleeper)]
    for t in threads:
        t.start()
    total = 0
    while time.monotonic() < DEADLINE:
        total += sum(i * i for i in range(1000))
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
