"""A known 3-deep call chain, spinning in the leaf forever.

<module> -> outer() -> middle() -> Spinner.spin()   (spin is a method, so its
qualname "Spinner.spin" differs from its name "spin").
READY json: {"frames": [leaf first: {"name", "qualname", "line"}], "file": path}
"""
import sys

from _ready import ready


def spin_line():
    with open(__file__, encoding="utf-8") as source:
        return next(i for i, text in enumerate(source, 1) if text.rstrip().endswith("# spin-here"))


class Spinner:
    def spin(self):
        me = sys._getframe()
        frames = []
        f = me
        while f is not None:
            code = f.f_code
            qualname = getattr(code, "co_qualname", None) or {
                "spin": "Spinner.spin"}.get(code.co_name, code.co_name)
            frames.append({"name": code.co_name, "qualname": qualname, "line": f.f_lineno})
            f = f.f_back
        frames[0]["line"] = spin_line()
        ready(frames=frames, file=__file__)
        n = 0
        while True: n += 1  # noqa: E701 (one line: the leaf line is fixed)  # spin-here


def middle():
    Spinner().spin()


def outer():
    middle()


outer()
