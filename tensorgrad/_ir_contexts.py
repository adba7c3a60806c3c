"""MLIR contexts kept across JAX's lowerings, a few dozen programs each.

JAX lowers every program it compiles (and every one it reads back from the compilation cache on
disk, whose key is the lowered module's hash) into a fresh MLIR context, and making one (loading
its dialects) costs about 3.4 ms on this project's 2-core machine: a small CNN's first two
training steps lower 17 programs, a tutorial script run with a warm cache 53 (0.18 s of its
0.7 s). So JAX's ``make_ir_context`` is wrapped to hand out, per thread, one context for
``REUSES`` lowerings before making the next. A context keeps the types and constants its modules
interned until it is dropped, so a thread's context is replaced after that many (what stays
alive is what its last ``REUSES`` modules held); modules built in it are otherwise independent,
and what is compiled is their serialized bytes, so no program changes.

Where JAX has moved the function, nothing is wrapped and every lowering makes its own context.
"""

import threading

__all__ = ["REUSES", "install"]

REUSES = 32
_LOCAL = threading.local()


def install():
    """Wrap JAX's ``make_ir_context`` (once); False where this JAX has none to wrap."""
    try:
        from jax._src.interpreters import mlir
        make = mlir.make_ir_context
    except (ImportError, AttributeError):
        return False
    if getattr(make, "reused", False):
        return True

    def reused_context():
        held = getattr(_LOCAL, "held", None)
        if held is None or held[1] >= REUSES:
            held = _LOCAL.held = [make(), 0]
        held[1] += 1
        return held[0]

    reused_context.reused = True
    reused_context.__wrapped__ = make
    mlir.make_ir_context = reused_context
    return True
