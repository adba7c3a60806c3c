"""Attach the torch-level functions to Tensor as methods and operators."""

import jax
import numpy as np

from .. import _dtype
from .. import _tensor
from .._printing import format_tensor
from .._tensor import Tensor
from . import creation as C
from . import inplace as I
from . import math as M
from . import shape as S
from . import strides as _strides
from . import extra_math as _extra_math
from . import indexing as _indexing
from . import rearrange as _rearrange
from . import linalg as _linalg
from . import products as _products
from . import reductions as _reductions
from . import extra_ops as _extra_ops
from . import more_ops as _more_ops


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


def _operator(fn):
    """``fn`` as a binary operator method: an operand of another type gives NotImplemented, so
    Python raises its own TypeError (``unsupported operand type(s) for +: 'Tensor' and 'str'``),
    as it does for PyTorch."""
    def operator(self, other):
        if isinstance(other, _OPERANDS):
            return fn(self, other)
        return NotImplemented
    operator.__name__ = fn.__name__
    return operator


def _reflected(fn):
    def reflected(self, other):
        return fn(other, self)
    reflected.__name__ = "r" + fn.__name__
    return reflected


def _rsub(self, other):
    return M.sub(other, self)


def _rtruediv(self, other):
    return M.div(other, self)


def _rpow(self, other):
    return M.pow(other, self)


def _rmatmul(self, other):
    return M.matmul(M.as_operand(other), self)


def _dim_method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


METHODS = {
    # arithmetic
    "add": M.add, "sub": M.sub, "subtract": M.sub, "mul": M.mul, "multiply": M.mul, "div": M.div,
    "divide": M.div, "true_divide": M.div, "floor_divide": M.floor_divide, "remainder": M.remainder,
    "pow": M.pow, "neg": M.neg, "negative": M.neg, "abs": M.abs, "absolute": M.abs, "square": M.square,
    "maximum": M.maximum, "minimum": M.minimum, "atan2": M.atan2, "arctan2": M.atan2,
    "exp": M.exp, "exp2": M.exp2, "expm1": M.expm1, "log": M.log, "log2": M.log2, "log10": M.log10,
    "log1p": M.log1p, "sqrt": M.sqrt, "rsqrt": M.rsqrt, "sin": M.sin, "cos": M.cos, "tan": M.tan,
    "asin": M.asin, "acos": M.acos, "atan": M.atan, "arcsin": M.asin, "arccos": M.acos, "arctan": M.atan,
    "sinh": M.sinh, "cosh": M.cosh, "tanh": M.tanh, "asinh": M.asinh, "acosh": M.acosh, "atanh": M.atanh,
    "sigmoid": M.sigmoid, "relu": M.relu, "reciprocal": M.reciprocal, "erf": M.erf, "erfc": M.erfc,
    "erfinv": M.erfinv, "lgamma": M.lgamma, "digamma": M.digamma, "floor": M.floor, "ceil": M.ceil,
    "trunc": M.trunc, "fix": M.trunc, "frac": M.frac, "round": M.round, "sign": M.sign,
    "clamp": M.clamp, "clip": M.clamp, "clamp_min": M.clamp_min, "clamp_max": M.clamp_max, "where": M.where,
    # comparison and logic
    "eq": M.eq, "ne": M.ne, "lt": M.lt, "le": M.le, "gt": M.gt, "ge": M.ge, "greater": M.gt,
    "greater_equal": M.ge, "less": M.lt, "less_equal": M.le, "not_equal": M.ne,
    "logical_and": M.logical_and, "logical_or": M.logical_or, "logical_xor": M.logical_xor,
    "logical_not": M.logical_not, "bitwise_and": M.bitwise_and, "bitwise_or": M.bitwise_or,
    "bitwise_xor": M.bitwise_xor, "bitwise_not": M.bitwise_not, "isclose": M.isclose,
    "allclose": M.allclose, "equal": M.equal, "isnan": M.isnan, "isinf": M.isinf, "isfinite": M.isfinite,
    # reductions
    "sum": M.sum, "nansum": M.nansum, "mean": M.mean, "prod": M.prod, "max": M.max, "min": M.min,
    "amax": M.amax, "amin": M.amin, "argmax": M.argmax, "argmin": M.argmin, "all": M.all, "any": M.any,
    "norm": M.norm, "logsumexp": M.logsumexp, "cumsum": M.cumsum, "var": M.var, "std": M.std,
    # products
    "dot": M.dot, "inner": M.dot, "mv": M.mv, "mm": M.mm, "bmm": M.bmm, "matmul": M.matmul,
    "outer": M.outer, "ger": M.outer, "addmm": M.addmm,
    # shape
    "view": S.view, "reshape": S.reshape, "view_as": S.view_as, "reshape_as": S.reshape_as,
    "flatten": S.flatten, "unflatten": S.unflatten, "squeeze": S.squeeze, "unsqueeze": S.unsqueeze,
    "transpose": S.transpose, "swapaxes": S.transpose, "swapdims": S.transpose, "t": S.t,
    "permute": S.permute, "movedim": S.movedim, "moveaxis": S.movedim, "expand": S.expand,
    "expand_as": S.expand_as, "broadcast_to": S.broadcast_to, "diagonal": S.diagonal, "select": S.select,
    "narrow": S.narrow, "unbind": S.unbind, "split": S.split, "chunk": S.chunk,
    "tensor_split": S.tensor_split, "flip": S.flip, "repeat": S.repeat, "nonzero": S.nonzero,
    "argwhere": S.argwhere, "masked_fill": S.masked_fill, "index_put": S.index_put,
    # conversion
    "clone": S.clone, "contiguous": S.contiguous, "is_contiguous": _strides.is_contiguous,
    "stride": _strides.stride, "storage_offset": _strides.storage_offset, "to": S.to, "type": S.type_, "type_as": S.type_as,
    # in-place
    "copy_": S.copy_, "zero_": I.zero_, "fill_": I.fill_, "uniform_": I.uniform_, "normal_": I.normal_,
    "bernoulli_": I.bernoulli_, "exponential_": I.exponential_, "random_": I.random_,
    "index_put_": I.index_put_, "masked_fill_": I.masked_fill_,
}

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _dim_method(_fn))
for _name, _fn in I.INPLACE.items():
    setattr(Tensor, _name + "_", _fn)
# the op-breadth modules keep their own tables (methods, and in-place twins by attribute name)
for _module in (_extra_math, _reductions, _indexing, _rearrange, _products, _linalg, _extra_ops,
                _more_ops):
    for _name, _fn in _module.METHODS.items():
        setattr(Tensor, _name, _dim_method(_fn))
    for _name, _fn in _module.INPLACE.items():
        setattr(Tensor, _name, _fn)


def _cast(dtype):
    def cast(self, memory_format=None):
        return S.to(self, dtype)
    cast.__name__ = dtype.name
    return cast


for _name, _d in {"float": _dtype.float32, "double": _dtype.float64, "half": _dtype.float16,
                  "bfloat16": _dtype.bfloat16, "long": _dtype.int64, "int": _dtype.int32,
                  "short": _dtype.int16, "char": _dtype.int8, "byte": _dtype.uint8, "bool": _dtype.bool_,
                  "cfloat": _dtype.complex64, "cdouble": _dtype.complex128}.items():
    setattr(Tensor, _name, _cast(_d))


def _cpu(self, memory_format=None):
    return S.to(self, "cpu")


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    return S.to(self, "cuda" if device is None else device)


Tensor.cpu = _cpu
Tensor.cuda = _cuda
Tensor.T = property(S.matrix_T)
Tensor.mT = property(lambda self: S.transpose(self, -2, -1))
Tensor.__getitem__ = S.getitem
Tensor.__setitem__ = S.setitem

Tensor.__add__ = _operator(M.add)
Tensor.__radd__ = _operator(_reflected(M.add))
Tensor.__sub__ = _operator(M.sub)
Tensor.__rsub__ = _operator(_rsub)
Tensor.__mul__ = _operator(M.mul)
Tensor.__rmul__ = _operator(_reflected(M.mul))
Tensor.__truediv__ = _operator(M.div)
Tensor.__rtruediv__ = _operator(_rtruediv)
Tensor.__floordiv__ = _operator(M.floor_divide)
Tensor.__rfloordiv__ = _operator(_reflected(M.floor_divide))
Tensor.__mod__ = _operator(M.remainder)
Tensor.__rmod__ = _operator(_reflected(M.remainder))
Tensor.__pow__ = _operator(M.pow)
Tensor.__rpow__ = _operator(_rpow)
Tensor.__matmul__ = _operator(M.matmul)
Tensor.__rmatmul__ = _operator(_rmatmul)
Tensor.__neg__ = M.neg
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = M.abs
Tensor.__invert__ = lambda self: M.logical_not(self) if self.dtype is _dtype.bool_ else M.bitwise_not(self)
Tensor.__and__ = M.bitwise_and
Tensor.__or__ = M.bitwise_or
Tensor.__xor__ = M.bitwise_xor
Tensor.__rand__ = Tensor.__and__
Tensor.__ror__ = Tensor.__or__
Tensor.__rxor__ = Tensor.__xor__
Tensor.__eq__ = M.eq
Tensor.__ne__ = M.ne
Tensor.__lt__ = M.lt
Tensor.__le__ = M.le
Tensor.__gt__ = M.gt
Tensor.__ge__ = M.ge
Tensor.__iadd__ = I.INPLACE["add"]
Tensor.__isub__ = I.INPLACE["sub"]
Tensor.__imul__ = I.INPLACE["mul"]
Tensor.__itruediv__ = I.INPLACE["div"]
Tensor.__ifloordiv__ = I.INPLACE["floor_divide"]
Tensor.__imod__ = I.INPLACE["remainder"]
Tensor.__ipow__ = I.INPLACE["pow"]
Tensor.__iand__ = I.INPLACE["bitwise_and"]
Tensor.__ior__ = I.INPLACE["bitwise_or"]
Tensor.__ixor__ = I.INPLACE["bitwise_xor"]
