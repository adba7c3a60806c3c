"""More single-kernel ops: the margin losses PyTorch runs as one kernel, order statistics,
scatter-into-a-slice ops, legacy Cholesky solvers, distances and special functions.

Each is one pure function of jax arrays; its derivative is JAX's ``vjp`` of it, except where
PyTorch's derivative differs at special points (then ``jnp.where`` routes it).
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy import special as jsp

from . import linalg_decomp as LD
from .nn_loss import reduce
from .registry import op
from .special import x_times_log


# ---------------------------------------------------------------- margin losses

@op("soft_margin_loss", grad_fn="SoftMarginLossBackward0", no_slot=(1,))
def soft_margin_loss(x, target, *, reduction):
    # computed in the input's dtype (PyTorch writes into an input-typed output)
    t = jnp.broadcast_to(target, x.shape).astype(x.dtype)
    return reduce(jnp.log1p(jnp.exp(-x * t)), reduction).astype(x.dtype)


def _hinge(z):
    # the gradient passes only where z > 0, as PyTorch's kernels
    return jnp.where(z > 0, z, jnp.zeros_like(z))


@op("multilabel_margin_loss", grad_fn="MultilabelMarginLossBackward0", no_slot=(1,))
def multilabel_margin_loss(x, target, *, reduction, out_shape):
    """``x`` and ``target`` are (N, C) or (C,); a sample's targets are the entries before its
    first negative one. ``out_shape`` is the unreduced loss's shape."""
    c = x.shape[-1] if x.ndim else 1
    x = x.reshape(-1, c)
    target = target.reshape(-1, c)
    valid = jnp.cumprod(target >= 0, axis=-1).astype(bool)
    safe = jnp.where(valid, target, 0)
    is_target = jnp.any(jax.nn.one_hot(safe, c, dtype=bool) & valid[..., None], axis=-2)
    picked = jnp.take_along_axis(x, safe, axis=-1)
    z = 1 - picked[..., :, None] + x[..., None, :]
    mask = valid[..., :, None] & ~is_target[..., None, :]
    loss = jnp.sum(jnp.where(mask, _hinge(z), jnp.zeros_like(z)), axis=(-2, -1)) / c
    return reduce(loss.reshape(out_shape), reduction)


@op("multi_margin_loss", grad_fn="MultiMarginLossBackward0", no_slot=(1, 2))
def multi_margin_loss(x, target, weight, *, reduction, p, margin, out_shape):
    """``x`` is (N, C) or (C,), ``target`` holds N class indices; ``weight`` of shape (0,) means
    no class weights. ``out_shape`` is the unreduced loss's shape."""
    c = x.shape[-1] if x.ndim else 1
    x = x.reshape(-1, c)
    target = target.reshape(-1)
    picked = jnp.take_along_axis(x, target[:, None], axis=-1)
    z = _hinge(margin - picked + x)
    h = z if p == 1 else z * z
    if weight.shape[0]:
        h = h * weight[target][:, None]
    others = jnp.arange(c)[None, :] != target[:, None]
    loss = jnp.sum(jnp.where(others, h, jnp.zeros_like(h)), axis=-1) / c
    return reduce(loss.reshape(out_shape), reduction)


# ---------------------------------------------------------------- special functions (torch.special)

def _unary(name, fn, grad_fn):
    def unary(x, *, dtype):
        return fn(jnp.asarray(x, dtype))
    unary.__name__ = name
    return op(name, grad_fn=grad_fn)(unary)


@jax.custom_jvp
def _entr(x):
    neg = jnp.full_like(x, -jnp.inf)
    safe = jnp.where(x > 0, x, jnp.ones_like(x))
    return jnp.where(x > 0, -safe * jnp.log(safe), jnp.where(x == 0, jnp.zeros_like(x), jnp.where(x < 0, neg, x)))


@_entr.defjvp
def _entr_jvp(primals, tangents):
    # PyTorch: -(log(x) + 1) everywhere (inf at 0, NaN below 0)
    (x,), (dx,) = primals, tangents
    return _entr(x), -(jnp.log(x) + 1) * dx


entr = _unary("special_entr", _entr, "SpecialEntrBackward0")
ndtri = _unary("special_ndtri", jsp.ndtri, "SpecialNdtriBackward0")
log_ndtr = _unary("special_log_ndtr", jsp.log_ndtr, "SpecialLogNdtrBackward0")
i0e = _unary("special_i0e", jsp.i0e, "SpecialI0EBackward0")
i1 = _unary("special_i1", jsp.i1, "SpecialI1Backward0")
i1e = _unary("special_i1e", jsp.i1e, "SpecialI1EBackward0")
erfcx = _unary("special_erfcx", jsp.erfcx, "SpecialErfcxBackward0")


_xlog1py = x_times_log(jnp.log1p, lambda y: 1 + y)


@op("special_xlog1py", grad_fn="SpecialXlog1PyBackward0")
def xlog1py(a, b, *, dtype):
    return _xlog1py(jnp.asarray(a, dtype), jnp.asarray(b, dtype))


@op("special_xlog1py_scalar_self", grad_fn="SpecialXlog1PyBackward1", scalar_slots=False)
def xlog1py_scalar_self(b, a, *, dtype):
    return _xlog1py(jnp.asarray(a, dtype), jnp.asarray(b, dtype))


@op("special_xlog1py_scalar_other", grad_fn="SpecialXlog1PyBackward2", scalar_slots=False)
def xlog1py_scalar_other(a, b, *, dtype):
    return _xlog1py(jnp.asarray(a, dtype), jnp.asarray(b, dtype))


# ---------------------------------------------------------------- order statistics, norms

@op("kthvalue", grad_fn="KthvalueBackward0")
def kthvalue(x, *, k, dim, keepdim):
    """The k-th smallest entry along ``dim`` (NaN sorts last) and its index."""
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    idx = lax.index_in_dim(jnp.argsort(x, axis=dim, stable=True), k - 1, dim, keepdims=True)
    values = jnp.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        values, idx = jnp.squeeze(values, dim), jnp.squeeze(idx, dim)
    return values, idx.astype(jnp.int64)


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


# ---------------------------------------------------------------- writing into a slice (out of place)

@op("select_scatter", grad_fn="SelectScatterBackward0", saves="none")
def select_scatter(x, src, *, dim, index):
    idx = [slice(None)] * x.ndim
    idx[dim] = index
    return x.at[tuple(idx)].set(src.astype(x.dtype))


@op("slice_scatter", grad_fn="SliceScatterBackward0", saves="none")
def slice_scatter(x, src, *, dim, start, end, step):
    idx = [slice(None)] * x.ndim
    idx[dim] = slice(start, end, step)
    return x.at[tuple(idx)].set(src.astype(x.dtype))


@op("diagonal_scatter", grad_fn="DiagonalScatterBackward0", saves="none")
def diagonal_scatter(x, src, *, offset, dim1, dim2):
    n1, n2 = x.shape[dim1], x.shape[dim2]
    size = max(0, min(n1 + min(offset, 0), n2 - max(offset, 0)))
    i = jnp.arange(size) - min(offset, 0)
    j = jnp.arange(size) + max(offset, 0)
    # move the two dims last so the diagonal is the last axis of src, as PyTorch's diagonal()
    moved = jnp.moveaxis(x, (dim1, dim2), (-2, -1))
    moved = moved.at[..., i, j].set(src.astype(x.dtype))
    return jnp.moveaxis(moved, (-2, -1), (dim1, dim2))


# ---------------------------------------------------------------- legacy Cholesky ops

def _tri(L, upper):
    return jnp.triu(L) if upper else jnp.tril(L)


def _mH(a):
    return jnp.conj(jnp.swapaxes(a, -1, -2))


def _cho_solve(B, L, upper):
    """``A X = B`` with ``A = L L^H`` (or ``U^H U``), reading one triangle of the factor."""
    T = _tri(L, upper)
    lower = _mH(T) if upper else T
    y = jax.scipy.linalg.solve_triangular(lower, B, lower=True)
    return jax.scipy.linalg.solve_triangular(_mH(lower), y, lower=False)


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _cholesky_solve(B, L, upper):
    return _cho_solve(B, L, upper)


def _cholesky_solve_fwd(B, L, upper):
    X = _cho_solve(B, L, upper)
    return X, (X, L)


def _cholesky_solve_bwd(upper, res, g):
    # PyTorch's formula: gB = A^-1 g; gL = -(gB X^H + X gB^H) L (or -U (...) when upper), dense
    X, L = res
    gB = _cho_solve(g, L, upper)
    common = gB @ _mH(X)
    common = common + _mH(common)
    gL = -(L @ common) if upper else -(common @ L)
    return gB, gL


_cholesky_solve.defvjp(_cholesky_solve_fwd, _cholesky_solve_bwd)


@op("cholesky_solve", grad_fn="CholeskySolveBackward0")
def cholesky_solve(B, L, *, upper):
    return _cholesky_solve(B, L, upper)


def _cho_inverse(L, upper):
    eye = jnp.broadcast_to(jnp.eye(L.shape[-1], dtype=L.dtype), L.shape)
    return _cho_solve(eye, L, upper)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def _cholesky_inverse(L, upper):
    return _cho_inverse(L, upper)


def _cholesky_inverse_fwd(L, upper):
    R = _cho_inverse(L, upper)
    return R, (R, L)


def _cholesky_inverse_bwd(upper, res, g):
    # PyTorch's formula: gL = -R (g + g^H) R L (or -U R (g + g^H) R when upper)
    R, L = res
    common = R @ (g + _mH(g)) @ R
    return (-(L @ common) if upper else -(common @ L)),


_cholesky_inverse.defvjp(_cholesky_inverse_fwd, _cholesky_inverse_bwd)


@op("cholesky_inverse", grad_fn="CholeskyInverseBackward0")
def cholesky_inverse(L, *, upper):
    return _cholesky_inverse(L, upper)


@op("cholesky_legacy", grad_fn="CholeskyBackward0", saves="output")
def cholesky_legacy(a, *, upper):
    return LD.cholesky.fn(a, upper=upper)
