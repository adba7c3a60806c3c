"""Factorizations and the solves that read them: LU (``lu_factor``, ``lu``, ``lu_unpack``,
``lu_solve``), the ``_ex`` variants' ``info`` (``solve_ex``, ``inv_ex``, ``cholesky_ex``),
``triangular_solve``, Householder QR (``geqrf``, ``householder_product``, ``ormqr``) and LDL
(``ldl_factor``, ``ldl_solve``).

Pivots are LAPACK's: 1-based row interchanges, int32. ``info`` is LAPACK's too: for LU the
1-based position of the first exact zero on U's diagonal, for Cholesky the order of the first
leading minor that is not positive-definite, 0 when there is none.
"""

import jax
import jax.numpy as jnp
from jax import lax

from .linalg import _mH, _mT, cholesky as _cholesky, inv as _inv, solve as _solve
from .registry import op


# ---------------------------------------------------------------- LU

def _lu(a):
    """``(LU, pivots (1-based, int32), permutation)`` of ``P A = L U`` with partial pivoting."""
    m, n = a.shape[-2:]
    k = min(m, n)
    if k == 0 or a.size == 0:
        return (a, jnp.ones(a.shape[:-2] + (k,), jnp.int32),
                jnp.broadcast_to(jnp.arange(m, dtype=jnp.int32), a.shape[:-2] + (m,)))
    lu, pivots, perm = lax.linalg.lu(a)
    return lu, pivots + 1, perm


def _lu_info(lu):
    """getrf's ``info``: the 1-based index of the first zero on U's diagonal, else 0."""
    zero = jnp.diagonal(lu, axis1=-2, axis2=-1) == 0
    if zero.shape[-1] == 0:
        return jnp.zeros(zero.shape[:-1], jnp.int32)
    return jnp.where(jnp.any(zero, -1), jnp.argmax(zero, -1) + 1, 0).astype(jnp.int32)


def _unpack(lu):
    """``(L, U)`` from a packed LU: L unit lower trapezoidal (m x k), U upper (k x n)."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = jnp.tril(lu[..., :, :k], -1) + jnp.eye(m, k, dtype=lu.dtype)
    U = jnp.triu(lu[..., :k, :])
    return L, U


def _permutation_matrix(perm, dtype):
    """``P`` with ``A = P L U`` from the row order ``perm`` (``A[perm] = L U``)."""
    m = perm.shape[-1]
    return (perm[..., None, :] == jnp.arange(m, dtype=perm.dtype)[:, None]).astype(dtype)


def _perm_from_pivots(pivots, m):
    """The row order of ``m`` rows after LAPACK's 1-based interchanges ``pivots``."""
    if pivots.shape[-1] == 0:
        return jnp.broadcast_to(jnp.arange(m, dtype=jnp.int32), pivots.shape[:-1] + (m,))
    return lax.linalg.lu_pivots_to_permutation(pivots.astype(jnp.int32) - 1, m)


@op("lu_factor", grad_fn="LinalgLuFactorExBackward0", saves={"out0": "any", "out1": "any"})
def lu_factor(a):
    """``(LU, pivots, info)``."""
    lu, pivots, _ = _lu(a)
    return lu, pivots, _lu_info(lax.stop_gradient(lu))


@op("lu", grad_fn="LinalgLuBackward0", saves={"out0": "any", "out1": "any", "out2": "any"})
def lu(a):
    """``(L, U, perm)``: the unpacked factors and the row order (``P`` is built from it)."""
    lu_, _, perm = _lu(a)
    L, U = _unpack(lu_)
    return L, U, perm


@op("lu_permutation", differentiable=False)
def lu_permutation(pivots, *, m, dtype):
    """``P`` (of ``dtype``) from LAPACK pivots."""
    return _permutation_matrix(_perm_from_pivots(pivots, m), dtype)


@op("permutation_matrix", differentiable=False)
def permutation_matrix(perm, *, dtype):
    return _permutation_matrix(perm, dtype)


@op("lu_unpack", grad_fn="LuUnpackBackward0", saves={}, no_slot=(1,))
def lu_unpack(lu_, pivots, *, data):
    """``(L, U)`` of a packed LU (``pivots`` is only checked by the caller); without ``data``
    both are empty, still outputs of the node as in PyTorch."""
    if not data:
        empty = jnp.zeros((0,), lu_.dtype)
        return empty, empty
    return _unpack(lu_)


def _lu_solve_left(lu_, perm, b, adjoint):
    """``A X = B`` (or ``A^H X = B``) with ``A = P L U``; batch shapes already broadcast."""
    L, U = _unpack(lu_)
    if not adjoint:
        pb = jnp.take_along_axis(b, perm[..., :, None], axis=-2)
        y = lax.linalg.triangular_solve(L, pb, left_side=True, lower=True, unit_diagonal=True)
        return lax.linalg.triangular_solve(U, y, left_side=True, lower=False)
    y = lax.linalg.triangular_solve(U, b, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
    x = lax.linalg.triangular_solve(L, y, left_side=True, lower=True, unit_diagonal=True, transpose_a=True,
                                    conjugate_a=True)
    inverse = jnp.argsort(perm, axis=-1)
    return jnp.take_along_axis(x, inverse[..., :, None], axis=-2)


@op("lu_solve", grad_fn="LinalgLuSolveBackward0", saves={"a": "any", "pivots": "any", "out": "any"}, no_slot=(1,))
def lu_solve(a, pivots, b, *, left, adjoint):
    """``X`` with ``A X = B`` (``A^H X = B`` with ``adjoint``; ``X A = B`` without ``left``),
    where ``a`` and ``pivots`` are ``lu_factor``'s."""
    n = a.shape[-1]
    batch = jnp.broadcast_shapes(a.shape[:-2], pivots.shape[:-1], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    perm = _perm_from_pivots(jnp.broadcast_to(pivots, batch + pivots.shape[-1:]), n)
    if n == 0 or b.size == 0:
        return b + jnp.zeros((), a.dtype)
    if left:
        return _lu_solve_left(a, perm, b, adjoint)
    # X A = B  <=>  A^H X^H = B^H
    return _mH(_lu_solve_left(a, perm, _mH(b), not adjoint))


# ---------------------------------------------------------------- the _ex variants' info

def _cholesky_info(a):
    """potrf's ``info`` of the lower triangle of ``a``: the order of the first leading minor
    that is not positive-definite (a pivot that is not > 0, or NaN), else 0. An unblocked
    Cholesky, one column per step."""
    n = a.shape[-1]
    rows = jnp.arange(n)
    if n == 0:
        return jnp.zeros(a.shape[:-2], jnp.int32)

    def column(j, state):
        L, info = state
        v = a[..., :, j] - jnp.einsum("...ik,...k->...i", L, jnp.conj(L[..., j, :]))
        d = jnp.real(jnp.take(v, j, axis=-1))
        bad = ~(d > 0)
        info = jnp.where((info == 0) & bad, j + 1, info)
        scale = jnp.sqrt(jnp.where(bad, 1, d))
        col = jnp.where(rows >= j, v / scale[..., None], 0)
        return L.at[..., :, j].set(col), info

    start = (jnp.zeros_like(a), jnp.zeros(a.shape[:-2], jnp.int32))
    return lax.fori_loop(0, n, column, start)[1]


@op("cholesky_ex", grad_fn="LinalgCholeskyExBackward0", saves={"out0": "any"})
def cholesky_ex(a, *, upper):
    """``(L, info)``; L is NaN where the factorization failed."""
    lower_part = _mH(a) if upper else a
    return _cholesky.fn(a, upper=upper), _cholesky_info(lax.stop_gradient(lower_part))


@op("inv_ex", grad_fn="LinalgInvExBackward0", saves={"out0": "any"})
def inv_ex(a):
    """``(inverse, info)``, ``info`` from the LU factorization of ``a``."""
    return _inv.fn(a), _lu_info(_lu(lax.stop_gradient(a))[0])


@op("solve_ex", grad_fn="LinalgSolveExBackward0", saves={"a": "any", "out0": "any"})
def solve_ex(a, b, *, left, vector):
    """``(result, info)``, ``info`` from the LU factorization of ``a``."""
    return _solve.fn(a, b, left=left, vector=vector), _lu_info(_lu(lax.stop_gradient(a))[0])


# ---------------------------------------------------------------- triangular_solve

@op("triangular_solve", grad_fn="TriangularSolveBackward0", saves={"b": "any", "a": "any", "out0": "any"})
def triangular_solve(b, a, *, upper, transpose, unitriangular):
    """``(X, A)`` with ``op(A) X = B``, ``op`` the transpose with ``transpose``; only A's
    triangle (without its diagonal when ``unitriangular``) is read. A is returned broadcast."""
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    if unitriangular:
        t = jnp.triu(a, 1) if upper else jnp.tril(a, -1)
    else:
        t = jnp.triu(a) if upper else jnp.tril(a)
    if a.shape[-1] == 0 or b.size == 0:
        return b + jnp.zeros((), a.dtype), a
    x = lax.linalg.triangular_solve(t, b, left_side=True, lower=not upper, transpose_a=transpose,
                                    unit_diagonal=unitriangular)
    return x, a


# ---------------------------------------------------------------- Householder QR

def _reflector(a, i):
    """The ``i``-th Householder vector stored below the diagonal of column ``i`` of ``a``."""
    m = a.shape[-2]
    rows = jnp.arange(m)
    col = lax.dynamic_index_in_dim(a, i, axis=-1, keepdims=False)
    return jnp.where(rows > i, col, jnp.where(rows == i, 1, 0).astype(a.dtype))


def _reflect_left(x, v, tau):
    """``(I - tau v v^H) x``."""
    return x - tau[..., None, None] * v[..., :, None] * jnp.einsum("...i,...ij->...j", jnp.conj(v), x)[..., None, :]


def _reflect_right(x, v, tau):
    """``x (I - tau v v^H)``."""
    return x - tau[..., None, None] * jnp.einsum("...ij,...j->...i", x, v)[..., :, None] * jnp.conj(v)[..., None, :]


def _apply_q(a, tau, c, left, adjoint):
    """``op(Q) C`` (or ``C op(Q)``) with ``Q = H_0 H_1 ... H_{k-1}``, ``H_i = I - tau_i v_i v_i^H``."""
    k = tau.shape[-1]
    # Q C applies H_{k-1} first; Q^H C applies H_0^H first; C Q applies H_0 first
    forward = left == adjoint

    def step(j, x):
        i = j if forward else k - 1 - j
        v = _reflector(a, i)
        t = lax.dynamic_index_in_dim(tau, i, axis=-1, keepdims=False)
        t = jnp.conj(t) if adjoint else t
        return _reflect_left(x, v, t) if left else _reflect_right(x, v, t)

    return lax.fori_loop(0, k, step, c)


@op("householder_product", grad_fn="LinalgHouseholderProductBackward0")
def householder_product(a, tau):
    """The first n columns of ``H_0 ... H_{k-1}`` (``orgqr``)."""
    batch = jnp.broadcast_shapes(a.shape[:-2], tau.shape[:-1])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    tau = jnp.broadcast_to(tau, batch + tau.shape[-1:])
    m, n = a.shape[-2:]
    eye = jnp.broadcast_to(jnp.eye(m, n, dtype=a.dtype), a.shape)
    return _apply_q(a, tau, eye, True, False)


@op("ormqr", grad_fn="OrmqrBackward0")
def ormqr(a, tau, c, *, left, transpose):
    """``op(Q) C`` (``left``) or ``C op(Q)``, ``op`` the adjoint with ``transpose``."""
    batch = jnp.broadcast_shapes(a.shape[:-2], tau.shape[:-1], c.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    tau = jnp.broadcast_to(tau, batch + tau.shape[-1:])
    c = jnp.broadcast_to(c, batch + c.shape[-2:])
    return _apply_q(a, tau, c, left, transpose)


def _raise_no_derivative(name):
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


@jax.custom_vjp
def _geqrf(a):
    if a.shape[-1] == 0 or a.shape[-2] == 0:
        return a, jnp.zeros(a.shape[:-2] + (0,), a.dtype)
    h, tau = jnp.linalg.qr(a, mode="raw")
    return _mT(h), tau


_geqrf.defvjp(lambda a: (_geqrf(a), None), lambda res, g: _raise_no_derivative("geqrf"))


@op("geqrf", grad_fn="GeqrfBackward0", saves={"a": "any"})
def geqrf(a):
    """``(a, tau)``: R above the diagonal, the Householder vectors below it (PyTorch defines
    no derivative: backward raises)."""
    return _geqrf(a)


# ---------------------------------------------------------------- LDL (Bunch-Kaufman, LAPACK's sytf2)

_BK_ALPHA = (1 + 17 ** 0.5) / 8


def _swap_trailing(a, k, i, j):
    """Interchange rows and columns ``i`` and ``j`` (both >= k) of the trailing block ``a[k:, k:]``."""
    n = a.shape[-1]
    idx = jnp.arange(n)
    p = jnp.where(idx == i, j, jnp.where(idx == j, i, idx))
    trailing = (idx[:, None] >= k) & (idx[None, :] >= k)
    return jnp.where(trailing, a[p][:, p], a)


def _symmetric_update(a, mask, delta):
    """``a - delta`` on the lower triangle of ``mask``, mirrored to the upper (exactly symmetric)."""
    lower = jnp.tril(jnp.where(mask, a - delta, a))
    full = lower + jnp.tril(lower, -1).T
    return jnp.where(mask, full, a)


def _ldl_one(a):
    """``(LD, pivots, info)`` of one symmetric matrix (its lower triangle), as LAPACK's dsytf2
    with ``uplo='L'``: the same pivot choices, interchanges and update order."""
    n = a.shape[-1]
    idx = jnp.arange(n)
    a = jnp.tril(a) + jnp.tril(a, -1).T

    def step(state):
        k, a, pivots, info = state
        col = jnp.abs(a[:, k])
        absakk = col[k]
        below = jnp.where(idx > k, col, -1)
        imax = jnp.argmax(below)
        colmax = jnp.where(k < n - 1, below[imax], 0)
        # the largest off-diagonal entry of row/column imax within the trailing block
        row = jnp.where((idx >= k) & (idx != imax), jnp.abs(a[imax]), -1)
        rowmax = jnp.max(row)
        zero = (jnp.maximum(absakk, colmax) == 0) | jnp.isnan(absakk)
        keep = zero | (absakk >= _BK_ALPHA * colmax) | (absakk >= _BK_ALPHA * colmax * (colmax / rowmax))
        swap1 = ~keep & (jnp.abs(a[imax, imax]) >= _BK_ALPHA * rowmax)
        two = ~keep & ~swap1
        kp = jnp.where(keep, k, imax)
        kk = jnp.where(two, k + 1, k)
        a = lax.cond(kp != kk, lambda a: _swap_trailing(a, k, kk, kp), lambda a: a, a)
        info = jnp.where((info == 0) & zero, k + 1, info)

        def one_by_one(a):
            d11 = 1 / a[k, k]
            x = jnp.where(idx > k, a[:, k], 0)
            mask = (idx[:, None] > k) & (idx[None, :] > k)
            a = _symmetric_update(a, mask, x[:, None] * (d11 * x)[None, :])
            scaled = jnp.where(idx > k, a[:, k] * d11, a[:, k])
            return a.at[:, k].set(scaled).at[k, :].set(jnp.where(idx > k, scaled, a[k, :]))

        def two_by_two(a):
            d21 = a[k + 1, k]
            d11 = a[k + 1, k + 1] / d21
            d22 = a[k, k] / d21
            t = 1 / (d11 * d22 - 1)
            d21 = t / d21
            ck, ck1 = a[:, k], a[:, k + 1]
            rows = idx > k + 1
            wk = jnp.where(rows, d21 * (d11 * ck - ck1), 0)
            wkp1 = jnp.where(rows, d21 * (d22 * ck1 - ck), 0)
            mask = rows[:, None] & rows[None, :]
            lower = jnp.tril(jnp.where(mask, a - ck[:, None] * wk[None, :] - ck1[:, None] * wkp1[None, :], a))
            a = jnp.where(mask, lower + jnp.tril(lower, -1).T, a)
            a = a.at[:, k].set(jnp.where(rows, wk, a[:, k])).at[:, k + 1].set(jnp.where(rows, wkp1, a[:, k + 1]))
            return a

        a = lax.cond(zero, lambda a: a, lambda a: lax.cond(two, two_by_two, one_by_one, a), a)
        pivot = jnp.where(two, -(kp + 1), kp + 1).astype(jnp.int32)
        pivots = pivots.at[k].set(pivot)
        pivots = jnp.where(two & (idx == k + 1), pivot, pivots)
        return k + jnp.where(two, 2, 1), a, pivots, info

    start = (jnp.asarray(0), a, jnp.zeros(n, jnp.int32), jnp.asarray(0, jnp.int32))
    _, a, pivots, info = lax.while_loop(lambda s: s[0] < n, step, start)
    return jnp.tril(a), pivots, info


def _batched(fn, a, core_dims):
    """``fn`` of one problem mapped over the leading batch dims of ``a``."""
    for _ in range(a.ndim - core_dims):
        fn = jax.vmap(fn)
    return fn(a)


def _ldl_factor(a):
    n = a.shape[-1]
    if n == 0 or a.size == 0:
        return a, jnp.zeros(a.shape[:-1], jnp.int32), jnp.zeros(a.shape[:-2], jnp.int32)
    return _batched(_ldl_one, a, 2)


def _without_derivative(fn, name):
    """``fn`` whose backward raises as PyTorch's ``NotImplemented`` node for ``aten::name``."""
    @jax.custom_vjp
    def f(*args):
        return fn(*args)

    def f_bwd(residuals, g):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    f.defvjp(lambda *args: (f(*args), None), f_bwd)
    return f


@op("ldl_factor", grad_fn="NotImplemented", saves="none")
def ldl_factor(a):
    """``(LD, pivots, info)``; PyTorch defines no derivative (backward raises)."""
    return _ldl_factor_nd(a)


def _ldl_solve_one(ld, pivots, b):
    """``A X = B`` from one ``ldl_factor`` (LAPACK's dsytrs, ``uplo='L'``)."""
    n = ld.shape[-1]
    idx = jnp.arange(n)

    def swap_rows(b, i, j):
        p = jnp.where(idx == i, j, jnp.where(idx == j, i, idx))
        return b[p]

    def forward(state):
        k, b = state
        piv = pivots[k]

        def one(b):
            b = swap_rows(b, k, piv - 1)
            b = b - jnp.where(idx > k, ld[:, k], 0)[:, None] * b[k][None, :]
            return b.at[k].set(b[k] / ld[k, k])

        def two(b):
            b = swap_rows(b, k + 1, -piv - 1)
            rows = idx > k + 1
            b = b - jnp.where(rows, ld[:, k], 0)[:, None] * b[k][None, :] \
                - jnp.where(rows, ld[:, k + 1], 0)[:, None] * b[k + 1][None, :]
            akm1k = ld[k + 1, k]
            akm1 = ld[k, k] / akm1k
            ak = ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1 = b[k] / akm1k
            bk = b[k + 1] / akm1k
            return b.at[k].set((ak * bkm1 - bk) / denom).at[k + 1].set((akm1 * bk - bkm1) / denom)

        return k + jnp.where(piv > 0, 1, 2), lax.cond(piv > 0, one, two, b)

    def backward(state):
        k, b = state
        piv = pivots[k]

        def one(b):
            b = b.at[k].add(-(jnp.where(idx > k, ld[:, k], 0) @ b))
            return swap_rows(b, k, piv - 1)

        def two(b):
            b = b.at[k].add(-(jnp.where(idx > k, ld[:, k], 0) @ b))
            b = b.at[k - 1].add(-(jnp.where(idx > k, ld[:, k - 1], 0) @ b))
            return swap_rows(b, k, -piv - 1)

        return k - jnp.where(piv > 0, 1, 2), lax.cond(piv > 0, one, two, b)

    _, b = lax.while_loop(lambda s: s[0] < n, forward, (jnp.asarray(0), b))
    _, b = lax.while_loop(lambda s: s[0] >= 0, backward, (jnp.asarray(n - 1), b))
    return b


@op("ldl_solve", grad_fn="NotImplemented", saves="none", no_slot=(1,))
def ldl_solve(ld, pivots, b):
    """``X`` with ``A X = B`` from ``ldl_factor``'s ``(LD, pivots)``; no derivative (PyTorch's)."""
    return _ldl_solve_nd(ld, pivots.astype(jnp.int32), b)


def _ldl_solve(ld, pivots, b):
    batch = jnp.broadcast_shapes(ld.shape[:-2], pivots.shape[:-1], b.shape[:-2])
    ld = jnp.broadcast_to(ld, batch + ld.shape[-2:])
    pivots = jnp.broadcast_to(pivots, batch + pivots.shape[-1:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    if ld.shape[-1] == 0 or b.size == 0:
        return b
    fn = _ldl_solve_one
    for _ in batch:
        fn = jax.vmap(fn)
    return fn(ld, pivots, b)


_ldl_factor_nd = _without_derivative(_ldl_factor, "linalg_ldl_factor_ex")
_ldl_solve_nd = _without_derivative(_ldl_solve, "linalg_ldl_solve")
