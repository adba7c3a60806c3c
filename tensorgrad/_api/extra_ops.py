"""More torch-level functions: softmax at the top level, ``kthvalue``, ``dist``, ``renorm``,
``hsplit``/``vsplit``/``dsplit``, the out-of-place ``*_scatter`` ops, the legacy
``svd``/``qr``/``cholesky`` family and ``Tensor.sum_to_size``.

Each parses PyTorch's arguments, raises PyTorch's errors and records PyTorch's node (a single
op from ``_ops/extra.py``, or the composition PyTorch uses).
"""

import builtins
import warnings

import jax.numpy as jnp

from .. import _dtype
from .._ops import indexing as IX
from .._ops import linalg as LD
from .._ops import reduction as R
from .._ops import sorting as SO
from .._tensor import Tensor, apply, _wrap, _wrap_dim
from . import linalg as LA
from . import shape as S
from .math import _named, result_type, sum as _sum
from .rearrange import broadcast_shapes
from .surface import declare


def _need_tensor(fname, argname, value, position):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


# ---------------------------------------------------------------- softmax at the top level

@declare("softmax", method=True, out=True)
def softmax(input, dim, dtype=None):
    """``torch.softmax``: the same node as ``nn.functional.softmax`` (``dim`` is required)."""
    from ..nn._functional.activation import softmax as _softmax
    return _softmax(input, dim, dtype=dtype)


@declare("log_softmax", method=True, out=True)
def log_softmax(input, dim, dtype=None):
    from ..nn._functional.activation import log_softmax as _log_softmax
    return _log_softmax(input, dim, dtype=dtype)


# ---------------------------------------------------------------- order statistics and norms

@declare("kthvalue", method=True, out=True)
def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest entry along ``dim`` and its index (named tuple ``kthvalue``)."""
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.dtype is _dtype.bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    return _named("kthvalue")(*apply(SO.kthvalue, (input,), (int(k), d, bool(keepdim))))


@declare("dist", method=True)
def dist(input, other, p=2):
    """``||input - other||_p`` (broadcasting), one node ``DistBackward0``."""
    _need_tensor("dist", "other", other, 2)
    if input.dtype is _dtype.bool_ and other.dtype is _dtype.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    d = result_type(input, other)
    if d.kind < _dtype.FLOAT:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {d.c_name} instead.")
    broadcast_shapes(input.shape, other.shape)
    return apply(R.dist, (input, other), (float(p), d.np))


@declare("renorm", method=True, inplace=True, out=True)
def renorm(input, p, dim, maxnorm):
    """Scale each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` down to norm ``maxnorm``."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = _wrap_dim(dim, input.ndim)
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    if input.dtype.kind < _dtype.FLOAT:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{input.dtype.c_name}")
    return apply(R.renorm, (input,), (float(p), d, float(maxnorm)))


# ---------------------------------------------------------------- splitting

def _dir_split(name, min_dims, dim):
    def split(input, indices_or_sections):
        if input.ndim < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                               f"with {input.ndim} dimensions!")
        d = 0 if (name == "hsplit" and input.ndim == 1) else dim
        if isinstance(indices_or_sections, int):
            size = input.shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                                   f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
        return S.tensor_split(input, indices_or_sections, d)
    split.__name__ = name
    split.__doc__ = f"``tensor_split`` along dimension {dim} (views); an int must divide the size."
    return split


hsplit = _dir_split("hsplit", 1, 1)
declare("hsplit", method=True)(hsplit)
vsplit = _dir_split("vsplit", 2, 0)
declare("vsplit", method=True)(vsplit)
dsplit = _dir_split("dsplit", 3, 2)
declare("dsplit", method=True)(dsplit)


# ---------------------------------------------------------------- out-of-place scatter into a slice

def _check_src(src, expected):
    if tuple(src.shape) != tuple(expected):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(expected)}")


@declare("select_scatter", method=True)
def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    _need_tensor("select_scatter", "src", src, 2)
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    _check_src(src, input.shape[:d] + input.shape[d + 1:])
    return apply(IX.select_scatter, (input, src), (d, int(index) % size))


@declare("slice_scatter", method=True, out=True)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``input[..., start:end:step, ...]`` (along ``dim``) replaced by ``src``."""
    _need_tensor("slice_scatter", "src", src, 2)
    d = _wrap_dim(dim, input.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    lo, hi, st = slice(start, end, step).indices(input.shape[d])
    n = len(range(lo, hi, st))
    _check_src(src, input.shape[:d] + (n,) + input.shape[d + 1:])
    return apply(IX.slice_scatter, (input, src), (d, lo, hi, st))


@declare("diagonal_scatter", method=True)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with its ``offset`` diagonal over ``(dim1, dim2)`` replaced by ``src``."""
    _need_tensor("diagonal_scatter", "src", src, 2)
    d1, d2 = _wrap_dim(dim1, input.ndim), _wrap_dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n1, n2 = input.shape[d1], input.shape[d2]
    size = builtins.max(0, builtins.min(n1 + builtins.min(offset, 0), n2 - builtins.max(offset, 0)))
    rest = tuple(s for i, s in enumerate(input.shape) if i not in (d1, d2))
    _check_src(src, rest + (size,))
    return apply(IX.diagonal_scatter, (input, src), (int(offset), d1, d2))


# ---------------------------------------------------------------- legacy decompositions

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
    if L.dtype.kind < _dtype.FLOAT:
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


# ---------------------------------------------------------------- Tensor-only

@declare(method=("sum_to_size",))
def sum_to_size(self, *size):
    """Sum ``self`` down to ``size`` (which ``self`` must be expandable from)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    ok = lead >= 0 and all(s == 1 or s == n for s, n in zip(size, shape[lead:]))
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if size == shape:
        return self
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1]
    out = _sum(self, dims, keepdim=True)
    return S.view(out, size) if lead else out
