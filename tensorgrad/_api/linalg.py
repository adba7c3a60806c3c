"""Torch-level linear algebra: products (einsum, tensordot, kron, baddbmm, ...), ``trace``,
``cross``, and the ``torch.linalg`` functions (inv, det, solve, cholesky, qr, svd, eigh, pinv,
lstsq, norms, matrix_power, ...). ``tensorgrad/linalg.py`` re-exports the latter as the public
``tensorgrad.linalg`` namespace.

Failures that PyTorch detects from the result (a singular matrix, a matrix that is not
positive-definite) are detected on the host here too and raise ``LinAlgError``.
"""

import builtins
import math as _math
import warnings

import jax
import numpy as np

from .. import _dtype
from .._ops import linalg as L
from .._ops import linalg_decomp as LD
from .._ops import shape as SH
from .._ops import views as V
from .._tensor import Tensor, apply, _wrap, _wrap_dim
from .creation import eye as _eye
from .inplace import inplace_of
from .math import _dims, _named, amax, amin, matmul, mm, sum as _sum, norm as _norm, where as _where
from . import shape as S

__all__ = ['einsum', 'tensordot', 'kron', 'baddbmm', 'addbmm', 'addmv', 'addr', 'trace', 'cross', 'vdot',
           'chain_matmul', 'matrix_rank', 'det', 'logdet', 'slogdet', 'inverse', 'pinverse', 'matrix_power', 'matrix_exp']


class LinAlgError(RuntimeError):
    """A linear algebra failure detected from the result (``torch.linalg.LinAlgError``)."""


def _is_traced(t):
    return isinstance(t._data, jax.core.Tracer)


def _float_input(name, A):
    if A.dtype.kind < _dtype.FLOAT:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype.c_name}")


def _matrices(name, A, square=True):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _float_input(name, A)
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def _all_finite(t):
    return _is_traced(t) or bool(np.all(np.isfinite(np.asarray(t._data))))


# ---------------------------------------------------------------- products

def vdot(input, other, *, out=None):
    if input.dtype is _dtype.bool_:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {input.dtype.c_name} and "
                           f"{other.dtype.c_name}")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           f"to have the same number of elements, but got {input.shape[0]} and {other.shape[0]} "
                           "elements respectively")
    return apply(LD.vdot, (input, other))


def trace(input):
    """The sum of the main diagonal of a matrix (``TraceBackward0``)."""
    if input.dtype is _dtype.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input.dtype.kind == _dtype.INT and input.dtype is not _dtype.int64:
        input = input.to(_dtype.int64)
    return apply(LD.trace, (input,))


def _same_dtype(message, *tensors):
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError(message.format(a=tensors[0].dtype.c_name, b=t.dtype.c_name))


def linalg_cross(input, other, *, dim=-1, out=None):
    """The 3-vector cross product along ``dim`` (inputs broadcast)."""
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    _same_dtype("expected scalar type {a} but found {b}", input, other)
    if input.dtype is _dtype.bool_:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    d = _wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    return apply(LD.cross, (input, other), (d,))


def cross(input, other, dim=None, *, out=None):
    """``torch.cross``: without ``dim``, the first dim of size 3 (deprecated by PyTorch)."""
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
            "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
            "linalg.cross in a future release. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)", UserWarning, stacklevel=2)
        sizes = [k for k, s in enumerate(input.shape) if s == 3]
        if not sizes:
            raise RuntimeError(f"no dimension of size 3 in input")
        dim = sizes[0]
    return linalg_cross(input, other, dim=dim)


_BOOL_KERNELS = {"baddbmm": "baddbmm", "addbmm": "addmm_impl_cpu_", "addmv": "addmv_impl_cpu"}


def _scaled_product(op, name, bias, a, b, beta, alpha):
    d = a.dtype
    if d is _dtype.bool_ and name in _BOOL_KERNELS:
        raise NotImplementedError(f"\"{_BOOL_KERNELS[name]}\" not implemented for 'Bool'")
    if name == "addr" and d.kind <= _dtype.INT and (isinstance(beta, float) or isinstance(alpha, float)):
        which = "beta" if isinstance(beta, float) else "alpha"
        raise RuntimeError(f"For integral input tensors, argument {which} must not be a floating point number.")
    _same_dtype("expected m1 and m2 to have the same dtype, but got: {a} != {b}", a, b)
    if bias.dtype is not d:
        raise RuntimeError(f"expected scalar type {d.c_name} but found {bias.dtype.c_name}")
    return apply(op, (bias, a, b), (beta, alpha))


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices."""
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if batch1.ndim != 3 else "batch2 must be a 3D tensor")
    b, n, k = batch1.shape
    if tuple(batch2.shape[:2]) != (b, k):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
                           f"[{batch2.shape[0]}, {batch2.shape[1]}].")
    _broadcastable(input, (b, n, batch2.shape[2]), "baddbmm")
    return _scaled_product(LD.baddbmm, "baddbmm", input, batch1, batch2, beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if batch1.ndim != 3 else "batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch1.shape[0]}, "
                           f"{batch1.shape[2]}] but got: [{batch2.shape[0]}, {batch2.shape[1]}].")
    _broadcastable(input, (batch1.shape[1], batch2.shape[2]), "addbmm")
    return _scaled_product(LD.addbmm, "addbmm", input, batch1, batch2, beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``."""
    if mat.ndim != 2 or vec.ndim != 1 or mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat "
                           f"({'x'.join(str(s) for s in mat.shape)}), vec ({'x'.join(str(s) for s in vec.shape)})")
    _broadcastable(input, (mat.shape[0],), "addmv")
    return _scaled_product(LD.addmv, "addmv", input, mat, vec, beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D" if vec1.ndim != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    _broadcastable(input, (vec1.shape[0], vec2.shape[0]), "addr")
    return _scaled_product(LD.addr, "addr", input, vec1, vec2, beta, alpha)


def _broadcastable(bias, shape, name):
    bshape = tuple(bias.shape)
    ok = len(bshape) <= len(shape) and builtins.all(
        b in (1, s) for b, s in zip(reversed(bshape), reversed(shape)))
    if not ok:
        raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                           f"({bshape[-1] if bshape else 1}) at non-singleton dimension {len(shape) - 1}.  Target "
                           f"sizes: {list(shape)}.  Tensor sizes: {list(bshape)}")


def _parse_equation(equation, operands):
    """Split an einsum equation into per-operand subscripts (ellipsis expanded to capital
    letters) and the output subscripts; checks the operand count and ranks."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    inputs = lhs.split(",")
    if len(inputs) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(inputs) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    ell_rank = 0
    for sub, t in zip(inputs, operands):
        if "..." in sub:
            ell_rank = builtins.max(ell_rank, t.ndim - (len(sub) - 3))
        elif len(sub) != t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(sub)}) does not match the "
                               f"number of dimensions ({t.ndim}) for operand {inputs.index(sub)} and no ellipsis "
                               "was given")
    ell = "".join(chr(ord("A") + k) for k in range(ell_rank))
    expanded = []
    for sub, t in zip(inputs, operands):
        if "..." in sub:
            n = t.ndim - (len(sub) - 3)
            sub = sub.replace("...", ell[ell_rank - n:])
        expanded.append(sub)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        letters = [c for c in sorted(set("".join(inputs).replace(".", "")))
                   if "".join(inputs).count(c) == 1]
        out = ell + "".join(letters)
    sizes = {}
    for k, (sub, t) in enumerate(zip(expanded, operands)):
        for c, s in zip(sub, t.shape):
            seen = sizes.get(c)
            if seen is not None and seen != s and s != 1 and seen != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {k} which does not broadcast "
                                   f"with previously seen size {seen}")
            if seen is None or seen == 1:
                sizes[c] = s
    return expanded, out


def einsum(equation, *operands):
    """Einstein summation, with the nodes PyTorch records: a contraction is
    ``ViewBackward0(PermuteBackward0(...))``, a product without contraction
    ``MulBackward0(PermuteBackward0, ...)``, one operand a permute and a sum."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    subs, out = _parse_equation(equation, operands)
    _same_dtype("expected scalar type {a} but found {b}", *operands)
    full = ",".join(subs) + "->" + out
    if len(operands) == 1:
        return _einsum_single(operands[0], subs[0], out, full)
    contracted = set("".join(subs)) - set(out)
    distinct = builtins.all(len(set(s)) == len(s) for s in subs)
    if len(operands) == 2 and not contracted and distinct:
        aligned = [_align(t, s, out) for t, s in zip(operands, subs)]
        return aligned[0] * aligned[1]
    if operands[0].dtype is _dtype.bool_:
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    core = apply(LD.einsum, tuple(operands), (full,))
    shape = tuple(core.shape)
    return S.view(apply(V.permute, (core,), (tuple(range(core.ndim)),)), shape)


def _align(t, sub, out):
    """``t`` with size-1 dims for the letters it lacks, permuted into ``out``'s order."""
    missing = [c for c in out if c not in sub]
    if missing:
        t = S.view(t, tuple(t.shape) + (1,) * len(missing))
        sub = sub + "".join(missing)
    order = tuple(sub.index(c) for c in out)
    return apply(V.permute, (t,), (order,))


def _einsum_single(t, sub, out, full):
    while len(set(sub)) != len(sub):
        # a repeated subscript is a diagonal (which the view puts last)
        c = next(c for c in sub if sub.count(c) > 1)
        i = sub.index(c)
        j = sub.index(c, i + 1)
        t = S.diagonal(t, 0, i, j)
        sub = sub[:i] + sub[i + 1:j] + sub[j + 1:] + c
    kept = [sub.index(c) for c in out]
    summed = [k for k in range(len(sub)) if sub[k] not in out]
    p = apply(V.permute, (t,), (tuple(kept + summed),))
    if not summed:
        return p
    return _sum(p, tuple(range(len(kept), len(sub))))


def tensordot(a, b, dims=2, out=None):
    """Contract ``dims`` (a count, or two lists) of ``a`` and ``b``: permute, ``mm``, view."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a = list(range(a.ndim - dims, a.ndim))
        dims_b = list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    dims_a = [_wrap_dim(d, a.ndim) for d in dims_a]
    dims_b = [_wrap_dim(d, b.ndim) for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                               f"and second has size {b.shape[db]} in dim {db}")
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    k = _math.prod(a.shape[d] for d in dims_a)
    left = S.reshape(S.permute(a, *(free_a + dims_a)), _math.prod(a.shape[d] for d in free_a), k)
    right = S.reshape(S.permute(b, *(dims_b + free_b)), k, _math.prod(b.shape[d] for d in free_b))
    shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    return S.view(mm(left, right), shape)


def kron(input, other, *, out=None):
    """The Kronecker product (``UnsafeViewBackward0`` over ``MulBackward0``, as PyTorch)."""
    nd = builtins.max(input.ndim, other.ndim)
    a = S.reshape(input, (1,) * (nd - input.ndim) + tuple(input.shape))
    b = S.reshape(other, (1,) * (nd - other.ndim) + tuple(other.shape))
    a_shape = []
    b_shape = []
    for sa, sb in zip(a.shape, b.shape):
        a_shape += [sa, 1]
        b_shape += [1, sb]
    prod = S.reshape(a, tuple(a_shape)) * S.reshape(b, tuple(b_shape))
    shape = tuple(sa * sb for sa, sb in zip(a.shape, b.shape))
    return apply(SH.reshape_copy, (prod,), (shape,))


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices (the first and last may be vectors)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    _same_dtype("multi_dot(): all tensors must have be the same dtype but tensor 0 is {a} and tensor 1 is {b}",
                *tensors)
    mats = [S.unsqueeze(first, 0) if first.ndim == 1 else first] + tensors[1:-1] + [
        S.unsqueeze(last, 1) if last.ndim == 1 else last]
    result = mats[0]
    for m in mats[1:]:
        if result.shape[1] != m.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {mats.index(m) - 1} and {mats.index(m)} with shapes "
                               f"{list(result.shape)} and {list(m.shape)} cannot be multiplied")
        result = mm(result, m)
    shape = tuple(result.shape)
    if first.ndim == 1:
        shape = shape[1:]
    if last.ndim == 1:
        shape = shape[:-1]
    return S.view(result, shape)


def chain_matmul(*matrices, out=None):
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot "
        "instead, which accepts a list of two or more tensors rather than multiple parameters. (Triggered internally "
        "at /__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:1278.)", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        return S.clone(matrices[0])
    return multi_dot(matrices)


# ---------------------------------------------------------------- inverses, determinants, solves

def inv(A, *, out=None):
    """The inverse of square matrices; a singular matrix raises ``LinAlgError``."""
    _matrices("linalg.inv", A)
    result = apply(LD.inv, (A,))
    if not _all_finite(result):
        raise LinAlgError("linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because "
                          "the input matrix is singular.")
    return result


def det(A, *, out=None):
    _matrices("linalg.det", A)
    return apply(LD.det, (A,))


def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` of the determinant (named tuple ``linalg_slogdet``)."""
    _matrices("linalg.slogdet", A)
    return _named("linalg_slogdet", ("sign", "logabsdet"))(*apply(LD.slogdet, (A,)))


def logdet(input):
    """``log(det)``: NaN for a negative determinant, ``-inf`` for a zero one."""
    _matrices("linalg.slogdet", input)
    sign, logabs = apply(LD.slogdet, (input,))
    return _where(sign < 0, float("nan"), logabs)


def _vector_rhs(A, B):
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A, B, *, left=True, out=None):
    """``X`` with ``A X = B`` (``X A = B`` with ``left=False``); B may be a (batch of) vector."""
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
    result = apply(LD.solve, (A, B), (bool(left), vector))
    if not _all_finite(result):
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.")
    return result


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
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


def matrix_exp(A):
    _matrices("linalg.matrix_exp", A)
    return apply(LD.matrix_exp, (A,))


def matrix_power(A, n, *, out=None):
    """``A`` to the integer power ``n`` by repeated squaring (``n < 0`` inverts first)."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if n == 0:
        # PyTorch writes the identity into a clone of A (CopyBackwards over CloneBackward0)
        return apply(LD.copy_into, (S.clone(A), _eye(A.shape[-1], dtype=A.dtype)))
    if n < 0:
        A = inv(A)
        n = -n
    if n == 1:
        return S.clone(A)
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

def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor (lower, or upper with ``upper=True``) of Hermitian positive-definite
    matrices; otherwise ``LinAlgError``."""
    _matrices("linalg.cholesky", A)
    result = apply(LD.cholesky, (A,), (bool(upper),))
    if not _all_finite(result):
        raise LinAlgError("linalg.cholesky: The factorization could not be completed because the input is not "
                          "positive-definite.")
    return result


def qr(A, mode="reduced", *, out=None):
    """``(Q, R)`` (named tuple ``linalg_qr``); ``mode`` is ``reduced``, ``complete`` or ``r``."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or "
                           "'complete'")
    _matrices("linalg.qr", A, square=False)
    q, r = apply(LD.qr, (A,), (mode,))
    if mode == "r":
        q = _wrap(q._data.reshape(0))
    return _named("linalg_qr", ("Q", "R"))(q, r)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """``(U, S, Vh)`` (named tuple ``linalg_svd``) with ``A = U diag(S) Vh``."""
    _matrices("linalg.svd", A, square=False)
    return _named("linalg_svd", ("U", "S", "Vh"))(*apply(LD.svd, (A,), (bool(full_matrices),)))


def svdvals(A, *, driver=None, out=None):
    _matrices("linalg.svd", A, square=False)
    return apply(LD.svdvals, (A,))


def _eigh_input(A):
    if A.dtype.kind < _dtype.FLOAT:
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{A.dtype.c_name}'")
    _matrices("linalg.eigh", A)


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO == "U"


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices, reading one triangle."""
    upper = _uplo(UPLO)
    _eigh_input(A)
    return _named("linalg_eigh", ("eigenvalues", "eigenvectors"))(*apply(LD.eigh, (A,), (upper,)))


def eigvalsh(A, UPLO="L", *, out=None):
    upper = _uplo(UPLO)
    _eigh_input(A)
    return apply(LD.eigvalsh, (A,), (upper,))


def _tol(value):
    if isinstance(value, Tensor):
        value = value.item()
    return None if value is None else float(value)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse (singular values below ``max(atol, rtol * smax)`` dropped)."""
    if A.ndim < 2 or A.dtype.kind < _dtype.FLOAT:
        raise RuntimeError(f"linalg.pinv({A.dtype.c_name}{{{list(A.shape)}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    return apply(LD.pinv, (A,), (_tol(atol), _tol(rtol), bool(hermitian)))


def pinverse(input, rcond=1e-15):
    return pinv(input, rtol=rcond)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_rank: The input tensor A must have at least 2 dimensions.")
    if A.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    return apply(LD.matrix_rank, (A,), (_tol(atol), _tol(rtol), bool(hermitian)))


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B`` (named tuple ``linalg_lstsq``: solution,
    residuals, rank, singular_values); ``driver`` decides which of the last three are computed,
    as in PyTorch's CPU drivers (default ``gelsy``)."""
    if driver is not None and driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    _matrices("torch.linalg.lstsq", A, square=False)
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
    sol, residuals = apply(LD.lstsq, (A, B), (r, vector, driver in ("gelsd", "gelss")))
    rank, sv = apply(LD.lstsq_info, (A.detach(),), (r, driver in ("gelsd", "gelss")))
    if driver == "gels":
        rank = _wrap(rank._data.reshape(-1)[:0])
    if residuals.numel() and not _all_finite(residuals):
        residuals = _wrap(residuals._data.reshape(-1)[:0])
    return _named("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))(sol, residuals, rank, sv)


# ---------------------------------------------------------------- norms

def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector ``ord``-norm over all entries or ``dim`` (``LinalgVectorNormBackward0``)."""
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord}")
    d = x.dtype if dtype is None else _dtype.to_dtype(dtype)
    if x.dtype.kind < _dtype.FLOAT or d.kind < _dtype.FLOAT:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{x.dtype.c_name}")
    if ord < 0 and x.numel() == 0:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                           "operation does not have an identity")
    return _norm(x, p=float(ord), dim=dim, keepdim=keepdim, dtype=dtype)


_MATRIX_ORDS = ("fro", "nuc", 2, -2, 1, -1, float("inf"), float("-inf"))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
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


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
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


def vecdot(x, y, *, dim=-1, out=None):
    """The dot product of ``x`` and ``y`` along ``dim`` (inputs broadcast)."""
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x.dtype.c_name} and y of type {y.dtype.c_name} instead")
    return _sum(x * y, dim)


def inverse(input, *, out=None):
    return inv(input)


METHODS = {
    "vdot": vdot, "trace": trace, "cross": cross, "baddbmm": baddbmm, "addbmm": addbmm, "addmv": addmv,
    "addr": addr, "kron": kron, "det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse,
    "pinverse": pinverse, "matrix_power": matrix_power, "matrix_exp": matrix_exp,
}

INPLACE = {name + "_": inplace_of(METHODS[name]) for name in ("baddbmm", "addbmm", "addmv", "addr")}
