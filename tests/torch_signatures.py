"""What PyTorch's signatures say, read from the installed PyTorch (the oracle).

- ``takes_out(namespace, name)``: whether ``torch.<namespace>.<name>`` accepts ``out=``.
  Top-level functions are read from PyTorch's generated stubs (``torch/_C/_VariableFunctions.pyi``,
  one ``def`` per overload of the Python binding); ``linalg``/``special`` builtins, which have
  no stubs, are probed by calling them with a non-tensor ``out`` and reading the parser's error;
  Python-level functions by ``inspect.signature``.
- ``is_native(namespace, name)``: whether the function goes through PyTorch's C++ argument
  parser, which is what accepts NumPy's keyword names (``axis``, ``keepdims``, ...).
"""

import ast
import builtins
import functools
import inspect
import os

import torch

MODULES = {"torch": torch, "linalg": torch.linalg, "special": torch.special}


@functools.lru_cache(maxsize=None)
def _stub_overloads(filename="_VariableFunctions.pyi", cls=None):
    path = os.path.join(os.path.dirname(torch.__file__), "_C", filename)
    with open(path) as f:
        tree = ast.parse(f.read())
    body = tree.body
    if cls is not None:
        body = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == cls).body
    overloads = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            a = node.args
            overloads.setdefault(node.name, []).append([x.arg for x in a.posonlyargs + a.args + a.kwonlyargs])
    return overloads


def function(namespace, name):
    return getattr(MODULES[namespace], name, None)


def is_native(namespace, name):
    return type(function(namespace, name)).__name__ == "builtin_function_or_method"


def _probe_out(fn):
    """Call a builtin with 0..4 tensors and ``out=object()``: the parser names ``out`` when it has one."""
    for k in range(5):
        try:
            fn(*[torch.ones(3, 3) for _ in range(k)], out=builtins.object())
        except TypeError as e:
            message = str(e)
            if "unexpected keyword argument 'out'" in message:
                return False
            if "argument 'out'" in message:
                return True
            if "expected one of" in message:
                return "out" in message.split("expected one of", 1)[1]
        except Exception:  # noqa: BLE001 (wrong arity or values: try the next arity)
            pass
    return None


def takes_out(namespace, name):
    """True/False, or None where PyTorch's signature could not be read."""
    fn = function(namespace, name)
    if fn is None:
        return None
    if namespace == "torch" and name in _stub_overloads():
        return any("out" in params for params in _stub_overloads()[name])
    if not is_native(namespace, name):
        try:
            return "out" in inspect.signature(fn).parameters
        except (TypeError, ValueError):
            return None
    return _probe_out(fn)


def method_is_native(name):
    return type(getattr(torch.Tensor, name, None)).__name__ in ("method_descriptor", "builtin_function_or_method")
