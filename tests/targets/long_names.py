"""A function with a very long name, in a "file" with a very long name, spinning.

Usage: long_names.py [length] (default 70000 characters each).
READY json: {"name": function name, "file": its file name}
"""
import sys

from _ready import ready

LENGTH = int(sys.argv[1]) if len(sys.argv) > 1 else 70000
NAME = "long_" + "n" * (LENGTH - 5)
FILE = "/no/such/dir/" + "f" * (LENGTH - 16) + ".py"
SOURCE = "def %s():\n    ready(name=NAME, file=FILE)\n    while True: pass  # noqa: E701\n" % NAME

namespace = {"ready": ready, "NAME": NAME, "FILE": FILE}
exec(compile(SOURCE, FILE, "exec"), namespace)
namespace[NAME]()
