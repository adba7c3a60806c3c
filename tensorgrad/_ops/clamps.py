"""Elementwise extrema and clamps: ``maximum``, ``minimum``, ``fmax``, ``fmin`` and the clamps.

Their derivatives are masks, as PyTorch's formulas are: the input that is not selected gets
exactly 0, even where the incoming gradient is NaN or infinite (``jnp.where`` routes the
gradient; a product with a 0/1 mask would give ``0 * nan = nan``). Binary ops receive the
promoted dtype as ``dtype`` and cast inside (as in ``elementwise.py``).
"""

import jax
import jax.numpy as jnp
from jax import lax

from .registry import op


def _c(x, dtype):
    return jnp.asarray(x, dtype)


# ---------------------------------------------------------------- extrema

def _extreme(pick, beats):
    """``pick`` (jnp.maximum or jnp.minimum) with PyTorch's derivative: the gradient goes to
    the input that ``beats`` the other, is halved between equal inputs, and is exactly 0 for
    the beaten input (NaN in either input passes the gradient to both)."""
    @jax.custom_jvp
    def extreme(a, b):
        return pick(a, b)

    @extreme.defjvp
    def extreme_jvp(primals, tangents):
        a, b = primals
        da, db = tangents
        tie = a == b
        zero = jnp.zeros((), da.dtype)
        share_a = jnp.where(beats(b, a), zero, jnp.where(tie, da / 2, da))
        share_b = jnp.where(beats(a, b), zero, jnp.where(tie, db / 2, db))
        return pick(a, b), share_a + share_b

    def fn(a, b, *, dtype):
        a, b = _c(a, dtype), _c(b, dtype)
        if not jnp.issubdtype(dtype, jnp.inexact):
            return pick(a, b)
        return extreme(a, b)
    fn.__name__ = pick.__name__
    return fn


maximum = op("maximum", saves={"a": "any", "b": "any"})(_extreme(jnp.maximum, jnp.greater))
minimum = op("minimum", saves={"a": "any", "b": "any"})(_extreme(jnp.minimum, jnp.less))


@op("fmax", saves={"a": "any", "b": "any"})
def fmax(a, b, *, dtype):
    # ties and NaN in b give the gradient to a, as PyTorch
    a, b = _c(a, dtype), _c(b, dtype)
    return jnp.where((a >= b) | jnp.isnan(b), a, b)


@op("fmin", saves={"a": "any", "b": "any"})
def fmin(a, b, *, dtype):
    a, b = _c(a, dtype), _c(b, dtype)
    return jnp.where((a <= b) | jnp.isnan(b), a, b)


# ---------------------------------------------------------------- clamps

@op("clamp", grad_fn="ClampBackward1", scalar_slots=False)
def clamp(x, lo, hi, *, dtype):
    # PyTorch's gradient is 1 on the closed interval [min, max] and 0 outside
    x = _c(x, dtype)
    clipped = x
    inside = jnp.ones(x.shape, bool)
    if lo is not None:
        lo = _c(lo, dtype)
        clipped = jnp.maximum(clipped, lo)
        inside = inside & (x >= lo)
    if hi is not None:
        hi = _c(hi, dtype)
        clipped = jnp.minimum(clipped, hi)
        inside = inside & (x <= hi)
    if not jnp.issubdtype(dtype, jnp.inexact):
        return clipped
    return jnp.where(inside, x, lax.stop_gradient(clipped))


@op("clamp_tensor", grad_fn="ClampBackward0", saves={"x": "any", "lo": "any", "hi": "any"})
def clamp_tensor(x, lo, hi, *, dtype, has_lo, has_hi):
    """``clamp`` with tensor bounds; an absent bound is passed as 0 with ``has_*`` False.

    PyTorch routes the gradient to x where ``lo <= x <= hi``, to lo where ``x < lo < hi`` and
    to hi where ``x > hi`` or ``hi < lo``; ``where`` does the routing here.
    """
    x = _c(x, dtype)
    lo = _c(lo, dtype)
    hi = _c(hi, dtype)
    if has_lo and has_hi:
        value = jnp.minimum(jnp.maximum(x, lo), hi)
        x_in = (x >= lo) & (x <= hi)
        to_lo = (x < lo) & (lo < hi)
        to_hi = (x > hi) | (hi < lo)
        return jnp.where(x_in, x, jnp.where(to_lo, lo, jnp.where(to_hi, hi, lax.stop_gradient(value))))
    if has_lo:
        return _clamp_one(x, lo, jnp.maximum(x, lo), x >= lo)
    return _clamp_one(x, hi, jnp.minimum(x, hi), x <= hi)


def _clamp_one(x, bound, value, keep):
    # x's gradient where it is kept (the bound is inclusive), the bound's elsewhere; NaN in x
    # propagates through ``value``
    return jnp.where(keep, x, jnp.where(jnp.isnan(x), lax.stop_gradient(value), bound))


@op("clamp_min_tensor", grad_fn="ClampMinBackward1", saves={"x": "any", "lo": "any"})
def clamp_min_tensor(x, lo, *, dtype):
    x, lo = _c(x, dtype), _c(lo, dtype)
    return _clamp_one(x, lo, jnp.maximum(x, lo), x >= lo)


@op("clamp_max_tensor", grad_fn="ClampMaxBackward1", saves={"x": "any", "hi": "any"})
def clamp_max_tensor(x, hi, *, dtype):
    x, hi = _c(x, dtype), _c(hi, dtype)
    return _clamp_one(x, hi, jnp.minimum(x, hi), x <= hi)


@op("clamp_min", grad_fn="ClampMinBackward0", scalar_slots=False)
def clamp_min(x, lo, *, dtype):
    x = _c(x, dtype)
    lo = lax.stop_gradient(jnp.broadcast_to(_c(lo, dtype), x.shape))
    return _clamp_one(x, lo, jnp.maximum(x, lo), x >= lo)


@op("clamp_max", grad_fn="ClampMaxBackward0", scalar_slots=False)
def clamp_max(x, hi, *, dtype):
    x = _c(x, dtype)
    hi = lax.stop_gradient(jnp.broadcast_to(_c(hi, dtype), x.shape))
    return _clamp_one(x, hi, jnp.minimum(x, hi), x <= hi)
