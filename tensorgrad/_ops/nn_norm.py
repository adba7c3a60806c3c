"""Neural-network normalization: batch, layer and group norm as single ops."""

import math

import jax.numpy as jnp
from jax import lax

from .registry import op


def _given(a):
    """Optional arrays arrive as shape (0,) when absent (that keeps their slot in the graph)."""
    return a is not None and a.shape != (0,)


def _affine(y, weight, bias, shape):
    if _given(weight):
        y = y * weight.reshape(shape)
    if _given(bias):
        y = y + bias.reshape(shape)
    return y


def _moments(x, axes):
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    return mean, var


@op("native_batch_norm", grad_fn="NativeBatchNormBackward0", no_slot=(3, 4), saves={"x": "any", "weight": "any"},
    grad_reads=("x", "weight"))
def native_batch_norm(x, weight, bias, running_mean, running_var, *, training, eps):
    """Batch normalization over every axis but the channels (axis 1).

    Returns ``(out, batch_mean, batch_var_unbiased)``; in evaluation mode the statistics are
    the running ones and the last two outputs are the running stats themselves.
    ``weight``/``bias`` of shape (0,) mean no affine transform.
    """
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        mean, var = _moments(x, axes)
        n = x.size // x.shape[1]
        stats = (mean.reshape(-1), var.reshape(-1) * (n / max(n - 1, 1)))
    else:
        mean = running_mean.reshape(shape).astype(x.dtype)
        var = running_var.reshape(shape).astype(x.dtype)
        stats = (running_mean, running_var)
    y = (x - mean) * lax.rsqrt(var + eps)
    return (_affine(y, weight, bias, shape),) + tuple(lax.stop_gradient(s) for s in stats)


@op("native_layer_norm", grad_fn="NativeLayerNormBackward0", saves={"x": "any", "weight": "any", "bias": "any"},
    grad_reads=("x", "weight", "bias"))
def native_layer_norm(x, weight, bias, *, ndims, eps):
    """Normalize over the last ``ndims`` axes; ``weight``/``bias`` have those axes' shape."""
    axes = tuple(range(x.ndim - ndims, x.ndim))
    out_dtype = x.dtype
    if _given(weight) and weight.dtype != x.dtype:
        x = x.astype(weight.dtype)      # PyTorch's mixed CPU path: float32 math, the input's dtype out
    mean, var = _moments(x, axes)
    y = (x - mean) * lax.rsqrt(var + eps)
    shape = x.shape[x.ndim - ndims:]
    return _affine(y, weight, bias, shape).astype(out_dtype)


@op("native_group_norm", grad_fn="NativeGroupNormBackward0", saves={"x": "any", "weight": "any"},
    grad_reads={"x": ("x", "weight"), "weight": ("x", "weight")})
def native_group_norm(x, weight, bias, *, groups, eps):
    n, c = x.shape[:2]
    out_dtype = x.dtype
    if _given(weight) and weight.dtype != x.dtype:
        x = x.astype(weight.dtype)      # PyTorch's mixed CPU path: float32 math, the input's dtype out
    g = x.reshape((n, groups, (c // groups) * math.prod(x.shape[2:])))  # no -1: n may be 0
    mean, var = _moments(g, (2,))
    y = ((g - mean) * lax.rsqrt(var + eps)).reshape(x.shape)
    return _affine(y, weight, bias, (1, c) + (1,) * (x.ndim - 2)).astype(out_dtype)
