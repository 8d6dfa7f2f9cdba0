"""Spins until SIGUSR1, then replaces itself with `sleep` (execv): same pid, no Python.

READY json: {"sleep": path of the program it will exec}
"""
import os
import shutil
import signal

from _ready import ready

SLEEP = shutil.which("sleep") or "/bin/sleep"


def exec_sleep(signum, frame):
    os.execv(SLEEP, ["sleep", "600"])


signal.signal(signal.SIGUSR1, exec_sleep)
ready(sleep=SLEEP)
while True: pass  # noqa: E701
