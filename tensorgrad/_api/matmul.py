"""Torch-level matrix products: dot/inner, mv, mm, bmm, matmul (with PyTorch's folding of batch
dims), outer/ger and addmm.
"""

import builtins


from .. import _dtype
from .._autograd.grad_mode import STATE
from .._ops import products as L
from .._ops import shape as SH
from .._tensor import apply, _C_TYPE
from . import strides as _strides
from .operands import _need_tensor, _not_implemented, _tensor_input
from .surface import declare
from .._autocast import lower_precision_function


def _same_dtype(name, a, b, what="vectors"):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{name} : expected both {what} to have same dtype, but found {a.dtype.c_name} and {b.dtype.c_name}")


@declare("dot", method=True, out=True)
def dot(input, other):
    _tensor_input("dot", input)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    _same_dtype("dot", input, other)
    if input.dtype is _dtype.bool_:
        raise _not_implemented("dot", input.dtype)
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] to have "
            f"the same number of elements, but got {input.shape[0]} and {other.shape[0]} elements respectively")
    return apply(L.dot, (input, other))



@declare("mv", method=True, out=True)
def mv(input, vec):
    _check_mm(input, vec, "mv")
    return apply(L.mv, (input, vec))


_MM_KERNELS = {"mv": "addmv_impl_cpu", "bmm": "bmm"}


def _check_mm(a, b, name):
    if a.dtype is not b.dtype:
        if name == "mv":
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {b.dtype.c_name}, "
                               f"{a.dtype.c_name}, and {b.dtype.c_name}")
        if name == "bmm":
            raise RuntimeError(f"expected scalar type {a.dtype.c_name} but found {b.dtype.c_name}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_C_TYPE[a.dtype.name]} != "
                           f"{_C_TYPE[b.dtype.name]}")
    if a.dtype is _dtype.bool_:
        raise _not_implemented(_MM_KERNELS.get(name, "addmm_impl_cpu_"), a.dtype)
    if a.shape[-1] != b.shape[0 if b.ndim == 1 else -2]:
        if name == "mv":
            raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), vec ({b.shape[0]})")
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[-2]}x{a.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")


@declare("mm", method=True, out=True)
@lower_precision_function
def mm(input, mat2):
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm(input, mat2, "mm")
    return apply(L.mm, (input, mat2))


@declare("bmm", method=True, out=True)
@lower_precision_function
def bmm(input, mat2):
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if input.ndim != 3 else "batch2 must be a 3D tensor")
    if mat2.shape[0] != input.shape[0] or mat2.shape[1] != input.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    _check_mm(input, mat2, "bmm")
    return apply(L.bmm, (input, mat2))


@declare("matmul", "linalg.matmul", method=True, out=True)
@lower_precision_function
def matmul(input, other):
    """Matrix product with numpy's rules, recorded as PyTorch records each case: ``dot``,
    ``mv``, ``mm``, a squeezed ``mm`` for 1-D @ 2-D; beyond 2-D, the larger operand's batch
    folded into the rows of one ``mm``/``mv`` (``should_fold``), or else both operands expanded
    to a common batch and reshaped for one ``bmm``, and the result ``_unsafe_view``-ed back."""
    a, b = input, other
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da <= 2 and db <= 2:
        if da == 2:
            return mm(a, b) if db == 2 else mv(a, b)
        if db == 1:
            return dot(a, b)
        _check_mm(a.unsqueeze(0), b, "mm")
        return apply(SH.squeeze_copy, (mm(a.unsqueeze(0), b),), (0,))
    sa, sb = a._data.shape, b._data.shape
    if da == 3 and db == 3 and (sa[0] == 1) != (sb[0] == 1):
        # a batch of one that requires grad, against a larger (or empty) batch: PyTorch
        # squeezes it to a matrix (which then folds), so that its gradient is no batch to sum
        if sa[0] == 1 and a.requires_grad:
            a, sa = a.squeeze(0), sa[1:]
        elif sb[0] == 1 and b.requires_grad:
            b, sb = b.squeeze(0), sb[1:]
    # Past this point the nodes are intermediate views and copies of one product; with no
    # graph to record, one fused op computes it after the same checks.
    record = STATE.grad and not STATE.inference and (a.requires_grad or b.requires_grad)
    if _should_fold(a, b, sa, sb):
        return _matmul_folded(a, b, sa, sb, record)
    return _matmul_batched(a, b, sa, sb, record)


class _Meta:
    """The shape and dtype of an operand that ``_check_mm`` checks before it exists."""

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.ndim = len(self.shape)


def _should_fold(a, b, sa, sb):
    """PyTorch's ``should_fold``: whether the larger operand (the other's transpose when that is
    the larger) folds into the rows of an ``mm``/``mv``. Always when the smaller one requires
    grad (so its gradient is not a broadcast batch to sum); else only without a copy."""
    larger = len(sa) >= len(sb)
    big, small = (a, b) if larger else (b, a)
    if big.ndim < 3 or small.ndim > 2:
        return False
    if small.requires_grad:
        return True
    if len(sa) == 2:
        return False  # the result would need a transposed copy
    if big.numel() == 0 or (larger and big._view is None):
        return True
    shape, strides, _ = _strides.geometry(big)
    if not larger:
        shape = shape[:-2] + (shape[-1], shape[-2])
        strides = strides[:-2] + (strides[-1], strides[-2])
    return builtins.all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _matmul_folded(a, b, sa, sb, record):
    transpose = len(sb) > len(sa)
    if transpose:
        # (b^T @ a^T)^T: b's transpose is the larger operand, a (or a.t()) the smaller
        t1 = _Meta(sb[:-2] + (sb[-1], sb[-2]), b.dtype)
        t2 = _Meta(sa[::-1], a.dtype)
    else:
        t1, t2 = _Meta(sa, a.dtype), _Meta(sb, b.dtype)
    rows = t1.shape[:-1]
    folded = _Meta((_prod(rows), t1.shape[-1]), t1.dtype)
    _check_mm(folded, t2, "mm" if t2.ndim == 2 else "mv")
    if not record:
        return apply(L.matmul, (a, b))
    if transpose:
        t1 = b.mT
        t2 = a.t() if len(sa) == 2 else a
    else:
        t1, t2 = a, b
    folded = t1.reshape(folded.shape)
    if t2.ndim == 1:
        return apply(SH.reshape_copy, (mv(folded, t2),), (rows,))
    out = apply(SH.reshape_copy, (mm(folded, t2),), (rows + (t2.shape[1],),))
    return out.mT.contiguous() if transpose else out


def _matmul_batched(a, b, sa, sb, record):
    n = sa[-2] if len(sa) > 1 else 1
    k = sa[-1]
    kb = sb[-2] if len(sb) > 1 else sb[0]
    p = sb[-1] if len(sb) > 1 else 1
    batch = _batch_shape(sa[:-2], sb[:-2])
    count = _prod(batch)
    if k != kb:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{count}, {k}] but got: [{count}, {kb}].")
    da, db = a.dtype, b.dtype
    if da is _dtype.bool_:
        raise _not_implemented("bmm", da)
    if da is not db:
        raise RuntimeError(f"expected scalar type {da.c_name} but found {db.c_name}")
    if not record:
        return apply(L.matmul, (a, b))
    shape = batch + ((n,) if len(sa) > 1 else ()) + ((p,) if len(sb) > 1 else ())
    a3 = a.expand(batch + (n, k)).reshape(count, n, k)
    if len(sb) == 1:
        out = bmm(a3, b.expand(batch + (kb,)).reshape(count, kb).unsqueeze(2)).squeeze(-1)
    else:
        out = bmm(a3, b.expand(batch + (kb, p)).reshape(count, kb, p))
    return apply(SH.reshape_copy, (out,), (shape,))


def _batch_shape(a, b):
    """The broadcast of two batch shapes, with PyTorch's ``infer_size`` message."""
    nd = builtins.max(len(a), len(b))
    out = []
    for i in range(nd):
        x = a[i - nd + len(a)] if i >= nd - len(a) else 1
        y = b[i - nd + len(b)] if i >= nd - len(b) else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@declare("ger", "outer", method=True, out=True)
def outer(input, vec2):
    _need_tensor("outer", "input", input, 1)
    _need_tensor("outer", "vec2", vec2, 2)
    for what, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {what}, but got {t.ndim}-D")
    # PyTorch multiplies a column view of input by vec2: MulBackward0 over (ViewBackward0, ...)
    return apply(L.outer, (input.reshape(-1, 1), vec2))


ger = outer


def check_bias_expands(bias, rows, out_features):
    """PyTorch's error where addmm's ``input`` does not expand to ``(rows, out_features)``."""
    shape = tuple(bias.shape)
    target = (rows, out_features)
    if len(shape) > 2:
        raise RuntimeError(
            f"expand(torch.{bias.dtype.legacy}{{{list(shape)}}}, size={list(target)}): the number of sizes provided "
            f"(2) must be greater or equal to the number of dimensions in the tensor ({len(shape)})")
    for i in range(1, len(shape) + 1):
        have, want = shape[-i], target[-i]
        if have != want and have != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({have}) at non-singleton "
                f"dimension {2 - i}.  Target sizes: {list(target)}.  Tensor sizes: {list(shape)}")


@declare("addmm", method=True, inplace=True, out=True)
@lower_precision_function
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    # PyTorch's ADDMM_META order: the dtypes against mat2's, the ranks, then the shapes
    for name, t in (("self", input), ("mat1", mat1)):
        if t.dtype is not mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {t.dtype.c_name} and "
                               f"{mat2.dtype.c_name}")
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if t.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t.ndim}-D tensor")
    _check_mm(mat1, mat2, "mm")
    check_bias_expands(input, mat1.shape[0], mat2.shape[1])
    return apply(L.addmm, (input, mat1, mat2), (beta, alpha))
