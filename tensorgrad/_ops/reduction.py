"""Reductions: sums, means, products, extrema, norms and distances, variance, logic.

Full reductions that PyTorch differentiates by sharing the gradient among ties (max, min,
aminmax) get that from JAX's rules; those that pick one index (max with a dim) say so.
"""

import jax
import jax.numpy as jnp
import numpy as np

from .registry import op


# ---------------------------------------------------------------- sums, means, products

@op("sum", saves="none")
def sum_all(x, *, dtype):
    return jnp.sum(x, dtype=dtype)


@op("sum_dim", grad_fn="SumBackward1", saves="none")
def sum_dim(x, *, dims, keepdim, dtype):
    return jnp.sum(x, axis=dims, keepdims=keepdim, dtype=dtype)


@op("nansum")
def nansum(x, *, dims, keepdim, dtype):
    # NaN entries count as 0 and get no gradient
    x = jnp.where(jnp.isnan(x), jnp.zeros_like(x), x) if jnp.issubdtype(x.dtype, jnp.inexact) else x
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


# ---------------------------------------------------------------- extrema

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


@op("aminmax", grad_fn="AminmaxBackward0")
def aminmax(x, *, dim, keepdim):
    # jnp.min/max share the gradient evenly among ties, as PyTorch's aminmax does
    return jnp.min(x, axis=dim, keepdims=keepdim), jnp.max(x, axis=dim, keepdims=keepdim)


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


# ---------------------------------------------------------------- norms and distances

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


@op("norm_dim", grad_fn="NormBackward1", saves="output")
def norm_dim(x, *, p, dims, keepdim):
    """``at::norm(x, p, dims)``, which distances record (gradient 0 where the norm is 0)."""
    return _norm_impl(x, p, dims, keepdim)


def _safe_pnorm(d, p):
    """``||d||_p`` over all entries with PyTorch's gradient (0 where the norm is 0)."""
    a = jnp.abs(d)
    if p == 0:
        return jnp.sum(a != 0).astype(d.dtype) + 0 * jnp.sum(d)
    if p == jnp.inf:
        return jnp.max(a, initial=0.0) if d.size else jnp.zeros((), d.dtype)
    if p == -jnp.inf:
        return jnp.min(a) if d.size else jnp.zeros((), d.dtype)
    total = jnp.sum(a ** p)
    zero = total == 0
    return jnp.where(zero, jnp.zeros_like(total), jnp.where(zero, jnp.ones_like(total), total) ** (1 / p))


@op("dist", grad_fn="DistBackward0")
def dist(a, b, *, p, dtype):
    return _safe_pnorm(jnp.asarray(a, dtype) - jnp.asarray(b, dtype), p)


@op("cdist")
def cdist(x1, x2, *, p):
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    return _cdist_pnorm(diff, p)


@op("pdist", grad_fn="PdistBackward0")
def pdist(x, *, p):
    """The ``p``-norm distances between the rows ``i < j`` of a matrix, in row-major order."""
    i, j = np.triu_indices(x.shape[0], 1)
    return _cdist_pnorm(x[i] - x[j], p)


def _cdist_pnorm(diff, p):
    # the gradient at a zero distance is 0, as in PyTorch
    ad = jnp.abs(diff)
    if p == 0:
        return jnp.sum((diff != 0).astype(diff.dtype), axis=-1)
    if p == float("inf"):
        return jnp.max(ad, axis=-1, initial=0.0)
    if p == 1:
        return jnp.sum(ad, axis=-1)
    total = jnp.sum(ad ** p, axis=-1)
    zero = total == 0
    return jnp.where(zero, 0.0, jnp.where(zero, 1.0, total) ** (1.0 / p)).astype(diff.dtype)


@op("renorm", grad_fn="RenormBackward0")
def renorm(x, *, p, dim, maxnorm):
    """Each slice along ``dim`` whose p-norm exceeds ``maxnorm`` is scaled down to it."""
    axes = tuple(i for i in range(x.ndim) if i != dim)
    a = jnp.abs(x)
    if p == jnp.inf:
        norm = jnp.max(a, axis=axes, keepdims=True)
    else:
        norm = jnp.sum(a ** p, axis=axes, keepdims=True) ** (1 / p)
    factor = jnp.where(norm > maxnorm, maxnorm / (norm + 1e-7), jnp.ones_like(norm))
    return x * factor.astype(x.dtype)


# ---------------------------------------------------------------- statistics

@op("var")
def var(x, *, dims, correction, keepdim):
    return jnp.var(x, axis=dims, ddof=correction, keepdims=keepdim)


@op("std")
def std(x, *, dims, correction, keepdim):
    return jnp.std(x, axis=dims, ddof=correction, keepdims=keepdim)


@op("std_mean", grad_fn="StdMeanBackward0")
def std_mean(x, *, dims, correction, keepdim):
    return (jnp.std(x, axis=dims, ddof=correction, keepdims=keepdim),
            jnp.mean(x, axis=dims, keepdims=keepdim))


@op("var_mean", grad_fn="VarMeanBackward0")
def var_mean(x, *, dims, correction, keepdim):
    return (jnp.var(x, axis=dims, ddof=correction, keepdims=keepdim),
            jnp.mean(x, axis=dims, keepdims=keepdim))


@op("logsumexp")
def logsumexp(x, *, dims, keepdim):
    return jax.scipy.special.logsumexp(x, axis=dims, keepdims=keepdim)


# ---------------------------------------------------------------- logic and counting

@op("all", differentiable=False)
def all_(x, *, dims, keepdim):
    return jnp.all(x, axis=dims, keepdims=keepdim)


@op("any", differentiable=False)
def any_(x, *, dims, keepdim):
    return jnp.any(x, axis=dims, keepdims=keepdim)


@op("count_nonzero", differentiable=False)
def count_nonzero(x, *, dims):
    return jnp.sum(x != 0, axis=dims, dtype=jnp.int64)
