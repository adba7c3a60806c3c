"""``tensorgrad.compile``: a function becomes a ``CompiledFunction`` (``tensorgrad/_compile.py``),
an ``nn.Module`` PyTorch's ``OptimizedModule``.

This sits above both ``nn`` and ``_compile``, so that the compiler knows no modules.
"""

import functools

from . import _compile_options
from ._compile import CompiledFunction
from .nn.modules.module import COMPILE_CALL, Module

__all__ = ["compile", "OptimizedModule"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, disable=False):
    """Compile ``model`` (a function or an ``nn.Module``) into cached XLA programs.

    The keyword arguments are PyTorch's. ``backend``, ``mode`` and ``options`` are checked as
    PyTorch checks them (an unknown backend, mode or inductor option, or an option value of the
    wrong type, raises its error) and then change nothing: XLA compiles every program, and
    inductor's options tune inductor. A backend callable, which PyTorch hands its FX graph,
    raises ``NotImplementedError``: there is no FX graph here. ``fullgraph=True`` raises instead
    of running eagerly when the step cannot be traced, and ``disable=True`` returns ``model``
    unchanged. Every program is specialized to its shapes: a new shape traces a new one at once.
    With ``dynamic=None`` (the default) an argument that has had four shapes warns, once;
    ``dynamic=True`` runs the calls with further new shapes eagerly instead of compiling them;
    ``dynamic=False`` never warns. Used bare, with arguments only, it is a decorator.
    """
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    _check_backend(backend, mode, options)
    if disable:
        return model
    _check_dynamic(dynamic)
    if isinstance(model, Module):
        return OptimizedModule(model, fullgraph, dynamic)
    if not callable(model):
        raise RuntimeError("compile() expected a callable or an nn.Module")
    return CompiledFunction(model, fullgraph=fullgraph, dynamic=dynamic)


def _compiled_call(module, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, disable=False):
    """``module.compile(...)``'s compiled call (None where ``disable``): its parameters and buffers
    are the state, as ``compile(module)``'s."""
    _check_backend(backend, mode, options)
    if disable:
        return None
    _check_dynamic(dynamic)
    state = lambda: [*module.parameters(), *module.buffers()]      # noqa: E731
    return CompiledFunction(module._call_impl, fullgraph=fullgraph, dynamic=dynamic, state=state)


COMPILE_CALL[0] = _compiled_call


def _check_dynamic(dynamic):
    if dynamic is not None and not isinstance(dynamic, bool):
        raise AssertionError(f"Expected enable to be a bool, got {type(dynamic)}")


def _check_backend(backend, mode, options):
    """PyTorch's checks of ``backend``, ``mode`` and ``options``, with its messages."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if backend is None:
        backend = "inductor"
    if callable(backend):
        raise NotImplementedError(
            "tensorgrad.compile: a backend callable is not supported: PyTorch passes it a torch.fx.GraphModule, "
            "and tensorgrad traces with JAX and compiles with XLA, so there is no FX graph to pass")
    if not isinstance(backend, str) or backend not in _compile_options.BACKENDS:
        raise RuntimeError(f"Invalid backend: {backend!r}, see `torch._dynamo.list_backends()` for available backends.")
    if "TESTING_ONLY" in backend or "minifier" in backend:
        raise NotImplementedError(f"tensorgrad.compile: backend {backend!r} is one of PyTorch's test backends, "
                                  "which inject failures into its own compiler")
    if backend != "inductor":
        return          # PyTorch's other backends take no mode or options
    if mode and mode != "default" and mode not in _compile_options.MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_compile_options.MODES)}")
    if isinstance(options, dict):
        options = {k: v for k, v in options.items() if k not in ("guard_filter_fn", "use_aoti")}
    if not options:
        return
    for key, value in options.items():
        name = key.replace("-", "_")
        if name not in _compile_options.OPTIONS:
            raise RuntimeError(f"Unexpected optimization option {key}, known options are "
                               f"{list(_compile_options.OPTIONS)}")
        kind = _compile_options.OPTIONS[name]
        if kind is not None and not isinstance(value, _BUILTIN_TYPES[kind]):
            raise RuntimeError(f"Unexpected type of attr {key}, got {type(value).__name__} should be {kind}")


_BUILTIN_TYPES = {t.__name__: t for t in (bool, int, float, str, tuple, list, dict, set, type(None))}


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
