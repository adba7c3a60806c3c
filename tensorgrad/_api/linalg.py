"""Torch-level linear algebra: the ``torch.linalg`` functions (inv, det, solve, cholesky, qr,
svd, eigh, pinv, lstsq, norms, matrix_power, vander, ...) and their top-level aliases (``det``,
``inverse``, ``vander``, ...). ``tensorgrad/linalg.py`` re-exports them (and the products of
``_api/products.py`` that live in ``torch.linalg``) as the public ``tensorgrad.linalg``.

Failures that PyTorch detects from the result (a singular matrix, a matrix that is not
positive-definite) are detected on the host here too and raise ``LinAlgError``.
"""

import builtins

import jax
import numpy as np

from .. import _dtype
from .._ops import elementwise as E
from .._ops import linalg as LD
from .._tensor import Tensor, apply, _wrap, _wrap_dim
from . import creation as C
from . import shape as S
from .conversion import clone
from .creation import eye as _eye
from .cumulative import cumprod as _cumprod
from .elementwise import log as _log, where as _where
from .joining import cat
from .matmul import matmul
from .operands import _named
from .reduction import amax, amin, norm as _norm, sum as _sum, _slice
from .surface import declare


class LinAlgError(RuntimeError):
    """A linear algebra failure detected from the result (``torch.linalg.LinAlgError``)."""

def _is_traced(t):
    return isinstance(t._data, jax.core.Tracer)


def _float_input(name, A):
    if A.dtype.kind < _dtype.FLOAT:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype.c_name}")


def _lapack_dtype(kernel, A):
    """PyTorch's error for half-precision input to a LAPACK-backed CPU kernel (``geqrf_cpu``)."""
    if A.dtype in (_dtype.float16, _dtype.bfloat16):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{A.dtype.c_name}'")


def _low_precision(name, A):
    """PyTorch's error for half-precision input where its check says so (``linalg.inv``)."""
    if A.dtype in (_dtype.float16, _dtype.bfloat16):
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {A.dtype.c_name}")


def _matrices(name, A, square=True):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _float_input(name, A)
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def _all_finite(t):
    return _is_traced(t) or bool(np.all(np.isfinite(np.asarray(t._data))))


# ---------------------------------------------------------------- Vandermonde matrices

@declare("vander")
def vander(x, N=None, increasing=False):
    """Columns ``x**(N-1), ..., x, 1`` (reversed with ``increasing``), built as PyTorch does:
    ones, then the powers written in place with a cumulative product."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    d = _dtype.promote_types(x.dtype, _dtype.int64)     # an integer or bool x gives int64; a complex one stays
    result = C.empty((x.shape[0], n), dtype=d)
    if n > 0:
        result.fill_(1)
        if n > 1:
            _slice(result, 1, 1).copy_(S.unsqueeze(x, 1))
            _slice(result, 1, 1).copy_(_cumprod(_slice(result, 1, 1), 1))
    if not increasing:
        return S.flip(result, (1,))
    return result


@declare("linalg.vander")
def linalg_vander(x, *, N=None):
    """``linalg.vander``: columns ``1, x, ..., x**(N-1)`` over the last axis of ``x`` (batched)."""
    if not (x.dtype in (_dtype.float32, _dtype.float64, _dtype.complex64, _dtype.complex128)
            or (x.dtype.kind == _dtype.INT and x.dtype is not _dtype.bool_)):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{x.dtype.c_name}")
    x_ = S.unsqueeze(x, -1) if x.ndim == 0 else x
    shape = tuple(x_.shape)
    n = shape[-1] if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = _cumprod(S.expand(S.unsqueeze(x_, -1), shape + (n - 1,)), -1)
    ones = C.ones(shape + (1,), dtype=powers.dtype)
    return cat([ones, powers], -1)


# ---------------------------------------------------------------- inverses, determinants, solves

@declare("linalg.inv", out=True)
def inv(A):
    """The inverse of square matrices; a singular matrix raises ``LinAlgError``."""
    _matrices("linalg.inv", A)
    _low_precision("linalg.inv", A)
    result = apply(LD.inv, (A,))
    if not _all_finite(result):
        where = _singular_pivot(A)
        if where is not None:
            batch, i = where
            prefix = "" if batch is None else f"(Batch element {batch}): "
            raise LinAlgError(f"linalg.inv: {prefix}The diagonal element {i} is zero, the inversion could not be "
                              "completed because the input matrix is singular.")
    return result


def _singular_pivot(A):
    """PyTorch's report of a singular matrix (from LAPACK's getrf, as PyTorch computes it): the
    first batch element whose LU factor has a zero on its diagonal, and that element's 1-based
    position; None when every LU factor is nonsingular (the inverse only overflowed)."""
    from scipy.linalg import lapack
    a = np.asarray(A._data)
    flat = a.reshape((-1,) + a.shape[-2:])
    getrf = lapack.get_lapack_funcs("getrf", (flat,))
    for b, m in enumerate(flat):
        info = getrf(m)[-1]
        if info > 0:
            return (b if a.ndim > 2 else None), int(info)
    return None


@declare("det", method=True)
@declare("linalg.det", out=True)
def det(A):
    _matrices("linalg.det", A)
    _lapack_dtype("lu_cpu", A)
    return apply(LD.det, (A,))


@declare("slogdet", "linalg.slogdet", method=True, out=True)
def slogdet(A):
    """``(sign, logabsdet)`` of the determinant (named tuple ``linalg_slogdet``)."""
    _matrices("linalg.slogdet", A)
    _low_precision("linalg.slogdet", A)
    return _named("linalg_slogdet", ("sign", "logabsdet"))(*apply(LD.slogdet, (A,)))


@declare("logdet", method=True)
def logdet(input):
    """``log(det)``: NaN for a negative determinant, ``-inf`` for a zero one."""
    _matrices("linalg.slogdet", input)
    _low_precision("logdet", input)
    sign, logabs = apply(LD.slogdet, (input,))
    if input.dtype.is_complex:      # the complex logarithm: log of the unit sign plus log|det|
        return _log(sign) + logabs
    return _where(sign < 0, float("nan"), logabs)


def _vector_rhs(A, B):
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def check_solve(A, B, left):
    """``linalg.solve``'s checks of ``A`` and ``B`` (PyTorch's messages); whether B is a vector."""
    _matrices("linalg.solve", A)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.c_name} and B of type {B.dtype.c_name} instead")
    vector = _vector_rhs(A, B)
    n = A.shape[-1]
    rows = B.shape[-1] if vector or not left else B.shape[-2]
    if rows != n:
        bshape = f"{B.shape[-1]}x1" if vector else f"{B.shape[-2]}x{B.shape[-1]}"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {bshape})")
    return vector


@declare("linalg.solve", out=True)
def solve(A, B, *, left=True):
    """``X`` with ``A X = B`` (``X A = B`` with ``left=False``); B may be a (batch of) vector."""
    vector = check_solve(A, B, left)
    _lapack_dtype("lu_cpu", A)
    result = apply(LD.solve, (A, B), (bool(left), vector))
    if not _all_finite(result):
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.")
    return result


@declare("linalg.solve_triangular", out=True)
def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """``X`` with ``A X = B`` for a triangular ``A`` (only that triangle is read)."""
    if A.dtype.kind < _dtype.FLOAT:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{A.dtype.c_name}'")
    _matrices("linalg.solve_triangular", A)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.c_name} and B of type {B.dtype.c_name} instead")
    if B.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    return apply(LD.solve_triangular, (A, B), (bool(upper), bool(left), bool(unitriangular)))


@declare("matrix_exp", "linalg.matrix_exp", method=True)
def matrix_exp(A):
    _matrices("linalg.matrix_exp", A)
    return apply(LD.matrix_exp, (A,))


@declare("matrix_power", method=True, out=True)
@declare("linalg.matrix_power", out=True)
def matrix_power(A, n):
    """``A`` to the integer power ``n`` by repeated squaring (``n < 0`` inverts first)."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if n == 0:
        # PyTorch writes the identity into a clone of A (CopyBackwards over CloneBackward0)
        return apply(E.copy_into, (clone(A), _eye(A.shape[-1], dtype=A.dtype)))
    if n < 0:
        A = inv(A)
        n = -n
    if n == 1:
        return clone(A)
    result = None
    z = A
    while n:
        if n & 1:
            result = z if result is None else matmul(z, result)
        n >>= 1
        if n:
            z = matmul(z, z)
    return result


# ---------------------------------------------------------------- decompositions

@declare("linalg.cholesky", out=True)
def cholesky(A, *, upper=False):
    """The Cholesky factor (lower, or upper with ``upper=True``) of Hermitian positive-definite
    matrices; otherwise ``LinAlgError``."""
    _matrices("linalg.cholesky", A)
    _lapack_dtype("cholesky_cpu", A)
    result = apply(LD.cholesky, (A,), (bool(upper),))
    if not _all_finite(result):
        raise LinAlgError("linalg.cholesky: The factorization could not be completed because the input is not "
                          "positive-definite.")
    return result


@declare("linalg.qr", out=True)
def qr(A, mode="reduced"):
    """``(Q, R)`` (named tuple ``linalg_qr``); ``mode`` is ``reduced``, ``complete`` or ``r``."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or "
                           "'complete'")
    _matrices("linalg.qr", A, square=False)
    _lapack_dtype("geqrf_cpu", A)
    q, r = apply(LD.qr, (A,), (mode,))
    if mode == "r":
        q = _wrap(q._data.reshape(0))
    return _named("linalg_qr", ("Q", "R"))(q, r)


@declare("linalg.svd", out=True)
def svd(A, full_matrices=True, *, driver=None):
    """``(U, S, Vh)`` (named tuple ``linalg_svd``) with ``A = U diag(S) Vh``."""
    _matrices("linalg.svd", A, square=False)
    _lapack_dtype("linalg_svd_cpu", A)
    return _named("linalg_svd", ("U", "S", "Vh"))(*apply(LD.svd, (A,), (bool(full_matrices),)))


@declare("linalg.svdvals", out=True)
def svdvals(A, *, driver=None):
    _matrices("linalg.svd", A, square=False)
    _lapack_dtype("linalg_svd_cpu", A)
    return apply(LD.svdvals, (A,))


def _eigh_input(A):
    if A.dtype.kind < _dtype.FLOAT or A.dtype in (_dtype.float16, _dtype.bfloat16):
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{A.dtype.c_name}'")
    _matrices("linalg.eigh", A)


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO == "U"


@declare("linalg.eigh", out=True)
def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices, reading one triangle."""
    upper = _uplo(UPLO)
    _eigh_input(A)
    return _named("linalg_eigh", ("eigenvalues", "eigenvectors"))(*apply(LD.eigh, (A,), (upper,)))


@declare("linalg.eigvalsh", out=True)
def eigvalsh(A, UPLO="L"):
    upper = _uplo(UPLO)
    _eigh_input(A)
    return apply(LD.eigvalsh, (A,), (upper,))


def _tol(value):
    if isinstance(value, Tensor):
        value = value.item()
    return None if value is None else float(value)


@declare("linalg.pinv", out=True)
def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse (singular values below ``max(atol, rtol * smax)`` dropped)."""
    if A.ndim < 2 or A.dtype.kind < _dtype.FLOAT or A.dtype in (_dtype.float16, _dtype.bfloat16):
        raise RuntimeError(f"linalg.pinv({A.dtype.c_name}{{{list(A.shape)}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    return apply(LD.pinv, (A,), (_tol(atol), _tol(rtol), bool(hermitian)))


@declare("pinverse", method=True)
def pinverse(input, rcond=1e-15):
    return pinv(input, rtol=rcond)


@declare("matrix_rank", out=True, numpy_names=False)
@declare("linalg.matrix_rank", out=True)
def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_rank: The input tensor A must have at least 2 dimensions.")
    if A.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    return apply(LD.matrix_rank, (A,), (_tol(atol), _tol(rtol), bool(hermitian)))


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
# when each CPU driver reports residuals (for a tall A)
_RESIDUALS = {"gels": "always", "gelsy": "never", "gelsd": "full_rank", "gelss": "full_rank"}


@declare("linalg.lstsq", out=True)
def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B`` (named tuple ``linalg_lstsq``: solution,
    residuals, rank, singular_values); ``driver`` decides which of the last three are computed,
    as in PyTorch's CPU drivers (default ``gelsy``)."""
    if driver is not None and driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    _matrices("torch.linalg.lstsq", A, square=False)
    if A.dtype in (_dtype.float16, _dtype.bfloat16):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {A.dtype.c_name} and other's dtype {B.dtype.c_name}")
    vector = B.ndim == A.ndim - 1
    if not (vector or B.ndim == A.ndim):
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    if (B.shape[-1] if vector else B.shape[-2]) != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size({-1 if vector else -2})")
    driver = driver or "gelsy"
    r = _tol(rcond)
    if r is None or r < 0:
        r = float(np.finfo(A.dtype.np).eps) * builtins.max(A.shape[-2:])
    sol, residuals = apply(LD.lstsq, (A, B), (r, vector, _RESIDUALS[driver]))
    rank, sv = apply(LD.lstsq_info, (A.detach(),), (r, driver in ("gelsd", "gelss")))
    if driver == "gels":
        rank = _wrap(rank._data.reshape(-1)[:0])
    if residuals.numel() and not _all_finite(residuals):
        residuals = _wrap(residuals._data.reshape(-1)[:0])
    return _named("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))(sol, residuals, rank, sv)


# ---------------------------------------------------------------- norms

@declare("linalg.vector_norm", out=True)
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector ``ord``-norm over all entries or ``dim`` (``LinalgVectorNormBackward0``)."""
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord}")
    d = x.dtype if dtype is None else _dtype.to_dtype(dtype)
    if x.dtype.kind < _dtype.FLOAT or d.kind < _dtype.FLOAT:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{x.dtype.c_name}")
    return _norm(x, p=float(ord), dim=dim, keepdim=keepdim, dtype=dtype)


_MATRIX_ORDS = ("fro", "nuc", 2, -2, 1, -1, float("inf"), float("-inf"))


@declare("linalg.matrix_norm", out=True)
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """Matrix norms over the two dims ``dim``: ``fro``, ``nuc``, ``2``/``-2`` (extreme singular
    values), ``1``/``-1`` (column sums) and ``inf``/``-inf`` (row sums)."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    _float_input("linalg.matrix_norm", A)
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    d0, d1 = (_wrap_dim(d, A.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return _norm(A, p=2, dim=(d0, d1), keepdim=keepdim)
    if ord in ("nuc", 2, -2):
        # the singular values are output 1 of a full SVD node, as in PyTorch
        s = apply(LD.svd, (S.movedim(A, (d0, d1), (-2, -1)),), (False,))[1]
        if ord == "nuc":
            out = _sum(s, -1)
        else:
            out = amax(s, -1) if ord == 2 else amin(s, -1)
        if keepdim:
            out = S.movedim(S.unsqueeze(S.unsqueeze(out, -1), -1), (-2, -1), (d0, d1))
        return out
    # 1 / -1: the extreme column sum; inf / -inf: the extreme row sum
    sum_dim, pick_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = _norm(A, p=1, dim=sum_dim, keepdim=keepdim)
    if not keepdim and pick_dim > sum_dim:
        pick_dim -= 1
    return (amax if ord > 0 else amin)(sums, pick_dim, keepdim=keepdim)


@declare("linalg.norm", out=True)
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``vector_norm`` or ``matrix_norm`` as PyTorch picks: by ``dim``'s length, else by rank."""
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, tuple(dim), keepdim, dtype=dtype)
    if dim is None and ord is not None:
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.ndim != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                               f"{A.ndim}D.")
    if isinstance(ord, str):
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


@declare("norm", method=True, out=True, numpy_names=False)
def torch_norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """``torch.norm``: the vector norm over all elements or ``dim`` (``"fro"`` is the 2-norm), or
    with ``p="nuc"`` the nuclear norm of a matrix (or of the two dims of ``dim``)."""
    if p == "nuc":
        dims = (0, 1) if dim is None and input.ndim == 2 else tuple(range(input.ndim)) if dim is None else dim
        return matrix_norm(input, "nuc", dims, keepdim, dtype=dtype)
    return _norm(input, p, dim, keepdim, dtype)


@declare("linalg.vecdot", out=True)
def vecdot(x, y, *, dim=-1):
    """The dot product of ``x`` and ``y`` along ``dim`` (inputs broadcast)."""
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x.dtype.c_name} and y of type {y.dtype.c_name} instead")
    return _sum(x * y, dim)


@declare("inverse", method=True, out=True)
def inverse(input):
    return inv(input)
