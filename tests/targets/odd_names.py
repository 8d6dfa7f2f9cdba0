"""A command line and a script path that are not valid UTF-8, with control characters.

Usage: odd_names.py TMPDIR. Copies itself to TMPDIR/odd_<0xff 0xfe>_<newline>name.py and
execs (same pid) the interpreter on that copy with the arguments
    b"\\xff\\xfe"  b"two\\nlines"  b"a\\ttab"
The copy spins in spin_odd().
READY json (after the exec): {"function": "spin_odd", "line": the spinning line,
"file_hex": the copy's path bytes in hex, "argv_hex": the raw /proc cmdline in hex}
"""
import os
import sys

ARGS = [b"\xff\xfe", b"two\nlines", b"a\ttab"]


def spin_line():
    with open(__file__, "rb") as source:
        return next(i for i, text in enumerate(source, 1) if text.rstrip().endswith(b"# spin-here"))


def spin_odd():
    from _ready import ready

    with open("/proc/self/cmdline", "rb") as f:
        cmdline = f.read()
    ready(function="spin_odd", line=spin_line(),
          file_hex=os.fsencode(__file__).hex(), argv_hex=cmdline.hex())
    while True: pass  # noqa: E701 (one line: the leaf line is fixed)  # spin-here


if [os.fsencode(a) for a in sys.argv[1:]] == ARGS:
    spin_odd()
else:
    here = os.path.dirname(os.path.abspath(__file__))
    copy = os.path.join(os.fsencode(sys.argv[1]), b"odd_\xff\xfe_\nname.py")
    with open(__file__, "rb") as src, open(copy, "wb") as dst:
        dst.write(src.read())
    env = dict(os.environb)
    env[b"PYTHONPATH"] = os.fsencode(here)  # for _ready, from the copy's directory
    exe = os.fsencode(sys.executable)
    os.execve(exe, [exe, b"-u", copy] + ARGS, env)
