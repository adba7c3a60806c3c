"""Torch-level factorizations: LU (``linalg.lu_factor``/``lu_factor_ex``/``lu``/``lu_solve``,
``torch.lu``, ``lu_solve``, ``lu_unpack``), the ``_ex`` functions that report failures in an
``info`` tensor (``solve_ex``, ``inv_ex``, ``cholesky_ex``), ``triangular_solve``, Householder
QR (``geqrf``, ``householder_product``/``orgqr``, ``ormqr``), and the compositions
``linalg.cond``, ``tensorinv`` and ``tensorsolve``.

``info`` is computed by the op itself (in a compiled step too); ``check_errors`` reads it on
the host and raises PyTorch's error for the first failing batch element.
"""

import builtins
import math
import warnings

import numpy as np

from .. import _dtype
from .._ops import linalg_factor as LF
from .._ops import views as V
from .._tensor import apply
from . import creation as C
from . import linalg as LA
from . import reduction as R
from . import shape as S
from .operands import _named
from .surface import declare


def _deprecated(message):
    warnings.warn(message, UserWarning, stacklevel=3)


def _first_failure(info):
    """``(batch element or None, info value)`` of the first nonzero ``info``, or None (also
    inside a trace, where the values are not known)."""
    if LA._is_traced(info):
        return None
    values = np.asarray(info._data)
    flat = values.reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size == 0:
        return None
    return (int(bad[0]) if values.ndim else None), int(flat[bad[0]])


def _prefix(batch):
    return "" if batch is None else f"(Batch element {batch}): "


def _lapack_input(name, kernel, A, square=True):
    """PyTorch's checks of a LAPACK routine's input: a float matrix (batch)."""
    if A.ndim < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    if A.dtype not in (_dtype.float32, _dtype.float64, _dtype.complex64, _dtype.complex128):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{A.dtype.c_name}'")


def _no_pivoting(pivot):
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


# ---------------------------------------------------------------- LU

_LU_FACTOR_EX = ("LU", "pivots", "info")


def _lu_factor_ex(name, A, pivot, check_errors):
    _lapack_input("torch.lu_factor" if name != "linalg.lu" else name, "lu_cpu", A)
    _no_pivoting(pivot)
    LU, pivots, info = apply(LF.lu_factor, (A,))
    if check_errors:
        failure = _first_failure(info)
        if failure is not None:
            batch, i = failure
            raise RuntimeError(f"torch.{name}: {_prefix(batch)}U[{i},{i}] is zero and using it on lu_solve would "
                               "result in a division by zero. If you still want to perform the factorization, "
                               "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return LU, pivots, info


@declare("linalg.lu_factor", out=True)
def lu_factor(A, *, pivot=True):
    """``(LU, pivots)`` (named tuple ``linalg_lu_factor``) of ``A = P L U``; pivots are LAPACK's
    1-based row interchanges (int32). A zero on U's diagonal raises."""
    LU, pivots, _ = _lu_factor_ex("linalg.lu_factor", A, pivot, True)
    return _named("linalg_lu_factor", ("LU", "pivots"))(LU, pivots)


@declare("linalg.lu_factor_ex", out=True)
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``(LU, pivots, info)``: ``info`` is the 1-based index of U's first zero diagonal entry, or 0."""
    return _named("linalg_lu_factor_ex", _LU_FACTOR_EX)(*_lu_factor_ex("linalg.lu_factor_ex", A, pivot, check_errors))


@declare("lu")
def torch_lu(A, pivot=True, get_infos=False):
    """Deprecated ``torch.lu``: ``(LU, pivots)``, with ``info`` too under ``get_infos`` (it never
    raises for a singular matrix)."""
    _deprecated("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
                "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                "torch.linalg.lu_factor_ex(A, compute_pivots)")
    LU, pivots, info = _lu_factor_ex("lu_factor", A, pivot, False)
    if get_infos:
        return _named("_lu_with_info", _LU_FACTOR_EX)(LU, pivots, info)
    return LU, pivots


@declare(method=("lu",))
def tensor_lu(self, pivot=True, get_infos=False):
    """``Tensor.lu``: ``torch.lu``, its three results as a plain tuple."""
    return tuple(torch_lu(self, pivot, get_infos))


@declare("linalg.lu", out=True)
def lu(A, *, pivot=True):
    """``(P, L, U)`` (named tuple ``linalg_lu``) with ``A = P L U``; ``P`` carries no gradient."""
    _lapack_input("linalg.lu", "lu_cpu", A)
    _no_pivoting(pivot)
    L, U, perm = apply(LF.lu, (A,))
    P = apply(LF.permutation_matrix, (perm,), (A._data.dtype,))
    return _named("linalg_lu", ("P", "L", "U"))(P, L, U)


def _check_pivots(name, LU, pivots, message):
    if pivots.dtype is not _dtype.int32:
        raise RuntimeError(message)
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError(f"{name}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots.shape)} instead")


def _pivots_in_range(pivots, m, low_message, high_message):
    if LA._is_traced(pivots) or pivots.numel() == 0:
        return
    values = np.asarray(pivots._data)
    if values.min() < 1:
        raise RuntimeError(low_message)
    if values.max() > m:
        raise RuntimeError(high_message)


@declare("lu_unpack", out=True)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``(P, L, U)`` (named tuple ``lu_unpack``) from ``lu_factor``'s output; an unrequested
    part is an empty tensor."""
    if LU_data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    if LU_pivots.dtype is not _dtype.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    m, n = LU_data.shape[-2:]
    range_message = ("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass "
                     "the result of lu_factor?")
    if unpack_pivots:
        if tuple(LU_pivots.shape) != tuple(LU_data.shape[:-2]) + (min(m, n),):
            raise RuntimeError(range_message)
        _pivots_in_range(LU_pivots, m, range_message, range_message)
    L, U = apply(LF.lu_unpack, (LU_data, LU_pivots), (bool(unpack_data),))
    if unpack_pivots:
        P = apply(LF.lu_permutation, (LU_pivots,), (m, LU_data._data.dtype))
    else:
        P = C.empty((0,), dtype=LU_data.dtype)
    return _named("lu_unpack", ("P", "L", "U"))(P, L, U)


@declare("linalg.lu_solve", out=True)
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """``X`` with ``A X = B`` (``A^H X = B`` with ``adjoint``, ``X A = B`` with ``left=False``)
    from ``A``'s ``lu_factor``."""
    LA._float_input("torch.linalg.lu_solve", LU)
    if LU.ndim < 2:
        raise RuntimeError("torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {LU.shape[-1]} matrices")
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    n = LU.shape[-1]
    rows = B.shape[-2] if left else B.shape[-1]
    if rows != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if LU.dtype is not B.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{LU.dtype.c_name} and B of type {B.dtype.c_name} instead")
    if pivots.dtype is not _dtype.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if pivots.ndim == 0 or pivots.shape[-1] != n:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots "
                           f"with shape {list(pivots.shape)} instead")
    _pivots_in_range(pivots, n, "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass "
                     "the result of lu_factor?", "Pivots given to lu_solve must all be smaller or equal to "
                     "LU.size(-2). Did you properly pass the result of lu_factor?")
    return apply(LF.lu_solve, (LU, pivots, B), (bool(left), bool(adjoint)))


@declare("lu_solve", method=True, out=True)
def torch_lu_solve(input, LU_data, LU_pivots):
    """Deprecated ``torch.lu_solve(B, LU, pivots)``: ``linalg.lu_solve(LU, pivots, B)``."""
    _deprecated("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
                "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
                "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    return lu_solve(LU_data, LU_pivots, input)


# ---------------------------------------------------------------- the _ex functions

@declare("linalg.solve_ex", out=True)
def solve_ex(A, B, *, left=True, check_errors=False):
    """``(result, info)`` (named tuple ``linalg_solve_ex``): ``linalg.solve`` that reports a
    singular ``A`` in ``info`` (LU's) instead of raising."""
    vector = LA.check_solve(A, B, left)
    LA._lapack_dtype("lu_cpu", A)
    result, info = apply(LF.solve_ex, (A, B), (bool(left), vector))
    if check_errors:
        failure = _first_failure(info)
        if failure is not None:
            raise LA.LinAlgError(f"torch.linalg.solve_ex: {_prefix(failure[0])}The solver failed because the input "
                                 "matrix is singular.")
    return _named("linalg_solve_ex", ("result", "info"))(result, info)


@declare("linalg.inv_ex", out=True)
def inv_ex(A, *, check_errors=False):
    """``(inverse, info)`` (named tuple ``linalg_inv_ex``); ``info`` is LU's."""
    LA._matrices("linalg.inv", A)
    LA._low_precision("linalg.inv", A)
    inverse, info = apply(LF.inv_ex, (A,))
    if check_errors:
        failure = _first_failure(info)
        if failure is not None:
            batch, i = failure
            raise LA.LinAlgError(f"linalg.inv_ex: {_prefix(batch)}The diagonal element {i} is zero, the inversion "
                                 "could not be completed because the input matrix is singular.")
    return _named("linalg_inv_ex", ("inverse", "info"))(inverse, info)


@declare("linalg.cholesky_ex", out=True)
def cholesky_ex(A, *, upper=False, check_errors=False):
    """``(L, info)`` (named tuple ``linalg_cholesky_ex``): ``info`` is the order of the first
    leading minor that is not positive-definite, or 0. Where ``info`` is not 0, ``L`` is NaN
    (LAPACK leaves a partial factor there)."""
    LA._matrices("linalg.cholesky", A)
    LA._lapack_dtype("cholesky_cpu", A)
    L, info = apply(LF.cholesky_ex, (A,), (bool(upper),))
    if check_errors:
        failure = _first_failure(info)
        if failure is not None:
            batch, i = failure
            raise LA.LinAlgError(f"linalg.cholesky_ex: {_prefix(batch)}The factorization could not be completed "
                                 f"because the input is not positive-definite (the leading minor of order {i} is "
                                 "not positive-definite).")
    return _named("linalg_cholesky_ex", ("L", "info"))(L, info)


# ---------------------------------------------------------------- triangular_solve

@declare("triangular_solve", method=True, out=True)
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """Deprecated ``(solution, cloned_coefficient)`` (named tuple ``triangular_solve``) with
    ``op(A) X = input``; ``A`` is returned as a copy (broadcast to the batch)."""
    _deprecated("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed "
                "in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not "
                "return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced "
                "with\nX = torch.linalg.solve_triangular(A, B).")
    if input.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{input.ndim} dimensions instead")
    if A.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
                           f"{A.ndim} dimensions instead")
    if input.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {input.dtype.c_name} and A "
                           f"of type {A.dtype.c_name} instead.")
    if A.dtype.kind < _dtype.FLOAT:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{A.dtype.c_name}'")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} "
                           "matrices")
    if A.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {A.shape[-1]} by "
                           f"{A.shape[-1]} but each b matrix is {input.shape[-2]} by {input.shape[-1]}")
    solution, coefficient = apply(LF.triangular_solve, (input, A), (bool(upper), bool(transpose), bool(unitriangular)))
    return _named("triangular_solve", ("solution", "cloned_coefficient"))(solution, coefficient)


# ---------------------------------------------------------------- Householder QR

def _householder_input(name, kernel, A, tau):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if tau.ndim < 1:
        raise RuntimeError(f"{name}: tau must have at least 1 dimension.")
    if A.dtype.kind < _dtype.FLOAT or A.dtype in (_dtype.float16, _dtype.bfloat16):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{A.dtype.c_name}'")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{name}: tau dtype {tau.dtype.c_name} does not match input dtype {A.dtype.c_name}")
    if A.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {A.ndim}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")


@declare("orgqr", method=True, out=True)
@declare("linalg.householder_product", out=True)
def householder_product(input, tau):
    """The first n columns of the product of the Householder reflectors stored in ``input``
    (below its diagonal) with scalars ``tau`` (LAPACK's ``orgqr``)."""
    name = "torch.linalg.householder_product"
    _householder_input(name, "orgqr_cpu", input, tau)
    if input.shape[-2] < input.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if input.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    return apply(LF.householder_product, (input, tau))


@declare("geqrf", method=True, out=True)
def geqrf(input):
    """``(a, tau)`` (named tuple ``geqrf``): LAPACK's QR, R on and above the diagonal, the
    Householder vectors below it (no derivative, as in PyTorch)."""
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if input.dtype.kind < _dtype.FLOAT:
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{input.dtype.c_name}'")
    return _named("geqrf", ("a", "tau"))(*apply(LF.geqrf, (input,)))


@declare("ormqr", method=True, out=True)
def ormqr(input, input2, input3, left=True, transpose=False):
    """``op(Q) C`` (or ``C op(Q)`` without ``left``; ``op`` the adjoint with ``transpose``),
    ``Q`` the product of ``geqrf``'s reflectors ``(input, input2)``, ``C`` = ``input3``."""
    name = "torch.ormqr"
    _householder_input(name, "ormqr_cpu", input, input2)
    other = input3
    if other.ndim != input.ndim:
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {other.ndim} and input.ndim is equal to {input.ndim}")
    if other.dtype is not input.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but input has dtype"
                           f"{input.dtype.c_name} and other has dtype {other.dtype.c_name}")
    rows = other.shape[-2] if left else other.shape[-1]
    if rows != input.shape[-2]:
        which = "other.shape[-2]" if left else "other.shape[-1]"
        raise RuntimeError(f"{name}: {which} must be equal to input.shape[-2]")
    if input2.shape[-1] != min(rows, input.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{-2 if left else -1}], "
                           "input.shape[-1])")
    if tuple(other.shape[:-2]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of other to be equal to input.shape[:-2], but got "
                           f"{list(other.shape[:-2])}")
    return apply(LF.ormqr, (input, input2, other), (bool(left), bool(transpose)))


# ---------------------------------------------------------------- compositions

_COND_ORDS = (2, -2, 1, -1, float("inf"), float("-inf"))


def _cond_empty(A):
    return C.zeros(tuple(A.shape[:-2]), dtype=A.dtype.to_real())


@declare("linalg.cond", out=True)
def cond(A, p=None):
    """The condition number of ``A`` in the norm ``p``: the ratio of extreme singular values for
    ``None``/``2``/``-2``, else ``norm(A) * norm(A^-1)`` (``inf`` for a singular ``A``)."""
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
        LA._matrices(f"linalg.cond(ord={p})", A)
    else:
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        if p is not None and p not in _COND_ORDS:
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p is None or (not isinstance(p, str) and abs(p) == 2):
        if A.numel() == 0:
            return _cond_empty(A)
        s = LA.svdvals(A)
        s_max = S.narrow(s, -1, 0, 1)
        s_min = S.narrow(s, -1, -1, 1)
        ratio = s_min / s_max if p == -2 else s_max / s_min
        return S.squeeze(ratio, -1)
    if not isinstance(p, str):
        label = str(p) if isinstance(p, int) else ("inf" if p == math.inf else "-inf" if p == -math.inf
                                                   else f"{float(p):.6f}")
        if A.ndim >= 2 and A.shape[-1] != A.shape[-2]:
            raise RuntimeError(f"linalg.cond(ord={label}): A must be batches of square matrices, but they are "
                               f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A.numel() == 0:
        return _cond_empty(A)
    if p == "nuc":
        # from the singular values: sum(s) * sum(1 / s)
        s = LA.svdvals(A)
        return R.sum(s, -1) * R.sum(s.reciprocal(), -1)
    inverse, info = inv_ex(A)
    # in place, as PyTorch: its backward then fails the saved-inverse version check, as PyTorch's
    inverse.masked_fill_(S.unsqueeze(S.unsqueeze(info, -1), -1) > 0, float("inf"))
    result = LA.matrix_norm(A, p) * LA.matrix_norm(inverse, p)
    # zero times infinity is infinity here, as in NumPy
    return result.nan_to_num_(float("inf"), float("inf"), float("-inf"))


def _prod(shape):
    return int(np.prod(shape, dtype=np.int64))


@declare("linalg.tensorinv", out=True)
def tensorinv(A, ind=2):
    """The inverse of ``A`` seen as a ``prod(shape[:ind]) x prod(shape[ind:])`` matrix, shaped
    ``shape[ind:] + shape[:ind]``."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    start, end = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if _prod(end) != _prod(start):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {_prod(end)} != {_prod(start)}")
    n = _prod(end)
    inverse, info = inv_ex(S.reshape(A, n, n))
    failure = _first_failure(info)
    if failure is not None:
        raise LA.LinAlgError(f"inv: The diagonal element {failure[1]} is zero, the inversion could not be completed "
                             "because the input matrix is singular.")
    if n > 1:
        # PyTorch's inverse is column-major, so its reshape is a _reshape_alias view
        return apply(V.reshape_alias, (inverse,), (end + start,))
    return S.reshape(inverse, *(end + start))


@declare("linalg.tensorsolve", out=True)
def tensorsolve(A, B, dims=None):
    """``X`` with ``tensordot(A, X, X.ndim) = B`` (``dims`` of ``A`` moved to the end first)."""
    if dims is not None:
        dims = [d % A.ndim if A.ndim else d for d in dims]
        rest = [d for d in range(A.ndim) if d not in dims]
        A = S.permute(A, *(rest + list(dims)))
    result_shape = tuple(A.shape[B.ndim:])
    rows = _prod(A.shape[:B.ndim])
    cols = _prod(result_shape)
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    solution = LA.solve(S.reshape(A, rows, cols), S.reshape(B, rows))
    return S.reshape(solution, *result_shape)


# ---------------------------------------------------------------- LDL

def _ldl_input(name, A):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if A.dtype in (_dtype.float16, _dtype.bfloat16):
        raise NotImplementedError(f"\"ldl_factor_kernel_cpu\" not implemented for '{A.dtype.c_name}'")
    if A.dtype not in (_dtype.float32, _dtype.float64, _dtype.complex64, _dtype.complex128):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype.c_name}")


def _ldl_factor_ex(name, A, hermitian, check_errors):
    _ldl_input(name, A)
    if A.dtype.kind == _dtype.COMPLEX:
        raise NotImplementedError(f"{name}: complex matrices are not supported by tensorgrad's LDL factorization")
    LD, pivots, info = apply(LF.ldl_factor, (A,))
    if check_errors:
        failure = _first_failure(info)
        if failure is not None:
            batch, i = failure
            # (PyTorch fails here with an internal assert, a RuntimeError)
            raise RuntimeError(f"{name}: {_prefix(batch)}The factorization could not be completed because the "
                               f"input is singular (D[{i},{i}] is zero).")
    return LD, pivots, info


@declare("linalg.ldl_factor", out=True)
def ldl_factor(A, *, hermitian=False):
    """``(LD, pivots)`` (named tuple ``linalg_ldl_factor``): LAPACK's Bunch-Kaufman ``A = L D L^T``
    of a symmetric matrix (its lower triangle is read)."""
    LD, pivots, _ = _ldl_factor_ex("torch.linalg.ldl_factor_ex", A, hermitian, True)
    return _named("linalg_ldl_factor", ("LD", "pivots"))(LD, pivots)


@declare("linalg.ldl_factor_ex", out=True)
def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """``(LD, pivots, info)``: ``info`` is the 1-based index of the first zero diagonal block."""
    LD, pivots, info = _ldl_factor_ex("torch.linalg.ldl_factor_ex", A, hermitian, check_errors)
    return _named("linalg_ldl_factor_ex", ("LD", "pivots", "info"))(LD, pivots, info)


@declare("linalg.ldl_solve", out=True)
def ldl_solve(LD, pivots, B, *, hermitian=False):
    """``X`` with ``A X = B`` from ``ldl_factor``'s ``(LD, pivots)``."""
    name = "torch.linalg.ldl_solve"
    _ldl_input(name, LD)
    if LD.dtype.kind == _dtype.COMPLEX:
        raise NotImplementedError(f"{name}: complex matrices are not supported by tensorgrad's LDL factorization")
    if B.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-builtins.max(B.ndim, 1)}, "
                         f"{builtins.max(B.ndim, 1) - 1}], but got -2)")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots.shape)} instead")
    if pivots.dtype.kind != _dtype.INT or pivots.dtype is _dtype.bool_:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {pivots.dtype.c_name}")
    if LD.dtype is not B.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {B.dtype.c_name} and A of "
                           f"type {LD.dtype.c_name} instead.")
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b matrix is "
                           f"{B.shape[-2]} by {B.shape[-1]}")
    if not LA._is_traced(pivots) and pivots.numel():
        values = np.abs(np.asarray(pivots._data).astype(np.int64))
        if values.min() < 1:
            raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| >= 1. Did you properly pass the "
                               "result of ldl_factor?")
        if values.max() > n:
            raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2). Did you properly "
                               "pass the result of ldl_factor?")
    return apply(LF.ldl_solve, (LD, pivots, B))
