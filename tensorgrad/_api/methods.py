"""The Tensor's operators, dtype casts and array-like protocol, declared as methods.

Everything here is a method only (``x + y``, ``x.float()``, ``x.T``); the torch-level
functions they call are declared where they are defined.
"""

import jax
import numpy as np

from .. import _dtype
from .. import _tensor
from .._meta import is_meta
from .._printing import format_meta, format_tensor
from .._tensor import Tensor
from . import creation as C
from . import comparison as CMP
from . import elementwise as M
from . import shape as S
from .conversion import to
from .matmul import matmul
from .operands import as_operand
from .subscript import getitem, setitem
from .inplace import inplace_of
from .surface import declare


def tensor_repr(t):
    """PyTorch's repr of a tensor: values, then dtype and autograd suffixes."""
    arr = t._data
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
    default_float_name = _dtype.get_default_dtype().name
    if is_meta(arr):
        body = format_meta(arr.shape, dtype_name=t.dtype.name, default_float_name=default_float_name,
                           suffixes=suffixes)
    else:
        values = np.asarray(arr.astype(np.float32) if arr.dtype.name == "bfloat16" else arr)
        body = format_tensor(values, dtype_name=t.dtype.name, default_float_name=default_float_name,
                             suffixes=suffixes)
    if t._is_param:
        return "Parameter containing:\n" + body
    return body


_tensor.REPR = tensor_repr
_tensor.LEGACY_CONSTRUCTOR = C.legacy_constructor


_OPERANDS = (Tensor, int, float, complex, np.number, np.bool_, np.ndarray, jax.Array)
_FAST_OPERANDS = {Tensor, int, float}
_MISSING = object()


# the operators PyTorch writes in C: called unbound on a non-Tensor (``Tensor.__radd__(2, t)``)
# they raise the descriptor's TypeError; the ones it writes in Python give NotImplemented
_DESCRIPTORS = {"__add__", "__radd__", "__sub__", "__mul__", "__rmul__", "__truediv__", "__mod__", "__matmul__"}


def _operator(fn, name):
    """``fn`` as the binary operator method ``name``: an operand of another type gives
    NotImplemented, so Python raises its own TypeError (``unsupported operand type(s) for +:
    'Tensor' and 'str'``), as it does for PyTorch."""
    descriptor = name in _DESCRIPTORS
    reciprocal = name in ("__rtruediv__", "__rdiv__")

    def operator(self, other=_MISSING, *, x2=_MISSING):
        if x2 is not _MISSING:      # NumPy's name of ``other``, as PyTorch accepts it
            if other is not _MISSING:
                raise TypeError(f"{name}() got multiple values for argument 'other'")
            other = x2
        elif other is _MISSING:
            raise TypeError(f"{name}() missing 1 required positional argument: 'other'")
        if type(self) is Tensor and type(other) in _FAST_OPERANDS or (
                isinstance(other, _OPERANDS) and isinstance(self, Tensor)):
            return fn(self, other)
        if not isinstance(self, Tensor):
            if descriptor:
                raise TypeError(f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't apply to a "
                                f"'{type(self).__name__}' object")
            if reciprocal:  # PyTorch's Python-level ``self.reciprocal() * other``
                raise AttributeError(f"'{type(self).__name__}' object has no attribute 'reciprocal'")
        return NotImplemented
    operator.__name__ = operator.__qualname__ = name
    return operator


def _reflected(fn):
    def reflected(self, other):
        return fn(other, self)
    return reflected


def _rmatmul(self, other):
    return matmul(as_operand(other), self)


def _invert(self):
    if self.dtype.kind > _dtype.INT:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return CMP.logical_not(self) if self.dtype is _dtype.bool_ else CMP.bitwise_not(self)


def _pos(self):
    return self


_BINARY = {
    "add": M.add, "sub": M.sub, "mul": M.mul, "truediv": M.div, "floordiv": M.floor_divide,
    "mod": M.remainder, "pow": M.pow, "matmul": matmul,
}
# PyTorch's reflected operators: ``__radd__``/``__rmul__`` are ``self.add(other)``/``self.mul(other)``
# (the tensor's slot first), ``__rsub__`` is ``rsub``, ``__rtruediv__`` is ``self.reciprocal() * other``
_REFLECTED = {"add": M.add, "mul": M.mul, "sub": M.rsub_operator, "truediv": M.rtruediv_operator,
              "matmul": _rmatmul}
# (each operator takes NumPy's ``x2`` itself: no keyword-renaming wrapper around every ``a * b``)
for _name, _fn in _BINARY.items():
    declare(method=(f"__{_name}__",), numpy_names=False)(_operator(_fn, f"__{_name}__"))
    declare(method=(f"__r{_name}__",), numpy_names=False)(
        _operator(_REFLECTED.get(_name) or _reflected(_fn), f"__r{_name}__"))
for _name, _fn in {"and": CMP.bitwise_and, "or": CMP.bitwise_or, "xor": CMP.bitwise_xor}.items():
    declare(method=(f"__{_name}__", f"__r{_name}__"))(_fn)
for _name, _fn in {"eq": CMP.eq, "ne": CMP.ne, "lt": CMP.lt, "le": CMP.le, "gt": CMP.gt, "ge": CMP.ge, "neg": M.neg,
                   "abs": M.abs}.items():
    declare(method=(f"__{_name}__",))(_fn)
# Python 2's name of ``__rtruediv__``, still a Tensor method in PyTorch
declare(method=("__rdiv__",), numpy_names=False)(_operator(M.rtruediv_operator, "__rdiv__"))
declare(method=("__pos__",))(_pos)
declare(method=("__invert__",))(_invert)
declare(method=("__getitem__",))(getitem)
declare(method=("__setitem__",))(setitem)

# augmented assignment is the in-place twin (``x += y`` is ``x.add_(y)``)
for _name, _fn in {"add": M.add, "sub": M.sub, "mul": M.mul, "truediv": M.div, "floordiv": M.floor_divide,
                   "mod": M.remainder, "pow": M.pow, "and": CMP.bitwise_and, "or": CMP.bitwise_or,
                   "xor": CMP.bitwise_xor}.items():
    declare(method=(f"__i{_name}__",))(inplace_of(_fn, f"__i{_name}__"))


def _cast(dtype):
    def cast(self, memory_format=None):
        return to(self, dtype)
    cast.__name__ = cast.__qualname__ = dtype.name
    return cast


for _name, _d in {"float": _dtype.float32, "double": _dtype.float64, "half": _dtype.float16,
                  "bfloat16": _dtype.bfloat16, "long": _dtype.int64, "int": _dtype.int32,
                  "short": _dtype.int16, "char": _dtype.int8, "byte": _dtype.uint8, "bool": _dtype.bool_,
                  "cfloat": _dtype.complex64, "cdouble": _dtype.complex128}.items():
    declare(method=(_name,))(_cast(_d))


@declare(method=("cpu",))
def cpu(self, memory_format=None):
    return to(self, "cpu")


@declare(method=("cuda",))
def cuda(self, device=None, non_blocking=False, memory_format=None):
    return to(self, "cuda" if device is None else device)


Tensor.T = property(S.matrix_T)
Tensor.mT = property(S.matrix_mT)


def _is_view(self):
    """``Tensor._is_view()``: whether this tensor is a view of another (its ``_base``), as PyTorch's
    private method that tools such as torchviz call."""
    return self._base is not None


Tensor._is_view = _is_view
