"""Non-ASCII function and file names.

Usage: unicode_names.py TMPDIR. Writes TMPDIR/módulo_ñ_東京.py defining
función_π_λ() and runs it; it spins there.
READY json: {"function": name, "file": path of the non-ASCII file}
"""
import importlib.util
import os
import sys

from _ready import ready

SOURCE = '''\
def función_π_λ(ready):
    ready(function="función_π_λ", file=__file__)
    while True: pass  # noqa: E701
'''

path = os.path.join(sys.argv[1], "módulo_ñ_東京.py")
with open(path, "w", encoding="utf-8") as f:
    f.write(SOURCE)
spec = importlib.util.spec_from_file_location("modulo_n", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
getattr(module, "función_π_λ")(ready)
