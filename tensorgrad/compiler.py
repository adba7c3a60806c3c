"""``torch.compiler`` for ``tensorgrad.compile``: whether a step is being traced, functions kept
out of compiled steps, and forgetting every compiled program.

>>> import tensorgrad as torch
>>> seen = []
>>> step = torch.compile(lambda x: seen.append(torch.compiler.is_compiling()) or (x * 2).sum())
>>> [step(torch.ones(3)).item() for _ in range(3)]
[6.0, 6.0, 6.0]
>>> seen        # the eager first call, then the trace of the one program
[False, True]
"""

import functools

from ._compile.function import UnsupportedStep, reset_all
from ._compile.recorder import _ACTIVE

__all__ = ["allow_in_graph", "disable", "is_compiling", "is_dynamo_compiling", "reset"]


def is_compiling():
    """True while ``tensorgrad.compile`` traces a step (the code runs on tracers, once per
    program), False in eager calls, a compiled step's eager first call included."""
    return any(recorder.tracing for recorder in _ACTIVE.recorders)


is_dynamo_compiling = is_compiling


def disable(fn=None, recursive=True, *, reason=None):
    """Keep ``fn`` out of compiled steps: a step that calls it runs eagerly, with a warning, as
    PyTorch breaks its graph around ``fn`` (``fullgraph=True`` raises instead). Called outside
    a compiled step, ``fn`` runs as it is. tensorgrad runs the whole step eagerly whether or not
    ``recursive``: the values are the same, only the step is not one program."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)

    @functools.wraps(fn)
    def outside_compiled_steps(*args, **kwargs):
        if is_compiling():
            why = f" ({reason})" if reason else ""
            raise UnsupportedStep(f"{getattr(fn, '__qualname__', fn)} is marked torch.compiler.disable{why}")
        return fn(*args, **kwargs)
    return outside_compiled_steps


def allow_in_graph(fn):
    """Returns ``fn``: tensorgrad traces every function a compiled step calls, this one too."""
    return fn


def reset():
    """Forget the programs of every ``tensorgrad.compile`` function and module: their next calls
    start again from an eager first call."""
    reset_all()
