"""``tensorgrad.compile``: a function becomes a ``CompiledFunction`` (``tensorgrad/_compile.py``),
an ``nn.Module`` PyTorch's ``OptimizedModule``.

This sits above both ``nn`` and ``_compile``, so that the compiler knows no modules.
"""

import functools

from ._compile import CompiledFunction
from .nn.modules.module import Module

__all__ = ["compile", "OptimizedModule"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """Compile ``model`` (a function or an ``nn.Module``) into cached XLA programs.

    The keyword arguments are PyTorch's; ``backend``, ``mode`` and ``options`` are accepted and
    ignored (XLA compiles everything), ``fullgraph=True`` raises instead of running eagerly when
    the step cannot be traced, and ``disable=True`` returns ``model`` unchanged. Every program is
    specialized to its shapes: a new shape traces a new one at once. With ``dynamic=None`` (the
    default) an argument that has had four shapes warns, once; ``dynamic=True`` runs the calls
    with further new shapes eagerly instead of compiling them; ``dynamic=False`` never warns.
    Used bare, with arguments only, it is a decorator.
    """
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model, fullgraph, dynamic)
    if not callable(model):
        raise RuntimeError("compile() expected a callable or an nn.Module")
    return CompiledFunction(model, fullgraph=fullgraph, dynamic=dynamic)


class OptimizedModule(Module):
    """``compile(module)``: PyTorch's ``OptimizedModule``, whose forward is the compiled module
    call; its parameters and state dict are the module's under ``_orig_mod``."""

    def __init__(self, mod, fullgraph, dynamic=None):
        super().__init__()
        self._orig_mod = mod
        state = lambda: [*mod.parameters(), *mod.buffers()]      # noqa: E731
        self.__dict__["_compiled"] = CompiledFunction(mod.__call__, fullgraph=fullgraph, dynamic=dynamic, state=state)

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def explain(self):
        return self._compiled.explain()

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)
