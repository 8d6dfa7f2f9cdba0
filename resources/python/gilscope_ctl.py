"""Marks a program's own phases in its gilscope recording, with nothing but the standard
library. Copy this file next to your program, then:

    from gilscope_ctl import gilscope_phase, gilscope_mark

    with gilscope_phase("checkout"):      # marks "checkout start" and "checkout end"
        checkout(cart)
    gilscope_mark("cache warm")           # one instant

The marks reach the recording's control socket: the one `gilscope run --control unix:PATH`
tells the program in GILSCOPE_CONTROL, or the path given. Without a recording (no socket,
none listening) every call does nothing, so the calls can stay in production code.
"""
import contextlib
import os
import socket

__all__ = ["gilscope_mark", "gilscope_phase", "gilscope_command"]


def gilscope_command(command, path=None, timeout=1.0):
    """Sends one command line; returns the reply line, or None without a recording."""
    path = path or os.environ.get("GILSCOPE_CONTROL", "")
    if path.startswith("unix:"):
        path = path[len("unix:"):]
    if not path:
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(path)
            s.sendall(command.encode("utf-8", "replace") + b"\n")
            reply = b""
            while not reply.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                reply += chunk
            return reply.decode("utf-8", "replace").rstrip("\n")
    except OSError:
        return None


def gilscope_mark(text, path=None):
    """A named instant on the recording's timeline and in its Firefox Profiler export."""
    return gilscope_command("mark " + " ".join(str(text).split()), path)


@contextlib.contextmanager
def gilscope_phase(name, path=None):
    """Marks NAME start and NAME end around the block (the end even when it raises)."""
    gilscope_mark(name + " start", path)
    try:
        yield
    finally:
        gilscope_mark(name + " end", path)
