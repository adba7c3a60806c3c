"""The Tensor's operators, dtype casts and array-like protocol, declared as methods.

Everything here is a method only (``x + y``, ``x.float()``, ``x.T``); the torch-level
functions they call are declared where they are defined.
"""

import jax
import numpy as np

from .. import _dtype
from .. import _tensor
from .._printing import format_tensor
from .._tensor import Tensor
from . import creation as C
from . import math as M
from . import shape as S
from .inplace import inplace_of
from .surface import declare


def tensor_repr(t):
    """PyTorch's repr of a tensor: values, then dtype and autograd suffixes."""
    arr = t._data
    values = np.asarray(arr.astype(np.float32) if arr.dtype.name == "bfloat16" else arr)
    try:
        fn = t.grad_fn
        name = None if fn is None else type(fn).__name__
    except RuntimeError:
        # as PyTorch: a view whose history can't be rebuilt (made in no_grad mode, then written)
        name = "Invalid"
    if name is not None:
        suffixes = (f"grad_fn=<{name}>",)
    elif t.requires_grad:
        suffixes = ("requires_grad=True",)
    else:
        suffixes = ()
    body = format_tensor(values, dtype_name=t.dtype.name, default_float_name=_dtype.get_default_dtype().name,
                         suffixes=suffixes)
    if t._is_param:
        return "Parameter containing:\n" + body
    return body


_tensor.REPR = tensor_repr
_tensor.LEGACY_CONSTRUCTOR = C.legacy_constructor


_OPERANDS = (Tensor, int, float, complex, np.number, np.bool_, np.ndarray, jax.Array)


def _operator(fn, name):
    """``fn`` as the binary operator method ``name``: an operand of another type gives
    NotImplemented, so Python raises its own TypeError (``unsupported operand type(s) for +:
    'Tensor' and 'str'``), as it does for PyTorch."""
    def operator(self, other):
        if isinstance(other, _OPERANDS):
            return fn(self, other)
        return NotImplemented
    operator.__name__ = operator.__qualname__ = name
    return operator


def _reflected(fn):
    def reflected(self, other):
        return fn(other, self)
    return reflected


def _rmatmul(self, other):
    return M.matmul(M.as_operand(other), self)


def _invert(self):
    return M.logical_not(self) if self.dtype is _dtype.bool_ else M.bitwise_not(self)


def _pos(self):
    return self


_BINARY = {
    "add": M.add, "sub": M.sub, "mul": M.mul, "truediv": M.div, "floordiv": M.floor_divide,
    "mod": M.remainder, "pow": M.pow, "matmul": M.matmul,
}
for _name, _fn in _BINARY.items():
    declare(method=(f"__{_name}__",))(_operator(_fn, f"__{_name}__"))
    declare(method=(f"__r{_name}__",))(_operator(_rmatmul if _name == "matmul" else _reflected(_fn), f"__r{_name}__"))
for _name, _fn in {"and": M.bitwise_and, "or": M.bitwise_or, "xor": M.bitwise_xor}.items():
    declare(method=(f"__{_name}__", f"__r{_name}__"))(_fn)
for _name, _fn in {"eq": M.eq, "ne": M.ne, "lt": M.lt, "le": M.le, "gt": M.gt, "ge": M.ge, "neg": M.neg,
                   "abs": M.abs}.items():
    declare(method=(f"__{_name}__",))(_fn)
declare(method=("__pos__",))(_pos)
declare(method=("__invert__",))(_invert)
declare(method=("__getitem__",))(S.getitem)
declare(method=("__setitem__",))(S.setitem)

# augmented assignment is the in-place twin (``x += y`` is ``x.add_(y)``)
for _name, _fn in {"add": M.add, "sub": M.sub, "mul": M.mul, "truediv": M.div, "floordiv": M.floor_divide,
                   "mod": M.remainder, "pow": M.pow, "and": M.bitwise_and, "or": M.bitwise_or,
                   "xor": M.bitwise_xor}.items():
    declare(method=(f"__i{_name}__",))(inplace_of(_fn, f"__i{_name}__"))


def _cast(dtype):
    def cast(self, memory_format=None):
        return S.to(self, dtype)
    cast.__name__ = cast.__qualname__ = dtype.name
    return cast


for _name, _d in {"float": _dtype.float32, "double": _dtype.float64, "half": _dtype.float16,
                  "bfloat16": _dtype.bfloat16, "long": _dtype.int64, "int": _dtype.int32,
                  "short": _dtype.int16, "char": _dtype.int8, "byte": _dtype.uint8, "bool": _dtype.bool_,
                  "cfloat": _dtype.complex64, "cdouble": _dtype.complex128}.items():
    declare(method=(_name,))(_cast(_d))


@declare(method=("cpu",))
def cpu(self, memory_format=None):
    return S.to(self, "cpu")


@declare(method=("cuda",))
def cuda(self, device=None, non_blocking=False, memory_format=None):
    return S.to(self, "cuda" if device is None else device)


Tensor.T = property(S.matrix_T)
Tensor.mT = property(lambda self: S.transpose(self, -2, -1))
