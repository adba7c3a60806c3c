"""Cumulative ops along one dim: cumsum, cumprod, logcumsumexp, cummax and cummin.

cummax/cummin pick their values with ``take_along_axis`` at the chosen indices, so the
gradient goes to exactly those entries, as in PyTorch.
"""

import jax.numpy as jnp
from jax import lax

from .registry import op


@op("cumsum", saves="none")
def cumsum(x, *, dim, dtype):
    if x.ndim == 0:
        return x.astype(dtype)
    return jnp.cumsum(x, axis=dim, dtype=dtype)


@op("cumprod", saves={"x": "any", "out": "any"})
def cumprod(x, *, dim, dtype):
    if x.ndim == 0:
        return x.astype(dtype)
    return jnp.cumprod(x.astype(dtype), axis=dim).astype(dtype)


@op("logcumsumexp", saves={"x": "any", "out": "any"})
def logcumsumexp(x, *, dim):
    if x.ndim == 0:
        return x
    return lax.cumlogsumexp(x, axis=dim)


def _cum_extreme(x, dim, better):
    """Running extreme along ``dim`` with the index of its latest occurrence."""
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    idx = lax.broadcasted_iota(jnp.int64, x.shape, dim)

    def combine(a, b):
        va, ia = a
        vb, ib = b
        # b is later; it wins ties (PyTorch keeps the latest index) and NaN sticks
        take_b = better(vb, va) | (vb == va) | jnp.isnan(vb)
        take_b = take_b & ~(jnp.isnan(va) & ~jnp.isnan(vb))
        return jnp.where(take_b, vb, va), jnp.where(take_b, ib, ia)

    _, best = lax.associative_scan(combine, (lax.stop_gradient(x), idx), axis=dim)
    return jnp.take_along_axis(x, best, axis=dim), best


@op("cummax", saves={"x": "any", "out1": "any"})
def cummax(x, *, dim):
    return _cum_extreme(x, dim, lambda a, b: a > b)


@op("cummin", saves={"x": "any", "out1": "any"})
def cummin(x, *, dim):
    return _cum_extreme(x, dim, lambda a, b: a < b)
