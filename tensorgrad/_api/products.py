"""Torch-level products beyond matmul: einsum, tensordot, kron, the fused ``beta * input +
alpha * product`` family (baddbmm, addbmm, addmv, addr), vdot, trace, cross and multi_dot.

Composite products record the nodes PyTorch records (``tensordot`` is a view of an ``mm``,
``kron`` an ``UnsafeViewBackward0`` over a ``MulBackward0``, ``einsum`` a view of a permute of
the contraction), so ``grad_fn`` reads as in PyTorch.
"""

import builtins
import math as _math
import warnings

from .. import _dtype
from .._ops import products as LD
from .._ops import shape as SH
from .._ops import views as V
from .._tensor import Tensor, apply, _wrap_dim
from . import shape as S
from .conversion import clone
from .elementwise import mul
from .matmul import mm
from .operands import _tensor_input
from .reduction import sum as _sum
from .surface import declare
from .._autocast import lower_precision_function


@declare("vdot", method=True, out=True)
def vdot(input, other):
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


@declare("trace", method=True)
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


@declare("linalg.cross", out=True)
def linalg_cross(input, other, *, dim=-1):
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


@declare("cross", method=True, out=True)
def cross(input, other, dim=None):
    """``torch.cross``: without ``dim``, the first dim of size 3 (deprecated by PyTorch)."""
    _tensor_input("cross", input)
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
            "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
            "linalg.cross in a future release. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)", UserWarning, stacklevel=2)
        sizes = [k for k, s in enumerate(input.shape) if s == 3]
        if not sizes:
            raise RuntimeError("no dimension of size 3 in input")
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


@declare("baddbmm", method=True, inplace=True, out=True)
@lower_precision_function
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices."""
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.ndim != 3 else "batch2 must be a 3D tensor")
    b, n, k = batch1.shape
    if tuple(batch2.shape[:2]) != (b, k):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
                           f"[{batch2.shape[0]}, {batch2.shape[1]}].")
    _broadcastable(input, (b, n, batch2.shape[2]), "baddbmm")
    return _scaled_product(LD.baddbmm, "baddbmm", input, batch1, batch2, beta, alpha)


@declare("addbmm", method=True, inplace=True, out=True)
@lower_precision_function
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.ndim != 3 else "batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch1.shape[0]}, "
                           f"{batch1.shape[2]}] but got: [{batch2.shape[0]}, {batch2.shape[1]}].")
    _broadcastable(input, (batch1.shape[1], batch2.shape[2]), "addbmm")
    return _scaled_product(LD.addbmm, "addbmm", input, batch1, batch2, beta, alpha)


@declare("addmv", method=True, inplace=True, out=True)
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    if mat.ndim != 2 or vec.ndim != 1 or mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat "
                           f"({'x'.join(str(s) for s in mat.shape)}), vec ({'x'.join(str(s) for s in vec.shape)})")
    _broadcastable(input, (mat.shape[0],), "addmv")
    return _scaled_product(LD.addmv, "addmv", input, mat, vec, beta, alpha)


@declare("addr", method=True, inplace=True, out=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1):
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


@declare("einsum", numpy_names=False)
@lower_precision_function
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
    # As PyTorch, a subscript met again is a diagonal taken there and then, moved back to the
    # subscript's first place (DiagonalBackward0, then PermuteBackward0)
    labels = ""
    for c in sub:
        if c in labels:
            i = labels.index(c)
            t = S.movedim(S.diagonal(t, 0, i, len(labels)), -1, i)
        else:
            labels += c
    sub = labels
    kept = [sub.index(c) for c in out]
    summed = [k for k in range(len(sub)) if sub[k] not in out]
    p = apply(V.permute, (t,), (tuple(kept + summed),))
    if not summed:
        return p
    return _sum(p, tuple(range(len(kept), len(sub))))


@declare("tensordot", out=True, numpy_names=False)
def tensordot(a, b, dims=2):
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
        if a.shape[da] != b.shape[db] and 1 in (a.shape[da], b.shape[db]):
            # a size-1 dimension broadcasts: the other tensor is summed over its dimension first
            if a.shape[da] == 1:
                b = _sum(b, db, keepdim=True)
            else:
                a = _sum(a, da, keepdim=True)
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


@declare("inner", method=True, out=True)
def inner(input, other):
    """The sums of products over the last dimensions (a product with a 0-d operand)."""
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


@declare("kron", method=True, out=True)
def kron(input, other):
    """The Kronecker product (``UnsafeViewBackward0`` over ``MulBackward0``, as PyTorch)."""
    _tensor_input("kron", input)
    nd = builtins.max(input.ndim, other.ndim)
    a_dims = (1,) * (nd - input.ndim) + tuple(input.shape)
    b_dims = (1,) * (nd - other.ndim) + tuple(other.shape)
    a_shape = []
    b_shape = []
    for sa, sb in zip(a_dims, b_dims):
        a_shape += [sa, 1]
        b_shape += [1, sb]
    # PyTorch's operands are _unsafe_view copies: the product keeps them, not the inputs
    a = apply(SH.reshape_copy, (input,), (tuple(a_shape),))
    b = apply(SH.reshape_copy, (other,), (tuple(b_shape),))
    shape = tuple(sa * sb for sa, sb in zip(a_dims, b_dims))
    return apply(SH.reshape_copy, (a * b,), (shape,))


@declare("linalg.multi_dot", out=True)
def multi_dot(tensors):
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


@declare("chain_matmul", out=True, numpy_names=False)
def chain_matmul(*matrices):
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot "
        "instead, which accepts a list of two or more tensors rather than multiple parameters. (Triggered internally "
        "at /__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:1278.)", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        return clone(matrices[0])
    return multi_dot(matrices)
