"""The linear algebra spellings from before ``torch.linalg``: ``cholesky``, ``cholesky_solve``,
``cholesky_inverse``, ``svd`` and ``qr`` (with ``some=``), as PyTorch computes them over the
``torch.linalg`` functions (with its deprecation warnings).
"""

import warnings

import jax.numpy as jnp

from .. import _dtype
from .._ops import linalg as LD
from .._tensor import apply, _wrap
from . import linalg as LA
from . import shape as S
from .joining import broadcast_shapes
from .operands import _named, _need_tensor
from .surface import declare


def _deprecated(message):
    warnings.warn(message, UserWarning, stacklevel=3)


@declare("cholesky", method=True, out=True)
def cholesky(input, upper=False):
    """Deprecated ``torch.cholesky`` (``CholeskyBackward0``); prefer ``linalg.cholesky``."""
    _deprecated("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
                "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.")
    if input.dtype.kind < _dtype.FLOAT:
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{input.dtype.c_name}'")
    LA._matrices("cholesky", input)
    result = apply(LD.cholesky_legacy, (input,), (bool(upper),))
    if not LA._all_finite(result):
        raise LA.LinAlgError("cholesky: The factorization could not be completed because the input is not "
                             "positive-definite.")
    return result


def _factor_input(name, kernel, L):
    if L.dtype.kind < _dtype.FLOAT or L.dtype in (_dtype.float16, _dtype.bfloat16):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{L.dtype.c_name}'")
    if L.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {L.shape[-2]} by "
                           f"{L.shape[-1]} matrices")


@declare("cholesky_solve", method=True, out=True)
def cholesky_solve(input, input2, upper=False):
    """``X`` with ``A X = input`` where ``input2`` is the Cholesky factor of ``A`` (lower, or
    upper with ``upper=True``; only that triangle is read)."""
    _need_tensor("cholesky_solve", "input2", input2, 2)
    if input.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.ndim} dimensions instead")
    if input2.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {input2.ndim} dimensions instead")
    if input.dtype is not input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {input.dtype.c_name} and A "
                           f"of type {input2.dtype.c_name} instead.")
    _factor_input("cholesky_solve", "cholesky_solve_cpu", input2)
    if input.shape[-2] != input2.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {input2.shape[-1]} by "
                           f"{input2.shape[-1]} but each b matrix is {input.shape[-2]} by {input.shape[-1]}")
    batch = tuple(broadcast_shapes(input.shape[:-2], input2.shape[:-2]))
    b = input if tuple(input.shape[:-2]) == batch else S.expand(input, batch + tuple(input.shape[-2:]))
    a = input2 if tuple(input2.shape[:-2]) == batch else S.expand(input2, batch + tuple(input2.shape[-2:]))
    return apply(LD.cholesky_solve, (b, a), (bool(upper),))


@declare("cholesky_inverse", method=True, out=True)
def cholesky_inverse(input, upper=False):
    """The inverse of ``A = L L^H`` (or ``U^H U``) from its Cholesky factor."""
    _factor_input("cholesky_inverse", "cholesky_inverse_out_cpu", input)
    return apply(LD.cholesky_inverse, (input,), (bool(upper),))


@declare("svd", method=True, out=True)
def svd(input, some=True, compute_uv=True):
    """``(U, S, V)`` with ``input = U diag(S) V^H`` (named tuple ``svd``; ``V`` is
    ``linalg.svd``'s ``Vh`` transposed); without ``compute_uv``, ``U`` and ``V`` are zeros."""
    if not compute_uv:
        s = LA.svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        dt = input._data.dtype
        return _named("svd", ("U", "S", "V"))(_wrap(jnp.zeros(batch + (m, m), dt)), s,
                                              _wrap(jnp.zeros(batch + (n, n), dt)))
    u, s, vh = LA.svd(input, full_matrices=not some)
    return _named("svd", ("U", "S", "V"))(u, s, S.transpose(vh, -2, -1))


@declare("qr", method=True, out=True)
def qr(input, some=True):
    """Deprecated ``torch.qr``: ``linalg.qr`` with mode ``reduced`` (``some``) or ``complete``."""
    _deprecated("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
                "Q, R = torch.qr(A, some)\nshould be replaced with\n"
                "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
    q, r = LA.qr(input, "reduced" if some else "complete")
    return _named("qr", ("Q", "R"))(q, r)
