#include "core/launch/gated_child.h"

namespace gilscope {

// Runs inside the target during site's start-up (see gated_child.h). Written for
// every Python from 3.8 on; it must never break the target, so failures fall through.
const char* startupHookSource() {
    return R"PY(# Written by gilscope (`gilscope run`, Launch script). Imported by site before any user code: it tells
# gilscope which process to read, waits until the recording has started, then steps
# aside so the target runs exactly as it would have.
def _gilscope_gate():
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    ready = os.environ.pop("GILSCOPE_READY_FD", None)
    go = os.environ.pop("GILSCOPE_GO_FD", None)
    original = os.environ.pop("GILSCOPE_ORIG_PYTHONPATH", None)
    if original is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = original
    sys.path[:] = [p for p in sys.path if not p or os.path.abspath(p) != here]
    if ready is not None and go is not None:
        try:
            os.write(int(ready), ("%d\n" % os.getpid()).encode())
            os.read(int(go), 1)
        except (OSError, ValueError):
            pass
        for fd in (ready, go):
            try:
                os.close(int(fd))
            except (OSError, ValueError):
                pass
    # Run the sitecustomize this one shadows, if there is one. The finders already
    # loaded are used, so the hook imports nothing into the target.
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        spec = find_spec("sitecustomize", None) if find_spec else None
        if spec is not None and spec.loader is not None:
            module = spec.loader.create_module(spec) or type(sys)(spec.name)
            module.__spec__, module.__loader__ = spec, spec.loader
            if spec.origin:
                module.__file__ = spec.origin
            sys.modules["sitecustomize"] = module
            spec.loader.exec_module(module)
            break

_gilscope_gate()
del _gilscope_gate
)PY";
}

} // namespace gilscope
