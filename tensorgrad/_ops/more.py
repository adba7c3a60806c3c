"""Single-kernel ops behind ``put``, ``frexp``, ``histogram``, ``isin``, ``Tensor.unfold`` and
``rrelu`` (the composite ops of ``_api/more_ops.py`` are built from existing ops instead).

Each is one pure function of jax arrays; its derivative is JAX's ``vjp`` of it.
"""

import jax.numpy as jnp
from jax import lax

from .registry import op


@op("put", grad_fn="PutBackward0", no_slot=(1,))
def put(x, index, source, *, accumulate):
    """``x`` read as 1-D with ``source`` written (or added) at ``index`` (negative from the end)."""
    flat = x.reshape(-1)
    idx = jnp.where(index < 0, index + flat.shape[0], index).reshape(-1)
    values = source.reshape(-1).astype(x.dtype)
    if not accumulate:
        out = flat.at[idx].set(values)
    elif x.dtype == jnp.bool_:
        out = flat.at[idx].max(values)      # bool addition saturates at True
    else:
        out = flat.at[idx].add(values)
    return out.reshape(x.shape)


@op("frexp", grad_fn="FrexpBackward0")
def frexp(x):
    """``(mantissa, exponent)`` with ``x = mantissa * 2**exponent``; the mantissa's derivative
    is ``2**-exponent`` (PyTorch's ``grad / exponent.exp2()``)."""
    frozen = lax.stop_gradient(x)
    mantissa, exponent = jnp.frexp(frozen)
    scale = jnp.exp2(-exponent.astype(x.dtype))
    return mantissa + (x - frozen) * scale, exponent.astype(jnp.int32)


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


@op("isin", differentiable=False)
def isin(elements, test, *, invert, dtype):
    a = jnp.asarray(elements, dtype)
    b = jnp.asarray(test, dtype).reshape(-1)
    found = jnp.any(a[..., None] == b, axis=-1) if b.size else jnp.zeros(a.shape, bool)
    return ~found if invert else found


@op("unfold", grad_fn="UnfoldBackward0", is_view=True, saves="none")
def unfold(x, *, dim, size, step):
    """Windows of ``size`` entries every ``step`` along ``dim``, as a new last axis."""
    if x.ndim == 0:
        return jnp.broadcast_to(x, (size,))
    n = (x.shape[dim] - size) // step + 1
    starts = jnp.arange(n) * step
    idx = starts[:, None] + jnp.arange(size)[None, :]          # (n, size)
    windows = jnp.take(x, idx.reshape(-1), axis=dim)
    windows = windows.reshape(x.shape[:dim] + (n, size) + x.shape[dim + 1:])
    return jnp.moveaxis(windows, dim + 1, -1)


@op("rrelu_with_noise", grad_fn="RreluWithNoiseBackward0", no_slot=(1,))
def rrelu_with_noise(x, noise, *, training, slope):
    """``x`` above 0; below, ``x`` times its sampled slope (training) or the mean slope."""
    scale = noise.astype(x.dtype) if training else jnp.asarray(slope, x.dtype)
    return jnp.where(x > 0, x, x * scale)


rrelu_with_noise_ = op("rrelu_with_noise_", grad_fn="RreluWithNoiseBackward1", no_slot=(1,))(rrelu_with_noise.fn)


# ---------------------------------------------------------------- Tensor-Scalar arithmetic
# The C++ composites (trapezoid, gradient, cov) call the Scalar overloads: their nodes print
# MulBackward1/DivBackward1 and have no slot for the number. Unlike ``_ops/nn.py``'s versions
# these promote (an integer tensor times 0.5 is float), as the Scalar overloads do.

@op("mul_scalar_promoting", grad_fn="MulBackward1", saves="none", scalar_slots=False)
def mul_scalar(x, *, other, dtype):
    return x.astype(dtype) * jnp.asarray(other, dtype)


@op("div_scalar_promoting", grad_fn="DivBackward1", saves="none", scalar_slots=False)
def div_scalar(x, *, other, dtype):
    return x.astype(dtype) / jnp.asarray(other, dtype)
