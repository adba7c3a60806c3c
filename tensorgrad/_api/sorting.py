"""Torch-level sorting and order statistics: sort/argsort/msort, topk, kthvalue, median, mode,
quantile, searchsorted/bucketize, the histograms (histc, histogram, bincount), isin and unique.

Ops whose output size depends on the data (``bincount``, ``unique``) read that size on the
host, so they cannot run inside ``jax.jit``.
"""

import builtins
import math as _math

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._autograd.grad_mode import STATE
from .._ops import sorting as SC
from .._ops import shape as SH
from .._tensor import Tensor, apply, _wrap, _wrap_dim, _C_TYPE
from . import shape as S
from .binary import lerp
from .comparison import isnan, logical_not
from .creation import tensor as _tensor_factory
from .elementwise import where
from .indexing import gather, _host, _host_sized
from .operands import result_type, _named, _need_tensor
from .reduction import _dim_of, _nonempty_dim
from .surface import declare, out_with


# ---------------------------------------------------------------- sorting and selection

@declare("sort", method=True, out=True)
def sort(input, dim=-1, descending=False, stable=None):
    """Sorted values and their indices (a stable sort; NaN sorts as the largest value).

    Passing ``stable`` (either value) selects PyTorch's stable overload, whose node is
    ``SortBackward1``.
    """
    if isinstance(dim, bool):
        raise TypeError("sort(): argument 'dim' must be int, not bool")
    d = _dim_of(input, dim)
    op = SC.sort if stable is None else SC.sort_stable
    return _named("sort")(*apply(op, (input,), (d, bool(descending))))


@declare("argsort", method=True, out=out_with("stable"))
def argsort(input, dim=-1, descending=False, stable=None):
    """The indices that sort ``input`` along ``dim``; the sort is always stable, so ties keep
    their order whatever ``stable`` says (``stable=None`` is PyTorch's overload without it)."""
    return apply(SC.argsort, (input,), (_dim_of(input, dim), bool(descending)))


@declare("msort", method=True, out=True)
def msort(input):
    return sort(input, 0).values


@declare("topk", method=True, out=True)
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) entries along ``dim`` and their indices; ties go to the
    lower index."""
    d = _dim_of(input, dim)
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.dtype is _dtype.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    return _named("topk")(*apply(SC.topk, (input,), (int(k), d, bool(largest))))


# PyTorch's median of no entries: NaN, cast to the dtype by C++ (x86's result for the integers)
_EMPTY_MEDIAN = {"bool": True, "uint8": 0, "int8": 0, "int16": 0, "int32": -2 ** 31, "int64": -2 ** 63}


def _median(op_all, op_dim, name):
    def median(input, dim=None, keepdim=False):
        if dim is None:
            if input.numel() == 0:
                return _wrap(np.full((), _EMPTY_MEDIAN.get(input.dtype.name, np.nan), input.dtype.np))
            if input.dtype is _dtype.bool_:
                raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
            return apply(op_all, (input,))
        if input.dtype is _dtype.bool_:
            raise NotImplementedError("\"median_out\" not implemented for 'Bool'")
        d = _dim_of(input, dim)
        _nonempty_dim("median", input, d)     # PyTorch's nanmedian says median() too
        return _named(name)(*apply(op_dim, (input,), (d, keepdim)))
    median.__name__ = name
    return median


median = _median(SC.median, SC.median_dim, "median")
declare("median", method=True, out=out_with("dim"))(median)


median.__doc__ = """The lower median: of all entries (ties share the gradient), or along ``dim``
as ``(values, indices)``. NaN propagates."""

nanmedian = _median(SC.nanmedian, SC.nanmedian_dim, "nanmedian")
declare("nanmedian", method=True, out=out_with("dim"))(nanmedian)


nanmedian.__doc__ = """The lower median of the non-NaN entries (see ``median``)."""


@declare("mode", method=True, out=True)
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest if several) and its last index."""
    d = _dim_of(input, dim)
    _nonempty_dim("mode", input, d)
    return _named("mode")(*apply(SC.mode, (input,), (d, keepdim)))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    """PyTorch's ``quantile_compute``, node for node: sort along the last axis (after moving
    ``dim`` there), view as the output shape plus that axis, gather the ranks below (and above,
    then ``lerp_``), and move the quantiles first with in-place view ops. Messages say
    ``quantile()`` for ``nanquantile`` too, as PyTorch's."""
    if input.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
        qt = _tensor_factory([float(q)], dtype=input.dtype)
    else:
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        qv = _host(q)
        if qv is not None and qv.size and (qv.min() < 0 or qv.max() > 1):
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
        scalar_q = q.ndim == 0
        qt = q.reshape(-1)
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    shape = tuple(input.shape)
    if dim is None:
        s = sort(S.flatten(input)).values
        reduced = (1,) * len(shape) if keepdim else ()
    else:
        d = _dim_of(input, dim)
        x = input if d == input.ndim - 1 else S.transpose(S.unsqueeze(input, -1), d, -1)
        s = sort(x).values
        if keepdim and shape:
            reduced = shape[:d] + (1,) + shape[d + 1:]
        else:
            reduced = shape[:d] + shape[d + 1:]
    s = S.view(s, reduced + (s.shape[-1],))
    # (lower, upper, weight), each of shape reduced + (len(q),)
    lower, upper, weight = apply(SC.quantile_ranks, (s.detach(), qt.detach()), (interpolation, ignore_nan))
    if interpolation == "linear" and qt.requires_grad and STATE.grad:
        weight = weight + _rank_tangent(s.detach(), qt, ignore_nan)
    out = gather(s, -1, lower)
    if interpolation in ("linear", "midpoint"):
        out = lerp(out, gather(s, -1, upper), weight)
    if scalar_q:
        return apply(SH.squeeze_copy, (out,), (out.ndim - 1,))
    out = apply(SH.unsqueeze_copy, (out,), (0,))
    out = apply(SH.transpose_copy, (out,), (0, out.ndim - 1))
    return apply(SH.squeeze_copy, (out,), (out.ndim - 1,))


def _rank_tangent(s, q, ignore_nan):
    """Zero, with the derivative in ``q`` of PyTorch's linear weight ``ranks - ranks_below``:
    ``ranks`` is ``q * (n - 1)`` (n the non-NaN entries for nanquantile), masked where PyTorch
    fills a constant rank (a slice with a NaN for quantile, a negative rank for nanquantile), so
    that those slices give exactly 0 (not NaN) to ``q``'s gradient."""
    nan = isnan(s)
    if ignore_nan:
        scale = (logical_not(nan).sum(-1, keepdim=True) - 1).to(s.dtype)
        fixed = q.detach() * scale < 0
    else:
        scale = float(s.shape[-1] - 1)
        fixed = nan.any(-1, keepdim=True)
    ranks = where(fixed, 0.0, q * scale)
    return ranks - ranks.detach()


@declare("quantile", method=True, out=True)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-quantiles (a number or a 1-D tensor) over all entries or along ``dim``; NaN
    anywhere in a slice makes its quantiles NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, False)


@declare("nanquantile", method=True, out=True)
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile`` over the non-NaN entries of each slice."""
    return _quantile(input, q, dim, keepdim, interpolation, True)


# ---------------------------------------------------------------- searching and counting

@declare("searchsorted", out=True)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Insertion indices of ``input`` in the innermost dim of ``sorted_sequence``."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    if sorted_sequence.dtype is _dtype.bool_:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    scalar = not isinstance(input, Tensor)
    values = _tensor_factory(input) if scalar else input
    seq = sorted_sequence
    if sorter is not None:
        seq = gather(seq, -1, sorter)
    if seq.ndim > 1 and (values.ndim != seq.ndim or tuple(values.shape[:-1]) != tuple(seq.shape[:-1])):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
            "tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(seq.shape)} and input value tensor {list(values.shape)}")
    if seq.dtype is not values.dtype:
        common = result_type(seq, values)
        seq, values = seq.to(common), values.to(common)
    return apply(SC.searchsorted, (seq, values), (bool(right), bool(out_int32)))


@declare("bucketize", out=True)
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each entry: ``boundaries[i-1] < x <= boundaries[i]`` (``<``/``>=`` with right)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


@declare("histc", method=True, out=True)
def histc(input, bins=100, min=0, max=0):
    """A histogram of ``bins`` equal-width bins over ``[min, max]`` (the data range if equal)."""
    if input.dtype.kind < _dtype.FLOAT:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{input.dtype.c_name}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    return apply(SC.histc, (input,), (int(bins), float(min), float(max)))


@declare("bincount", method=True)
def bincount(input, weights=None, minlength=0):
    """Counts (or summed ``weights``) of each non-negative integer; the length is read on the host."""
    if input.dtype.kind != _dtype.INT or input.dtype is _dtype.bool_:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{input.dtype.c_name}'")
    values = _host_sized("bincount", input)
    if input.ndim != 1 or (values.size and values.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    length = builtins.max(int(values.max()) + 1 if values.size else 0, minlength)
    if weights is not None:
        if tuple(weights.shape) != tuple(input.shape):
            raise RuntimeError("weights should be 1-d and have the same length as input")
        d = weights.dtype if weights.dtype is _dtype.float32 else _dtype.float64
        return apply(SC.bincount, (input, weights.detach()), (length, d.np))
    return apply(SC.bincount, (input, None), (length, None))


# ---------------------------------------------------------------- kthvalue

@declare("kthvalue", method=True, out=True)
def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest entry along ``dim`` and its index (named tuple ``kthvalue``)."""
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.dtype is _dtype.bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    return _named("kthvalue")(*apply(SC.kthvalue, (input,), (int(k), d, bool(keepdim))))


# ---------------------------------------------------------------- histogram, isin

@declare("histogram", method=True, out=True)
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)``: counts (or summed ``weight``) of the entries of ``input`` in ``bins``
    equal bins over ``range`` (the data's range by default), or between the edges of a 1-D
    tensor ``bins``; ``density`` normalises to unit integral. Not differentiable."""
    _need_tensor("histogram", "input", input, 1)
    if input.dtype not in (_dtype.float32, _dtype.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{input.dtype.c_name}'")
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError("histogram(): argument 'range' is not accepted together with a Tensor 'bins'")
        if bins.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {bins.ndim} "
                               f"dimensions in the bins tensor for dimension 0")
        if bins.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                               f"got input with dtype {_C_TYPE[input.dtype.name]} and bins for dimension 0 with "
                               f"dtype {_C_TYPE[bins.dtype.name]}")
        if bins.numel() - 1 <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins.numel() - 1} for dimension 0")
        edges = bins.detach()
    else:
        if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool):
            raise TypeError(f"histogram(): argument 'bins' must be int or Tensor, not {type(bins).__name__}")
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        edges = None
    if weight is not None:
        _need_tensor("histogram", "weight", weight, 4)
        if tuple(weight.shape) != tuple(input.shape):
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as "
                               f"the input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(input.shape)} and weight with shape {list(weight.shape)}")
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({_C_TYPE[input.dtype.name]}), and "
                               f"weight({_C_TYPE[weight.dtype.name]})")
    if edges is None:
        if range is not None:
            lo, hi = (builtins.float(v) for v in range)
        elif input.numel():
            data = np.asarray(input._data)
            lo, hi = builtins.float(data.min()), builtins.float(data.max())
        else:
            lo, hi = 0.0, 1.0
        if not (_math.isfinite(lo) and _math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo:g}, {hi:g}] is not finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for "
                               f"dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        # torch.linspace's layout: the first half counted up from lo, the second back from hi
        step = (hi - lo) / bins
        i = np.arange(bins + 1, dtype=np.float64)
        values = np.where(i < (bins + 1) // 2, lo + step * i, hi - step * (bins - i))
        edges = _wrap(jnp.asarray(values.astype(input._data.dtype)))
    w = None if weight is None else weight.detach()
    hist, bin_edges = apply(SC.histogram, (input.detach(), edges, w), (bool(density),))
    return _named("histogram", ("hist", "bin_edges"))(hist, bin_edges)


@declare("isin", out=True)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each entry of ``elements`` occurs in ``test_elements`` (a bool tensor shaped like
    ``elements``); either may be a Python number."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(f"isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__})")
    for t in (elements, test_elements):
        if isinstance(t, Tensor) and t.dtype is _dtype.bool_ or isinstance(t, (bool, np.bool_)):
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    d = result_type(elements, test_elements)
    a = elements if isinstance(elements, Tensor) else _wrap(jnp.asarray(elements, d.np))
    b = test_elements._data if isinstance(test_elements, Tensor) else jnp.asarray(test_elements, d.np)
    return apply(SC.isin, (a.detach(), b), (bool(invert), d.np))


# ---------------------------------------------------------------- unique

def _unique_result(values, inverse, counts, return_inverse, return_counts, like):
    out = [_wrap(jnp.asarray(values))]
    if return_inverse:
        out.append(_wrap(jnp.asarray(inverse.astype(np.int64))))
    if return_counts:
        out.append(_wrap(jnp.asarray(counts.astype(np.int64))))
    return out[0] if len(out) == 1 else tuple(out)


@declare("unique", method=True, numpy_names=False)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (or slices along ``dim``), sorted, computed on the host; the result
    carries no gradient."""
    arr = _host_sized("unique", input)
    if dim is None:
        values, inverse, counts = np.unique(arr.reshape(-1), return_inverse=True, return_counts=True,
                                            equal_nan=False)
        return _unique_result(values, inverse.reshape(arr.shape), counts, return_inverse, return_counts, input)
    d = _wrap_dim(dim, input.ndim)
    values, inverse, counts = np.unique(arr, return_inverse=True, return_counts=True, axis=d)
    return _unique_result(values, inverse.reshape(-1), counts, return_inverse, return_counts, input)


@declare("unique_consecutive", method=True, numpy_names=False)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive values (or slices along ``dim``), on the host."""
    arr = _host_sized("unique_consecutive", input)
    if dim is None:
        flat = arr.reshape(-1)
        if flat.size == 0:
            return _unique_result(flat, np.zeros(arr.shape, np.int64), np.zeros(0, np.int64), return_inverse,
                                  return_counts, input)
        starts = np.concatenate([[True], flat[1:] != flat[:-1]])
        inverse = np.cumsum(starts) - 1
        counts = np.diff(np.append(np.flatnonzero(starts), flat.size))
        return _unique_result(flat[starts], inverse.reshape(arr.shape), counts, return_inverse, return_counts, input)
    d = _wrap_dim(dim, input.ndim)
    moved = np.moveaxis(arr, d, 0)
    if moved.shape[0] == 0:
        return _unique_result(arr, np.zeros(0, np.int64), np.zeros(0, np.int64), return_inverse, return_counts, input)
    rows = moved.reshape(moved.shape[0], -1)
    starts = np.concatenate([[True], np.any(rows[1:] != rows[:-1], axis=1)])
    inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), rows.shape[0]))
    values = np.moveaxis(moved[starts], 0, d)
    return _unique_result(values, inverse, counts, return_inverse, return_counts, input)
