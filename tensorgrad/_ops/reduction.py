"""Reductions: sums, means, products, extrema, norms and distances, variance, logic.

Full reductions that PyTorch differentiates by sharing the gradient among ties (max, min,
aminmax) get that from JAX's rules; those that pick one index (max with a dim) say so.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .registry import op, with_tangent


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


@op("prod", saves={"x": "any", "out": "any"}, grad_reads=("x",))
def prod(x, *, dtype):
    return jnp.prod(x, dtype=dtype)


@op("prod_dim", grad_fn="ProdBackward1", saves={"x": "any", "out": "any"}, grad_reads=("x",))
def prod_dim(x, *, dim, keepdim, dtype):
    if x.ndim == 0:
        return x.astype(dtype)      # dim 0 (or -1) of a 0-d tensor is the tensor itself
    return jnp.prod(x, axis=dim, keepdims=keepdim, dtype=dtype)


# ---------------------------------------------------------------- extrema

@op("max", grad_fn="MaxBackward1", saves={"x": "any", "out": "any"})
def max_all(x):
    # JAX's reduce_max shares the gradient evenly among ties, as PyTorch's full max does
    return jnp.max(x)


@op("min", grad_fn="MinBackward1", saves={"x": "any", "out": "any"})
def min_all(x):
    return jnp.min(x)


@op("amax", saves={"x": "any", "out": "any"})
def amax(x, *, dims, keepdim):
    return jnp.max(x, axis=dims, keepdims=keepdim)


@op("amin", saves={"x": "any", "out": "any"})
def amin(x, *, dims, keepdim):
    return jnp.min(x, axis=dims, keepdims=keepdim)


@op("aminmax", grad_fn="AminmaxBackward0", saves={"x": "any", "out0": "any", "out1": "any"})
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


@op("max_dim", grad_fn="MaxBackward0", saves={"out1": "any"})
def max_dim(x, *, dim, keepdim):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    return _extreme_dim(x, dim, keepdim, jnp.argmax)


@op("min_dim", grad_fn="MinBackward0", saves={"out1": "any"})
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

def _norm_value(x, p, dims, keepdim):
    ax = jnp.abs(x)
    if p == float("inf"):
        return jnp.max(ax, axis=dims, keepdims=keepdim, initial=0.0)
    if p == float("-inf"):
        return jnp.min(ax, axis=dims, keepdims=keepdim)
    if p == 0:
        return jnp.sum((x != 0).astype(ax.dtype), axis=dims, keepdims=keepdim)
    if p == 1:
        return jnp.sum(ax, axis=dims, keepdims=keepdim)
    sq = jnp.sum(ax ** p, axis=dims, keepdims=keepdim)
    zero = sq == 0
    root = jnp.where(zero, 1.0, sq) ** (1.0 / p)
    return jnp.where(zero, 0.0, root).astype(ax.dtype)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3))
def _norm_impl(x, p, dims, keepdim):
    return _norm_value(x, p, dims, keepdim)


@_norm_impl.defjvp
def _norm_jvp(p, dims, keepdim, primals, tangents):
    """PyTorch's ``norm_backward``, written as the JVP whose transpose it is.

    Read from the output back: the cotangent is scaled (by ``norm ** (1 - p)`` or, masked to 0
    where the norm is 0, by ``1 / norm ** (p - 1)``) and multiplied by a per-entry factor that
    is 0 at zero entries (``sgn``) or masked there; so a zero vector, or a zero entry under
    ``p < 1``, gets gradient 0, and the ``inf`` norms share among the entries that attain them.
    """
    (x,), (t,) = primals, tangents
    norm = _norm_impl(x, p, dims, keepdim)
    wide = norm if keepdim or x.ndim == 0 else jnp.expand_dims(norm, _axes(dims, x.ndim))
    ax = jnp.abs(x)
    zero = jnp.zeros_like(x)

    # ``v`` below is a per-entry factor times the tangent. Of a complex ``x`` the (real) norm moves
    # by the real part of conj(factor) * t, which is that of factor * conj(t)
    complex_x = jnp.issubdtype(x.dtype, jnp.complexfloating)
    if complex_x:
        t = jnp.conj(t)

    def reduce(v):
        v = jnp.sum(v, axis=dims, keepdims=keepdim)
        return v.real if complex_x else v

    if p == 0:
        return norm, jnp.zeros_like(norm)
    if p == 1:
        return norm, reduce(jnp.sign(x) * t)
    if p == 2:
        return norm, reduce(jnp.where(wide == 0, zero, x / wide) * t)
    if p in (float("inf"), float("-inf")):
        hit = ((ax == wide) | jnp.isnan(ax)).astype(ax.dtype)
        return norm, reduce(jnp.sign(x) * hit * t) / jnp.sum(hit, axis=dims, keepdims=keepdim)
    if p < 1:
        scaled = jnp.sign(x) * jnp.where(x == 0, zero, ax ** (p - 1))
        return norm, reduce(scaled * t) * norm ** (1 - p)
    scaled = jnp.sign(x) * ax ** (p - 1) if p < 2 else x * ax ** (p - 2)
    zero_norm = norm == 0
    safe = jnp.where(zero_norm, jnp.ones_like(norm), norm)
    return norm, jnp.where(zero_norm, jnp.zeros_like(norm), reduce(scaled * t) / safe ** (p - 1))


def _axes(dims, ndim):
    return tuple(range(ndim)) if dims is None else tuple(d % ndim for d in dims)


@op("norm", grad_fn="LinalgVectorNormBackward0", saves={"x": "any", "out": "any"})
def vector_norm(x, *, p, dims, keepdim, dtype):
    """``dtype`` is the result's (real) dtype; a complex ``x`` is computed at its complex twin."""
    return _norm_impl(x.astype(_computed_at(x, dtype)), p, dims, keepdim)


def _computed_at(x, real_dtype):
    """The dtype a norm of ``x`` with a ``real_dtype`` result is computed at: a complex ``x`` at
    the complex dtype of that precision (casting it to a real one would drop the imaginary part)."""
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        return jnp.complex128 if np.dtype(real_dtype) == np.float64 else jnp.complex64
    return real_dtype


@op("total_norm", differentiable=False)
def total_norm(*grads, p, max_norm):
    """``clip_grad_norm_``'s numbers in one program: the ``p``-norm (finite ``p``) of the
    ``p``-norms of ``grads`` (each in its real dtype, stacked in their promoted one) and, for a
    ``max_norm``, the clipping factor ``min(max_norm / (total + 1e-6), 1)``."""
    norms = [_norm_value(g, p, None, False) for g in grads]
    total = _norm_value(jnp.stack(norms), p, None, False)
    if max_norm is None:
        return total
    return total, jnp.minimum(max_norm / (total + 1e-6), 1.0)


@op("norm_dim", grad_fn="NormBackward1", saves={"x": "any", "out": "any"})
def norm_dim(x, *, p, dims, keepdim):
    """``at::norm(x, p, dims)``, which distances record (gradient 0 where the norm is 0)."""
    return _norm_impl(x, p, dims, keepdim)


@op("dist", grad_fn="DistBackward0", saves={"a": "any", "b": "any", "out": "any"})
def dist(a, b, *, p, dtype):
    # PyTorch's gradient is norm_backward's at the difference
    return _norm_impl(jnp.asarray(a, dtype) - jnp.asarray(b, dtype), p, None, False)


@op("cdist", saves={"x1": "any", "x2": "any", "out": "any"}, grad_reads=("x1", "x2"))
def cdist(x1, x2, *, p):
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    return _cdist_pnorm(diff, p)


@op("pdist", grad_fn="PdistBackward0", saves={"x": "any", "out": "any"}, grad_reads=("x",))
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


def _std_tangent(v, std, t):
    # PyTorch's std_backward: grad / (2 * std), masked to 0 where std is 0 (constant values)
    zero = std == 0
    return jnp.where(zero, jnp.zeros_like(std), t / (2 * jnp.where(zero, jnp.ones_like(std), std)))


_std_of_var = with_tangent(jnp.sqrt, _std_tangent)


def _std(x, dims, correction, keepdim):
    return _std_of_var(jnp.var(x, axis=dims, ddof=correction, keepdims=keepdim))


@op("std", saves={"x": "any", "out": "any"})
def std(x, *, dims, correction, keepdim):
    return _std(x, dims, correction, keepdim)


@op("std_mean", grad_fn="StdMeanBackward0", saves={"x": "any", "out0": "any"})
def std_mean(x, *, dims, correction, keepdim):
    return _std(x, dims, correction, keepdim), jnp.mean(x, axis=dims, keepdims=keepdim)


@op("var_mean", grad_fn="VarMeanBackward0")
def var_mean(x, *, dims, correction, keepdim):
    return (jnp.var(x, axis=dims, ddof=correction, keepdims=keepdim),
            jnp.mean(x, axis=dims, keepdims=keepdim))


@op("logsumexp", saves={"x": "any", "out": "any"})
def logsumexp(x, *, dims, keepdim):
    return jax.scipy.special.logsumexp(x, axis=dims, keepdims=keepdim)


# ---------------------------------------------------------------- logic and counting

@op("all", differentiable=False)
def all_(x, *, dims, keepdim):
    out = jnp.all(x, axis=dims, keepdims=keepdim)
    return out.astype(x.dtype) if x.dtype == jnp.uint8 else out     # PyTorch's all/any of uint8 are uint8


@op("any", differentiable=False)
def any_(x, *, dims, keepdim):
    out = jnp.any(x, axis=dims, keepdims=keepdim)
    return out.astype(x.dtype) if x.dtype == jnp.uint8 else out


@op("count_nonzero", differentiable=False)
def count_nonzero(x, *, dims):
    return jnp.sum(x != 0, axis=dims, dtype=jnp.int64)
