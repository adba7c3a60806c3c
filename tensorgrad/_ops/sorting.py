"""Sorting, selection, order statistics, searching and counting.

Value-selecting ops (sort, topk, kthvalue, median with a dim, mode) pick their values with
``take_along_axis`` at the chosen indices, so the gradient goes to exactly those entries, as
in PyTorch. Full reductions that PyTorch differentiates by sharing the gradient among ties
(median) say so where they do it.
"""

import jax
import jax.numpy as jnp
from jax import lax

from .registry import op


def _i64(x):
    return x.astype(jnp.int64)


def _evenly(x, value, axis=None, keepdims=False):
    """``value`` (a reduction of x) whose gradient is shared evenly among the entries equal
    to it, as PyTorch's ``evenly_distribute_backward``."""
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return value
    expanded = value if (keepdims or axis is None) else jnp.expand_dims(value, axis)
    mask = lax.stop_gradient((x == expanded) | (jnp.isnan(x) & jnp.isnan(expanded)))
    count = jnp.sum(mask, axis=axis, keepdims=keepdims)
    share = jnp.sum(jnp.where(mask, x, 0), axis=axis, keepdims=keepdims) / jnp.maximum(count, 1)
    return lax.stop_gradient(value) + (share - lax.stop_gradient(share))


# ---------------------------------------------------------------- sorting and selection

def _sort_indices(x, dim, descending):
    if x.dtype == jnp.bool_:
        x = x.astype(jnp.int8)
    return _i64(jnp.argsort(x, axis=dim, stable=True, descending=descending))


@op("sort", saves={"out1": "any"})
def sort(x, *, dim, descending):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    idx = _sort_indices(lax.stop_gradient(x), dim, descending)
    return jnp.take_along_axis(x, idx, axis=dim), idx


@op("sort_stable", grad_fn="SortBackward1", saves={"out1": "any"})
def sort_stable(x, *, dim, descending):
    return sort.fn(x, dim=dim, descending=descending)


@op("argsort", differentiable=False)
def argsort(x, *, dim, descending):
    if x.ndim == 0:
        return jnp.zeros((), jnp.int64)
    return _sort_indices(x, dim, descending)


@op("topk", saves={"out1": "any"})
def topk(x, *, k, dim, largest):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    moved = jnp.moveaxis(lax.stop_gradient(x), dim, -1)
    if not largest:
        moved = -moved if moved.dtype != jnp.bool_ else ~moved
    _, idx = lax.top_k(moved, k)
    idx = jnp.moveaxis(_i64(idx), -1, dim)
    return jnp.take_along_axis(x, idx, axis=dim), idx


@op("kthvalue", grad_fn="KthvalueBackward0", saves={"out1": "any"})
def kthvalue(x, *, k, dim, keepdim):
    """The k-th smallest entry along ``dim`` (NaN sorts last) and its index."""
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    idx = lax.index_in_dim(jnp.argsort(x, axis=dim, stable=True), k - 1, dim, keepdims=True)
    values = jnp.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        values, idx = jnp.squeeze(values, dim), jnp.squeeze(idx, dim)
    return values, idx.astype(jnp.int64)


# ---------------------------------------------------------------- medians, modes, quantiles

def _median_index(x, dim, ignore_nan):
    """The index (keepdims) of the lower median along ``dim``: NaN wins unless ignored."""
    n = x.shape[dim]
    order = jnp.argsort(x, axis=dim, stable=True)
    nans = jnp.isnan(x)
    if ignore_nan:
        valid = jnp.sum(~nans, axis=dim, keepdims=True)
        pos = jnp.maximum(valid - 1, 0) // 2
    else:
        pos = jnp.full_like(jnp.sum(nans, axis=dim, keepdims=True), (n - 1) // 2)
    idx = jnp.take_along_axis(order, pos, axis=dim)
    if not ignore_nan:
        first_nan = jnp.argmax(nans, axis=dim, keepdims=True)
        idx = jnp.where(jnp.any(nans, axis=dim, keepdims=True), first_nan, idx)
    return _i64(idx)


@op("median", saves={"x": "any", "out": "any"})
def median(x):
    # the full median shares its gradient among the entries equal to it, as PyTorch
    flat = x.reshape(-1)
    idx = _median_index(lax.stop_gradient(flat), 0, False)
    return _evenly(flat, jnp.take_along_axis(flat, idx, 0)[0])


@op("nanmedian", saves={"x": "any", "out": "any"})
def nanmedian(x):
    flat = x.reshape(-1)
    idx = _median_index(lax.stop_gradient(flat), 0, True)
    return _evenly(flat, jnp.take_along_axis(flat, idx, 0)[0])


def _select_at(x, idx, dim, keepdim):
    values = jnp.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        values = jnp.squeeze(values, dim)
        idx = jnp.squeeze(idx, dim)
    return values, idx


@op("median_dim", grad_fn="MedianBackward1", saves={"out1": "any"})
def median_dim(x, *, dim, keepdim):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    return _select_at(x, _median_index(lax.stop_gradient(x), dim, False), dim, keepdim)


@op("nanmedian_dim", grad_fn="NanmedianBackward1", saves={"out1": "any"})
def nanmedian_dim(x, *, dim, keepdim):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    return _select_at(x, _median_index(lax.stop_gradient(x), dim, True), dim, keepdim)


@op("mode", saves={"out1": "any"})
def mode(x, *, dim, keepdim):
    """The most frequent value (the smallest among equally frequent ones) and the index of
    its last occurrence, as PyTorch."""
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    v = jnp.moveaxis(lax.stop_gradient(x), dim, -1)
    n = v.shape[-1]
    counts = jnp.sum(v[..., :, None] == v[..., None, :], axis=-1)
    best = jnp.max(counts, axis=-1, keepdims=True)
    candidates = jnp.where(counts == best, v, jnp.max(v, axis=-1, keepdims=True))
    value = jnp.min(candidates, axis=-1, keepdims=True)
    positions = jnp.where(v == value, jnp.arange(n), -1)
    idx = jnp.moveaxis(_i64(jnp.max(positions, axis=-1, keepdims=True)), -1, dim)
    return _select_at(x, idx, dim, keepdim)


@op("quantile_ranks", differentiable=False)
def quantile_ranks(sorted_x, q, *, interpolation, ignore_nan):
    """Positions and weights for ``quantile``: ``(lower, upper, weight)``.

    ``sorted_x`` is sorted along its last axis (NaN last); the outputs replace that axis by
    one entry per quantile in ``q``, ready for ``gather(-1)`` and ``lerp``.
    """
    n = sorted_x.shape[-1]
    nans = jnp.isnan(sorted_x)
    if ignore_nan:
        last = jnp.maximum(jnp.sum(~nans, axis=-1, keepdims=True) - 1, 0).astype(q.dtype)
    else:
        last = jnp.asarray(n - 1, q.dtype)
    ranks = q * last
    if not ignore_nan:
        # any NaN in the slice makes the quantile NaN: point at the last (NaN) entry
        ranks = jnp.where(jnp.any(nans, axis=-1, keepdims=True), last, ranks)
    if interpolation == "lower":
        ranks = jnp.floor(ranks)
    elif interpolation == "higher":
        ranks = jnp.ceil(ranks)
    elif interpolation == "nearest":
        ranks = jnp.round(ranks)
    lower = jnp.floor(ranks)
    upper = jnp.ceil(ranks)
    weight = ranks - lower
    if interpolation == "midpoint":
        weight = jnp.full_like(ranks, 0.5)
    shape = sorted_x.shape[:-1] + q.shape
    lower = jnp.broadcast_to(_i64(lower), shape)
    upper = jnp.broadcast_to(_i64(upper), shape)
    return lower, upper, jnp.broadcast_to(weight.astype(sorted_x.dtype), shape)


# ---------------------------------------------------------------- searching and counting

@op("searchsorted", differentiable=False)
def searchsorted(seq, values, *, right, out_int32):
    dtype = jnp.int32 if out_int32 else jnp.int64
    side = "right" if right else "left"
    if seq.ndim == 1:
        return jnp.searchsorted(seq, values, side=side).astype(dtype)
    lead = seq.shape[:-1]
    flat_seq = seq.reshape((-1, seq.shape[-1]))
    flat_values = values.reshape((flat_seq.shape[0], -1))
    out = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(flat_seq, flat_values)
    return out.reshape(lead + values.shape[len(lead):]).astype(dtype)


@op("histc", differentiable=False)
def histc(x, *, bins, lo, hi):
    flat = x.reshape(-1)
    if lo == hi:
        lo_v = jnp.min(flat) if flat.size else jnp.zeros((), x.dtype)
        hi_v = jnp.max(flat) if flat.size else jnp.zeros((), x.dtype)
        same = lo_v == hi_v
        lo_v = jnp.where(same, lo_v - 1, lo_v)
        hi_v = jnp.where(same, hi_v + 1, hi_v)
    else:
        lo_v = jnp.asarray(lo, x.dtype)
        hi_v = jnp.asarray(hi, x.dtype)
    inside = (flat >= lo_v) & (flat <= hi_v)
    pos = jnp.floor((flat - lo_v) / (hi_v - lo_v) * bins).astype(jnp.int64)
    pos = jnp.clip(pos, 0, bins - 1)
    return jnp.zeros(bins, x.dtype).at[pos].add(inside.astype(x.dtype))


@op("histogram", differentiable=False)
def histogram(x, edges, weight, *, density):
    """Counts (or summed ``weight``) of the entries of ``x`` in the bins between ``edges``; an
    entry on the last edge falls in the last bin, entries outside are dropped."""
    flat = x.reshape(-1)
    nbins = edges.shape[0] - 1
    pos = jnp.searchsorted(edges, flat, side="right") - 1
    pos = jnp.where(flat == edges[-1], nbins - 1, pos)
    inside = (flat >= edges[0]) & (flat <= edges[-1])
    w = jnp.ones_like(flat) if weight is None else weight.reshape(-1).astype(x.dtype)
    w = jnp.where(inside, w, jnp.zeros_like(w))
    hist = jnp.zeros(nbins, x.dtype).at[jnp.clip(pos, 0, nbins - 1)].add(w)
    if density:
        hist = hist / jnp.sum(hist) / jnp.diff(edges)
    return hist, edges


def _upper_bound(edges, v):
    """``std::upper_bound(edges, edges + n, v) - edges`` elementwise, step for step as libstdc++
    halves its range, so that edges which are not sorted (or hold NaN) give PyTorch's bins."""
    n = edges.shape[0]
    first = jnp.zeros(v.shape, jnp.int64)
    length = jnp.full(v.shape, n, jnp.int64)
    for _ in range(n.bit_length()):
        half = length >> 1
        middle = first + half
        left = v < edges[jnp.clip(middle, 0, n - 1)]
        active = length > 0
        first = jnp.where(active & ~left, middle + 1, first)
        length = jnp.where(active, jnp.where(left, half, length - half - 1), length)
    return first


@op("histogramdd", differentiable=False)
def histogramdd(x, weight, *edges, density):
    """PyTorch's ``histogramdd_cpu_contiguous``: ``x`` holds points in its rows (its last axis
    has one coordinate per tensor of ``edges``); a point counts (or adds its ``weight``) in the
    bin of each coordinate (the last bin of a dimension includes its right edge); points outside
    the edges of any dimension (or NaN) are dropped. ``density`` divides by the total, then by
    each dimension's bin lengths in turn."""
    shape = tuple(e.shape[0] - 1 for e in edges)
    hist = jnp.zeros(shape, x.dtype)
    if edges:
        points = x.reshape(-1, len(edges))
        keep = jnp.ones(points.shape[:1], bool)
        index = jnp.zeros(points.shape[:1], jnp.int64)
        for d, e in enumerate(edges):
            v = points[:, d]
            keep = keep & (v >= e[0]) & (v <= e[-1])
            pos = _upper_bound(e, v) - 1
            pos = jnp.where(pos == e.shape[0] - 1, pos - 1, pos)
            index = index * shape[d] + jnp.clip(pos, 0, shape[d] - 1)
        w = jnp.ones(points.shape[:1], x.dtype) if weight is None else weight.reshape(-1).astype(x.dtype)
        w = jnp.where(keep, w, jnp.zeros_like(w))
        hist = hist.reshape(-1).at[index].add(w).reshape(shape)
    if density:
        # true divisions, one after another, as PyTorch's ``div_``s: XLA would multiply by the
        # reciprocal of a broadcast divisor or fold two divisions into one; barriers stop both
        def divide(h, divisor):
            return lax.optimization_barrier(h / lax.optimization_barrier(jnp.broadcast_to(divisor, h.shape)))
        hist = divide(hist, jnp.sum(hist))
        for d, e in enumerate(edges):
            hist = divide(hist, jnp.diff(e).reshape(tuple(-1 if k == d else 1 for k in range(len(edges)))))
    return hist


@op("bincount", differentiable=False)
def bincount(x, weights, *, length, dtype):
    if weights is None:
        return jnp.zeros(length, jnp.int64).at[x].add(1)
    return jnp.zeros(length, dtype).at[x].add(weights.astype(dtype))


@op("isin", differentiable=False)
def isin(elements, test, *, invert, dtype):
    a = jnp.asarray(elements, dtype)
    b = jnp.asarray(test, dtype).reshape(-1)
    found = jnp.any(a[..., None] == b, axis=-1) if b.size else jnp.zeros(a.shape, bool)
    return ~found if invert else found
