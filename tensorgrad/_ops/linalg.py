"""Linear algebra ops: inverses, determinants, solves, decompositions, pseudo-inverse and
least squares. All act on the last two dims and batch over the rest.

Decompositions that read one triangle of a symmetric input (cholesky, eigh) give PyTorch's
symmetric gradient: the input passes through ``_sym_grad``, which keeps its value and
symmetrizes what flows back. Matrix products live in ``products.py``.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy import linalg as jsl

from .registry import op


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def _mH(a):
    return jnp.conj(jnp.swapaxes(a, -1, -2))


def _sym_grad(a):
    """``a`` unchanged, with the gradient that reaches it made symmetric."""
    sym = (a + _mT(a)) / 2
    return lax.stop_gradient(a) + (sym - lax.stop_gradient(sym))


# ---------------------------------------------------------------- inverses and solves

@op("inv", grad_fn="LinalgInvExBackward0", saves="output")
def inv(a):
    return jnp.linalg.inv(a)


@op("det", grad_fn="LinalgDetBackward0", saves={"a": "any", "out": "any"})
def det(a):
    if a.shape[-1] == 0:        # the empty product; its gradient is empty
        return jnp.ones(a.shape[:-2], a.dtype) + jnp.sum(a, (-2, -1))
    return jnp.linalg.det(a)


@op("slogdet", grad_fn="LinalgSlogdetBackward0", saves={"a": "any", "out0": "any"})
def slogdet(a):
    sign, logabs = jnp.linalg.slogdet(a)
    return lax.stop_gradient(sign), logabs


@op("solve", grad_fn="LinalgSolveExBackward0", saves={"a": "any", "out": "any"})
def solve(a, b, *, left, vector):
    if not left:
        a = _mT(a)
        b = b if vector else _mT(b)
    if vector:
        out = jnp.linalg.solve(a, b[..., None])[..., 0]
    else:
        a_b = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        out = jnp.linalg.solve(jnp.broadcast_to(a, a_b + a.shape[-2:]), jnp.broadcast_to(b, a_b + b.shape[-2:]))
    return out if left or vector else _mT(out)


@op("solve_triangular", grad_fn="LinalgSolveTriangularBackward0", saves={"a": "any", "out": "any"})
def solve_triangular(a, b, *, upper, left, unitriangular):
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    # only the named triangle is read, so only it gets a gradient
    a = jnp.triu(a) if upper else jnp.tril(a)
    return lax.linalg.triangular_solve(a, b, left_side=left, lower=not upper, transpose_a=False,
                                       unit_diagonal=unitriangular)


@op("matrix_exp", grad_fn="LinalgMatrixExpBackward0")
def matrix_exp(a):
    if a.dtype in (jnp.float16, jnp.bfloat16):     # JAX's expm has no half kernel: computed in float32
        return jsl.expm(a.astype(jnp.float32)).astype(a.dtype)
    return jsl.expm(a)


# ---------------------------------------------------------------- decompositions

@op("cholesky", grad_fn="LinalgCholeskyExBackward0", saves="output")
def cholesky(a, *, upper):
    lower = jnp.linalg.cholesky(_sym_grad(a), symmetrize_input=False)
    return _mT(lower) if upper else lower


@op("qr", grad_fn="LinalgQrBackward0", saves={"out0": "any", "out1": "any"})
def qr(a, *, mode):
    if mode == "r":
        return jnp.zeros(a.shape[:-2] + (0,), a.dtype), jnp.linalg.qr(a, mode="r")
    return tuple(jnp.linalg.qr(a, mode=mode))


@op("svd", grad_fn="LinalgSvdBackward0", saves={"out0": "any", "out1": "any", "out2": "any"})
def svd(a, *, full_matrices):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    if not full_matrices or a.shape[-1] == a.shape[-2]:
        return u, s, vh
    # the extra singular vectors get no gradient (PyTorch ignores them in backward too)
    k = s.shape[-1]
    uf, _, vhf = jnp.linalg.svd(lax.stop_gradient(a), full_matrices=True)
    return (jnp.concatenate([u, uf[..., k:]], axis=-1), s, jnp.concatenate([vh, vhf[..., k:, :]], axis=-2))


@op("svdvals", grad_fn="LinalgSvdBackward0", saves={"out": "any"})
def svdvals(a):
    return jnp.linalg.svd(a, compute_uv=False)


@op("eigh", grad_fn="LinalgEighBackward0", saves={"out0": "any", "out1": "any"})
def eigh(a, *, upper):
    # LAPACK reads one triangle; PyTorch's gradient is the one of the Hermitian matrix that
    # triangle stands for (``V diag(gL) V^H`` for the eigenvalues), whatever the other triangle holds
    w, v = jnp.linalg.eigh(_as_hermitian(a, upper), UPLO="U" if upper else "L", symmetrize_input=True)
    return w, v


def _as_hermitian(a, upper):
    """The Hermitian matrix of ``a``'s lower (or upper) triangle, with the gradient reaching
    ``a`` as if ``a`` were that matrix."""
    t = _mH(a) if upper else a
    strict = jnp.tril(t, -1)
    h = strict + _mH(strict) + jnp.real(jnp.diagonal(t, 0, -2, -1))[..., None] * jnp.eye(a.shape[-1], dtype=a.dtype)
    return lax.stop_gradient(h) + (a - lax.stop_gradient(a))


@op("eigvalsh", grad_fn="LinalgEighBackward0", saves={"out": "any"})
def eigvalsh(a, *, upper):
    return eigh.fn(a, upper=upper)[0]


def _tolerance(s, shape, atol, rtol):
    smax = jnp.max(s, axis=-1, keepdims=True) if s.shape[-1] else jnp.zeros(s.shape[:-1] + (1,), s.dtype)
    if rtol is None:
        rtol = 0.0 if atol is not None else jnp.finfo(s.dtype).eps * max(shape[-2:])
    return jnp.maximum(0.0 if atol is None else atol, rtol * smax)


def _pinv_value(a, atol, rtol, hermitian):
    if hermitian:
        # PyTorch reads the lower triangle only
        w, v = jnp.linalg.eigh(a, UPLO="L", symmetrize_input=False)
        keep = jnp.abs(w) > _tolerance(jnp.abs(w), a.shape, atol, rtol)
        inv_w = jnp.where(keep, 1 / jnp.where(keep, w, 1), 0)
        return (v * inv_w[..., None, :]) @ _mH(v)
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    keep = s > _tolerance(s, a.shape, atol, rtol)
    inv_s = jnp.where(keep, 1 / jnp.where(keep, s, 1), 0)
    return _mH(vh) @ (inv_s[..., :, None] * _mH(u))


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3))
def _pinv(a, atol, rtol, hermitian):
    return _pinv_value(a, atol, rtol, hermitian)


@_pinv.defjvp
def _pinv_jvp(atol, rtol, hermitian, primals, tangents):
    """The pseudo-inverse's derivative at ``a`` itself (PyTorch's, whether or not ``a`` is the
    Hermitian matrix its lower triangle stands for):
    ``dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P``."""
    (a,), (da,) = primals, tangents
    p = _pinv(a, atol, rtol, hermitian)
    ph, dah = _mH(p), _mH(da)
    dp = -(p @ da @ p) + p @ ph @ (dah - dah @ a @ p) + (dah - p @ a @ dah) @ ph @ p
    return p, dp


@op("pinv", grad_fn="LinalgPinvBackward0", saves={"a": "any", "out": "any"})
def pinv(a, *, atol, rtol, hermitian):
    return _pinv(a, atol, rtol, hermitian)


@op("matrix_rank", differentiable=False)
def matrix_rank(a, *, atol, rtol, hermitian):
    s = jnp.abs(jnp.linalg.eigvalsh(a)) if hermitian else jnp.linalg.svd(a, compute_uv=False)
    return jnp.sum(s > _tolerance(s, a.shape, atol, rtol), axis=-1).astype(jnp.int64)


@op("lstsq", grad_fn="LinalgLstsqBackward0", saves={"a": "any", "b": "any", "out0": "any"})
def lstsq(a, b, *, rcond, vector, residuals):
    """``(solution, residuals)``. ``residuals`` says when the driver computes them for a tall A:
    ``"always"`` (gels: from its QR factorization, even for a rank-deficient A),
    ``"full_rank"`` (gelsd/gelss: NaN marks a rank-deficient A, and the caller empties them) or
    ``"never"`` (gelsy); a wide or square A has none."""
    bm = b[..., None] if vector else b
    x = jnp.linalg.pinv(a, rtol=rcond) @ bm
    m, n = a.shape[-2:]
    if residuals == "never" or m <= n:
        return (x[..., 0] if vector else x), jnp.zeros((0,), a.dtype)
    fitted = jnp.sum((a @ x - bm) ** 2, axis=-2)
    if residuals == "always":
        # what gels reports: the squared norm of the part of B outside span(Q[:, :n])
        q = jnp.linalg.qr(lax.stop_gradient(a), mode="complete")[0]
        outside = jnp.sum((_mH(q[..., n:]) @ lax.stop_gradient(bm)) ** 2, axis=-2)
        fitted = outside + (fitted - lax.stop_gradient(fitted))
    else:
        s = jnp.linalg.svd(lax.stop_gradient(a), compute_uv=False)
        rank = jnp.sum(s > rcond * jnp.max(s, axis=-1, keepdims=True), axis=-1)
        fitted = jnp.where(jnp.all(rank == n), fitted, jnp.nan)
    return (x[..., 0] if vector else x), fitted


@op("lstsq_info", differentiable=False)
def lstsq_info(a, *, rcond, with_singular_values):
    """``(rank, singular_values)`` of lstsq (no gradient; empty values unless computed)."""
    s = jnp.linalg.svd(a, compute_uv=False)
    rank = jnp.sum(s > rcond * jnp.max(s, axis=-1, keepdims=True), axis=-1).astype(jnp.int64)
    return rank, s if with_singular_values else jnp.zeros((0,), a.dtype)


# ---------------------------------------------------------------- legacy Cholesky ops

def _tri(L, upper):
    return jnp.triu(L) if upper else jnp.tril(L)


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


@op("cholesky_solve", grad_fn="CholeskySolveBackward0", saves={"B": "any", "L": "any", "out": "any"})
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


@op("cholesky_inverse", grad_fn="CholeskyInverseBackward0", saves={"L": "any", "out": "any"})
def cholesky_inverse(L, *, upper):
    return _cholesky_inverse(L, upper)


@op("cholesky_legacy", grad_fn="CholeskyBackward0", saves="output")
def cholesky_legacy(a, *, upper):
    return cholesky.fn(a, upper=upper)
