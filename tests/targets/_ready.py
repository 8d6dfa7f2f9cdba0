"""Shared by the target scripts: the READY line the tests wait for.

Format: "READY <pid> <json>" on stdout, flushed. The json describes what the test
should expect (thread ids, frame names and line numbers), computed at run time so
editing a script never silently breaks a test.
"""
import json
import os
import sys


def ready(**info):
    sys.stdout.write("READY %d %s\n" % (os.getpid(), json.dumps(info, ensure_ascii=False)))
    sys.stdout.flush()


def caller_line(depth=1):
    """Line number currently executing in the frame `depth` levels above the caller."""
    return sys._getframe(depth + 1).f_lineno
