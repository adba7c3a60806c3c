"""Torch-level reductions, scans and order statistics beyond the basics: nanmean, std_mean,
cumprod, cummax, median, mode, quantile, sort, topk, searchsorted, histc, bincount, diff.

Ops whose output size depends on the data (``bincount``) read that size on the host, so they
cannot run inside ``jax.jit``.
"""

import builtins

import numpy as np

from .. import _dtype
from .._ops import cumulative as CU
from .._ops import reduction as R
from .._ops import sorting as SC
from .._ops import shape as SH
from .._tensor import Tensor, apply, _wrap, _wrap_dim
from .creation import tensor as _tensor_factory
from .math import (_dims, _named, _correction, _sum_dtype, as_operand, isnan, logical_not, logical_xor, nansum,
                   result_type, sum as _sum)
from .extra_math import lerp
from .inplace import inplace_of
from .indexing import gather, _host, _host_sized
from . import shape as S
from .surface import declare, out_with


def _require_float(name, input, what="expected input to have floating point or complex dtype but got"):
    if input.dtype.kind < _dtype.FLOAT:
        raise RuntimeError(f"{name}(): {what} {input.dtype.c_name}")


def _dim_of(input, dim):
    return _wrap_dim(dim, input.ndim)


def _nonempty_dim(name, input, dim):
    if input.ndim and input.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


# ---------------------------------------------------------------- sums and means

@declare("nanmean", method=True, out=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over the non-NaN entries: ``nansum / count`` as PyTorch computes it."""
    d = input.dtype if dtype is None else _dtype.to_dtype(dtype)
    if d.kind < _dtype.FLOAT:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got {d.c_name}")
    count = _sum(logical_not(isnan(input)), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def _moments(op, name, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if input.dtype.kind < _dtype.FLOAT:
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    dims = None if dim is None else _dims(dim, input.ndim)
    return apply(op, (input,), (dims, _correction(unbiased, correction), keepdim))


@declare("std_mean")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` in one pass (both outputs share a ``StdMeanBackward0`` node)."""
    return _moments(R.std_mean, "std_mean", input, dim, unbiased, keepdim, correction)


@declare("var_mean")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` in one pass (both outputs share a ``VarMeanBackward0`` node)."""
    return _moments(R.var_mean, "var_mean", input, dim, unbiased, keepdim, correction)


@declare("count_nonzero", method=True)
def count_nonzero(input, dim=None):
    dims = None if dim is None else _dims(dim, input.ndim)
    return apply(R.count_nonzero, (input,), (dims,))


@declare("aminmax", method=True, out=True)
def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` as the named tuple ``aminmax``; ties share the gradient evenly."""
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                               "no identity.")
        if keepdim:
            values = apply(R.aminmax, (input.reshape(-1),), (0, True))
            return _named("aminmax", ("min", "max"))(*(v.reshape((1,) * input.ndim) for v in values))
        return _named("aminmax", ("min", "max"))(*apply(R.aminmax, (input,), (None, False)))
    d = _dim_of(input, dim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"aminmax(): Expected reduction dim {d} to have non-zero size.")
    return _named("aminmax", ("min", "max"))(*apply(R.aminmax, (input,), (d if input.ndim else None, keepdim)))


# ---------------------------------------------------------------- cumulative

@declare("cumprod", method=True, out=True)
def cumprod(input, dim, *, dtype=None):
    """The running product along ``dim`` (integers and bools accumulate in int64)."""
    d = _sum_dtype(input.dtype, dtype)
    return apply(CU.cumprod, (input,), (_dim_of(input, dim), d.np))


@declare(method=("cumprod_",))
def _cumprod_(self, dim, *, dtype=None):
    # the in-place twin keeps self's dtype
    if self.dtype is _dtype.bool_ and dtype is None:
        raise NotImplementedError("\"cumprod_out_cpu\" not implemented for 'Bool'")
    return inplace_of(cumprod)(self, dim, dtype=self.dtype if dtype is None else dtype)


@declare("logcumsumexp", method=True, out=True)
def logcumsumexp(input, dim):
    if input.dtype.kind < _dtype.FLOAT:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{input.dtype.c_name}'")
    return apply(CU.logcumsumexp, (input,), (_dim_of(input, dim),))


def _cum_extreme(op, name):
    def cum(input, dim):
        return _named(name)(*apply(op, (input,), (_dim_of(input, dim),)))
    cum.__name__ = name
    cum.__doc__ = f"The running {name[3:]} along ``dim`` and the index of its latest occurrence."
    return cum


cummax = _cum_extreme(CU.cummax, "cummax")
declare("cummax", method=True, out=True)(cummax)
cummin = _cum_extreme(CU.cummin, "cummin")
declare("cummin", method=True, out=True)(cummin)


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


def _median(op_all, op_dim, name):
    def median(input, dim=None, keepdim=False):
        if input.dtype is _dtype.bool_:
            raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
        if dim is None:
            if input.numel() == 0:
                return _wrap(np.full((), np.nan, input.dtype.np))
            return apply(op_all, (input,))
        d = _dim_of(input, dim)
        _nonempty_dim(name, input, d)
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
    out = gather(s, -1, lower)
    if interpolation in ("linear", "midpoint"):
        out = lerp(out, gather(s, -1, upper), weight)
    if scalar_q:
        return apply(SH.squeeze_copy, (out,), (out.ndim - 1,))
    out = apply(SH.unsqueeze_copy, (out,), (0,))
    out = apply(SH.transpose_copy, (out,), (0, out.ndim - 1))
    return apply(SH.squeeze_copy, (out,), (out.ndim - 1,))


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


@declare("diff", method=True, out=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first)."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _dim_of(input, dim)
    parts = []
    for extra in (prepend, input, append):
        if extra is None:
            continue
        extra = as_operand(extra)
        if not isinstance(extra, Tensor):
            extra = _tensor_factory(extra, dtype=input.dtype)
        if extra.ndim == 0:
            shape = list(input.shape)
            shape[d] = 1
            extra = S.expand(extra, tuple(shape))
        parts.append(extra)
    x = S.cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi = S.narrow(x, d, 1, length - 1)
        lo = S.narrow(x, d, 0, length - 1)
        x = logical_xor(hi, lo) if x.dtype is _dtype.bool_ else hi - lo
    return x
