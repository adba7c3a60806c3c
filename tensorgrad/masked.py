"""``tensorgrad.masked``: PyTorch's masked reductions and normalizations on strided tensors.

Each function takes a boolean ``mask`` (broadcast to the input) of the elements that take part.
The masked-out elements are replaced by the operation's identity (0 for ``sum``, 1 for
``prod``, ``-inf`` for ``amax``, ``softmax`` and ``logsumexp``, ...) and the ordinary operation
runs, so the nodes recorded are PyTorch's (``WhereBackward0``, then ``SumBackward1``, ...). A
slice whose elements are all masked out gives the identity (``sum``: 0, ``amax``: ``-inf``),
and NaN where there is none (``mean``, ``median``, ``var``, ``std``), as in PyTorch.

>>> import tensorgrad as torch
>>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> torch.masked.sum(x, 1, mask=torch.tensor([[True, False], [False, False]]))
tensor([1., 0.])
"""

import math

import numpy as np

from . import _dtype
from . import linalg as _linalg
from . import nn as _nn
from ._api import creation as _creation
from ._api import cumulative as _cumulative
from ._api import elementwise as _elementwise
from ._api import reduction as _reduction
from ._api.binary import logaddexp as _logaddexp
from ._api.comparison import isnan as _isnan
from ._api.elementwise import where as _where
from ._api.sorting import nanmedian as _nanmedian
from ._api.conversion import to as _to
from ._api.shape import broadcast_to as _broadcast_to
from ._tensor import Tensor as _Tensor

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp", "logsumexp",
           "mean", "median", "norm", "normalize", "prod", "softmax", "softmin", "std", "sum", "var"]

_SMALL_INTS = (_dtype.uint8, _dtype.bool_, _dtype.int8, _dtype.int16, _dtype.int32)


def _identity(name, input, ord=2):
    """The value that leaves the reduction ``name`` unchanged, as a 0-d tensor of input's dtype."""
    d = input.dtype
    if name in ("sum", "cumsum"):
        value = 0
    elif name in ("prod", "cumprod"):
        value = 1
    elif name in ("amax", "argmax", "logaddexp", "logsumexp"):
        value = -math.inf if d.is_floating_point else _int_bound(d, name, "min")
    elif name in ("amin", "argmin"):
        value = math.inf if d.is_floating_point else _int_bound(d, name, "max")
    elif name == "norm":
        value = math.inf if ord == -math.inf else 0
    else:       # median: NaN, which nanmedian skips
        return _creation.tensor(math.nan, dtype=d if d.is_floating_point else _dtype.float32)
    return _creation.tensor(value, dtype=d)


def _int_bound(d, name, end):
    if d == _dtype.bool_ or (not d.is_signed and d != _dtype.uint8):
        raise NotImplementedError(f"identity of {name} on {d} input")
    info = np.iinfo(d.np)
    return int(info.min if end == "min" else info.max)


def _input_mask(input, mask):
    """``mask`` as a boolean tensor of input's shape."""
    if not isinstance(mask, _Tensor):
        raise TypeError(f"mask must be a Tensor, not {type(mask).__name__}")
    if tuple(mask.shape) != tuple(input.shape):
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of "
                             "the input)")
        mask = _broadcast_to(mask.clone(), input.shape)
    return _to(mask, dtype=_dtype.bool_)


def _combine(name, input, mask, ord=2):
    """``input`` with its masked-out elements replaced by the identity of ``name``."""
    if not isinstance(input, _Tensor):
        raise TypeError(f"masked.{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if mask is None:
        return input
    return _where(_input_mask(input, mask), input, _identity(name, input, ord))


def _canonical_dim(dim, ndim):
    """``dim`` as a sorted tuple of non-negative dims (None and ``()``: all of them)."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                             f"but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _integral_sum_dtype(input, dtype):
    if dtype is not None:
        return dtype
    return _dtype.int64 if input.dtype in _SMALL_INTS else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The sum of the masked-in elements over ``dim`` (0 where all are masked out)."""
    dtype = _integral_sum_dtype(input, dtype)
    masked = _combine("sum", input, mask)
    return _reduction.sum(masked, _canonical_dim(dim, input.ndim), bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The product of the masked-in elements over ``dim`` (1 where all are masked out)."""
    dtype = _integral_sum_dtype(input, dtype)
    result = _to(_combine("prod", input, mask), dtype=dtype)
    for d in reversed(_canonical_dim(dim, input.ndim)):
        result = _reduction.prod(result, dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):
    """The cumulative sum along ``dim``, the masked-out elements counting as 0."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("cumsum", input, mask)
    return _to(_cumulative.cumsum(masked, _canonical_dim(dim, input.ndim)[0], dtype=dtype), dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """The cumulative product along ``dim``, the masked-out elements counting as 1."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("cumprod", input, mask)
    return _to(_cumulative.cumprod(masked, _canonical_dim(dim, input.ndim)[0], dtype=dtype), dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The largest masked-in element over ``dim`` (``-inf`` where all are masked out)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("amax", input, mask)
    return _to(_reduction.amax(masked, _canonical_dim(dim, masked.ndim), bool(keepdim)), dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The smallest masked-in element over ``dim`` (``inf`` where all are masked out)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("amin", input, mask)
    return _to(_reduction.amin(masked, _canonical_dim(dim, masked.ndim), bool(keepdim)), dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The index of the largest masked-in element along ``dim``, cast to ``dtype`` (input's)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("argmax", input, mask)
    return _to(_reduction.argmax(masked, dim, bool(keepdim)), dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The index of the smallest masked-in element along ``dim``, cast to ``dtype`` (input's)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("argmin", input, mask)
    return _to(_reduction.argmin(masked, dim, bool(keepdim)), dtype=dtype)


def _count(input, dim, keepdim, mask):
    """How many elements take part in each slice (an int64 tensor)."""
    if mask is None:
        ones = _creation.ones(tuple(input.shape), dtype=_dtype.int64)
        return sum(ones, dim, keepdim=keepdim)
    return _reduction.sum(mask, dim=dim, keepdim=bool(keepdim))


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The mean of the masked-in elements over ``dim`` (NaN where all are masked out)."""
    source = "Optional"
    if dtype is None:
        dtype = input.dtype
        source = "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a floating "
                         f"point or complex dtype. Got: {dtype}")
    inmask = None if mask is None else _input_mask(input, mask)
    count = _count(input, dim, keepdim, inmask)
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """The median of the masked-in elements along ``dim`` (NaN where all are masked out)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = _to(input, dtype=_dtype.float32)
    masked = _combine("median", input, mask)
    output = _nanmedian(masked, d, keepdim).values
    if is_float:
        return output
    if bool(_isnan(output).any()):
        raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")
    return _to(output, dtype=dtype)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """``log(sum(exp(x)))`` of the masked-in elements over ``dim`` (``-inf`` where all are masked out)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("logsumexp", input, mask)
    return _to(_reduction.logsumexp(masked, _canonical_dim(dim, input.ndim), keepdim=keepdim), dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """``log(exp(input) + exp(other))``, each operand's masked-out elements counting as ``-inf``."""
    dtype = input.dtype if dtype is None else dtype
    masked_input = _combine("logaddexp", input, input_mask)
    masked_other = _combine("logaddexp", other, other_mask)
    return _to(_logaddexp(masked_input, masked_other), dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The vector ``ord``-norm of the masked-in elements over ``dim``."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("norm", input, mask, ord)
    return _linalg.vector_norm(masked, ord, _canonical_dim(dim, input.ndim), bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    if correction is None:
        correction = 1.0 if unbiased is None or unbiased else 0.0
    correction = float(correction)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = _dtype.float32
    compute = dtype if dtype.is_floating_point or dtype.is_complex else _dtype.float32
    inmask = None if mask is None else _input_mask(input, mask)
    count = _count(input, dim, True, inmask)
    sample_mean = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask) / count
    x = input - sample_mean
    if x.is_complex():
        raise NotImplementedError("masked var and std of complex input are not supported")
    total = sum(x * x, dim, keepdim=keepdim, dtype=compute, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        count = _to(count, dtype=compute) - correction
        count = _elementwise.maximum(count, count.new_zeros([]))
    output = _to(total / count, dtype=dtype)
    return _elementwise.sqrt(output) if take_sqrt else output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """The variance of the masked-in elements over ``dim`` (NaN where all are masked out)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """The standard deviation of the masked-in elements over ``dim`` (NaN where all are masked out)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=True)


def softmax(input, dim, *, dtype=None, mask=None):
    """Softmax along ``dim`` over the masked-in elements (the masked-out ones get 0)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("amax", input, mask)
    return _nn.functional.softmax(masked, _canonical_dim(dim, input.ndim)[0], dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """Log-softmax along ``dim`` over the masked-in elements (the masked-out ones get ``-inf``)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("amax", input, mask)
    return _nn.functional.log_softmax(masked, _canonical_dim(dim, input.ndim)[0], dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    """Softmin along ``dim`` over the masked-in elements (the masked-out ones get 0)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("amin", input, mask)
    return _nn.functional.softmin(masked, _canonical_dim(dim, input.ndim)[0], dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """``input`` divided by the masked ``ord``-norm along ``dim`` (at least ``eps``)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine("sum", input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denom = _elementwise.maximum(nrm, nrm.new_full([], eps))
    return masked / denom
