"""Reductions: sums, means, extrema, norms."""

import jax
import jax.numpy as jnp

from .registry import op


@op("sum", saves="none")
def sum_all(x, *, dtype):
    return jnp.sum(x, dtype=dtype)


@op("sum_dim", grad_fn="SumBackward1", saves="none")
def sum_dim(x, *, dims, keepdim, dtype):
    return jnp.sum(x, axis=dims, keepdims=keepdim, dtype=dtype)


@op("mean", saves="none")
def mean_all(x, *, dtype):
    return jnp.mean(x.astype(dtype))


@op("mean_dim", grad_fn="MeanBackward1", saves="none")
def mean_dim(x, *, dims, keepdim, dtype):
    return jnp.mean(x.astype(dtype), axis=dims, keepdims=keepdim)


@op("prod")
def prod(x, *, dtype):
    return jnp.prod(x, dtype=dtype)


@op("prod_dim", grad_fn="ProdBackward1")
def prod_dim(x, *, dim, keepdim, dtype):
    return jnp.prod(x, axis=dim, keepdims=keepdim, dtype=dtype)


@op("max", grad_fn="MaxBackward1")
def max_all(x):
    # JAX's reduce_max shares the gradient evenly among ties, as PyTorch's full max does
    return jnp.max(x)


@op("min", grad_fn="MinBackward1")
def min_all(x):
    return jnp.min(x)


@op("amax")
def amax(x, *, dims, keepdim):
    return jnp.max(x, axis=dims, keepdims=keepdim)


@op("amin")
def amin(x, *, dims, keepdim):
    return jnp.min(x, axis=dims, keepdims=keepdim)


def _extreme_dim(x, dim, keepdim, arg):
    idx = arg(x, axis=dim, keepdims=True)
    # the gradient goes to the one chosen index only, as in PyTorch
    values = jnp.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        values = jnp.squeeze(values, dim)
        idx = jnp.squeeze(idx, dim)
    return values, idx.astype(jnp.int64)


@op("max_dim", grad_fn="MaxBackward0")
def max_dim(x, *, dim, keepdim):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    return _extreme_dim(x, dim, keepdim, jnp.argmax)


@op("min_dim", grad_fn="MinBackward0")
def min_dim(x, *, dim, keepdim):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    return _extreme_dim(x, dim, keepdim, jnp.argmin)


@op("argmax", differentiable=False)
def argmax(x, *, dim, keepdim):
    if dim is None or x.ndim == 0:
        out = jnp.argmax(x.reshape(-1))
        return (out.reshape((1,) * x.ndim) if keepdim else out).astype(jnp.int64)
    return jnp.argmax(x, axis=dim, keepdims=keepdim).astype(jnp.int64)


@op("argmin", differentiable=False)
def argmin(x, *, dim, keepdim):
    if dim is None or x.ndim == 0:
        out = jnp.argmin(x.reshape(-1))
        return (out.reshape((1,) * x.ndim) if keepdim else out).astype(jnp.int64)
    return jnp.argmin(x, axis=dim, keepdims=keepdim).astype(jnp.int64)


def _norm_impl(x, p, dims, keepdim):
    ax = jnp.abs(x)
    if p == float("inf"):
        return jnp.max(ax, axis=dims, keepdims=keepdim)
    if p == float("-inf"):
        return jnp.min(ax, axis=dims, keepdims=keepdim)
    if p == 0:
        return jnp.sum((x != 0).astype(ax.dtype), axis=dims, keepdims=keepdim)
    if p == 1:
        return jnp.sum(ax, axis=dims, keepdims=keepdim)
    sq = jnp.sum(ax ** p, axis=dims, keepdims=keepdim)
    # safe root: where the sum is 0 the gradient is 0, as in PyTorch
    zero = sq == 0
    root = jnp.where(zero, 1.0, sq) ** (1.0 / p)
    return jnp.where(zero, 0.0, root).astype(ax.dtype)


@op("norm", grad_fn="LinalgVectorNormBackward0", saves="output")
def vector_norm(x, *, p, dims, keepdim, dtype):
    return _norm_impl(x.astype(dtype), p, dims, keepdim)


@op("logsumexp")
def logsumexp(x, *, dims, keepdim):
    return jax.scipy.special.logsumexp(x, axis=dims, keepdims=keepdim)


@op("all", differentiable=False)
def all_(x, *, dims, keepdim):
    return jnp.all(x, axis=dims, keepdims=keepdim)


@op("any", differentiable=False)
def any_(x, *, dims, keepdim):
    return jnp.any(x, axis=dims, keepdims=keepdim)


@op("cumsum", saves="none")
def cumsum(x, *, dim, dtype):
    if x.ndim == 0:
        return x.astype(dtype)
    return jnp.cumsum(x, axis=dim, dtype=dtype)


@op("var")
def var(x, *, dims, correction, keepdim):
    return jnp.var(x, axis=dims, ddof=correction, keepdims=keepdim)


@op("std")
def std(x, *, dims, correction, keepdim):
    return jnp.std(x, axis=dims, ddof=correction, keepdims=keepdim)
