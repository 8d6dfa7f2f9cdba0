"""A recursive AST visitor under a decorator, as a linter or a compiler pass runs.

Walks the AST of a large standard-library file with ast.NodeVisitor (visit and
generic_visit call each other down the tree: a recursive tower), each pass through a
functools.wraps decorator (`traced`), forever. READY json: {"file": the file walked}
"""
import ast
import functools
import typing

from _ready import ready

SOURCE = open(typing.__file__, encoding="utf-8").read()
TREE = ast.parse(SOURCE)


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


class Counter(ast.NodeVisitor):
    def __init__(self):
        self.names = 0

    def visit_Name(self, node):
        self.names += 1
        self.generic_visit(node)


@traced
def count_names(tree):
    c = Counter()
    c.visit(tree)
    return c.names


@traced
def count_calls(tree):
    return sum(isinstance(n, ast.Call) for n in ast.walk(tree))


ready(file=typing.__file__)
while True:
    count_names(TREE)
    count_calls(TREE)
