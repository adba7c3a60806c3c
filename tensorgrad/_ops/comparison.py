"""Comparisons, logical and bitwise ops, and predicates (``isnan``, ``signbit``, ...).

Their outputs carry no gradient (``differentiable=False``). Binary ops receive the promoted
dtype as ``dtype`` and cast inside (as in ``elementwise.py``).
"""

import jax.numpy as jnp

from .registry import op


def _c(x, dtype):
    return jnp.asarray(x, dtype)


# ---------------------------------------------------------------- comparisons and logic

def _compare(name, fn):
    def compare(a, b, *, dtype):
        return fn(_c(a, dtype), _c(b, dtype))
    compare.__name__ = name
    return op(name, differentiable=False)(compare)


eq = _compare("eq", jnp.equal)
ne = _compare("ne", jnp.not_equal)
lt = _compare("lt", jnp.less)
le = _compare("le", jnp.less_equal)
gt = _compare("gt", jnp.greater)
ge = _compare("ge", jnp.greater_equal)
logical_and = _compare("logical_and", jnp.logical_and)
logical_or = _compare("logical_or", jnp.logical_or)
logical_xor = _compare("logical_xor", jnp.logical_xor)
bitwise_and = _compare("bitwise_and", jnp.bitwise_and)
bitwise_or = _compare("bitwise_or", jnp.bitwise_or)
bitwise_xor = _compare("bitwise_xor", jnp.bitwise_xor)


@op("isclose", differentiable=False)
def isclose(a, b, *, dtype, rtol, atol, equal_nan):
    return jnp.isclose(_c(a, dtype), _c(b, dtype), rtol=rtol, atol=atol, equal_nan=equal_nan)


@op("logical_not", differentiable=False)
def logical_not(x):
    return jnp.logical_not(x)


@op("bitwise_not", differentiable=False)
def bitwise_not(x):
    return jnp.invert(x)


def _shift(name, fn):
    def shift(a, b, *, dtype):
        a, b = _c(a, dtype), _c(b, dtype)
        bits = jnp.iinfo(dtype).bits
        # PyTorch gives 0 (left) or the sign fill (right) for shifts past the width
        wide = (b >= bits) | (b < 0)
        safe = jnp.where(wide, jnp.zeros_like(b), b)
        out = fn(a, safe)
        if name == "bitwise_left_shift":
            return jnp.where(wide, jnp.zeros_like(out), out)
        return jnp.where(wide, jnp.where(a < 0, -jnp.ones_like(out), jnp.zeros_like(out)), out)
    shift.__name__ = name
    return op(name, differentiable=False)(shift)


bitwise_left_shift = _shift("bitwise_left_shift", jnp.left_shift)
bitwise_right_shift = _shift("bitwise_right_shift", jnp.right_shift)


# ---------------------------------------------------------------- predicates

@op("isnan", differentiable=False)
def isnan(x):
    return jnp.isnan(x)


@op("isinf", differentiable=False)
def isinf(x):
    return jnp.isinf(x)


@op("isfinite", differentiable=False)
def isfinite(x):
    return jnp.isfinite(x)


@op("isposinf", differentiable=False)
def isposinf(x):
    return jnp.isposinf(x)


@op("isneginf", differentiable=False)
def isneginf(x):
    return jnp.isneginf(x)


@op("signbit", differentiable=False)
def signbit(x):
    return jnp.signbit(x)
