"""The memory layout of a view: PyTorch's shape, strides and storage offset, derived from the
chain of view steps between a (contiguous) storage and the view.

jax arrays have no strides, but PyTorch's aliasing depends on them: ``view`` fails and
``reshape``/``contiguous`` copy when the elements are not laid out as the new shape needs, and a
view whose elements repeat (an expanded one) refuses most in-place writes.
"""

import math

import numpy as np


def contiguous_strides(shape):
    strides = []
    z = 1
    for n in reversed(shape):
        strides.append(z)
        z *= max(n, 1)
    return tuple(reversed(strides))


def _step(op, cfg, k, dyn, shape, strides, offset):
    """The (shape, strides, offset) after one view step, by PyTorch's rules."""
    shape, strides = list(shape), list(strides)
    name = op.name
    if name in ("unbind", "select"):
        dim = cfg[0]
        index = k if name == "unbind" else int(dyn[0])
        offset += index * strides[dim]
        del shape[dim], strides[dim]
    elif name in ("slice", "split", "split_with_sizes"):
        if name == "slice":
            dim, length, step = cfg
            start = int(dyn[0])
        else:
            sizes, dim = cfg
            start, length, step = sum(sizes[:k]), sizes[k], 1
        offset += start * strides[dim]     # an empty slice too starts where it was asked to
        shape[dim] = length
        strides[dim] *= step
    elif name == "unsqueeze":
        dim = cfg[0]
        strides.insert(dim, 1 if dim >= len(shape) else shape[dim] * strides[dim])
        shape.insert(dim, 1)
    elif name in ("squeeze", "squeeze_dim", "squeeze_dims"):
        dims = cfg[0] if cfg else tuple(d for d, n in enumerate(shape) if n == 1)
        keep = [d for d in range(len(shape)) if d not in dims]
        shape, strides = [shape[d] for d in keep], [strides[d] for d in keep]
    elif name in ("transpose", "t"):
        if len(shape) >= 2:
            d0, d1 = cfg if cfg else (0, 1)
            shape[d0], shape[d1] = shape[d1], shape[d0]
            strides[d0], strides[d1] = strides[d1], strides[d0]
    elif name == "permute":
        shape, strides = [shape[d] for d in cfg[0]], [strides[d] for d in cfg[0]]
    elif name == "expand":
        target = cfg[0]
        new_strides = [0] * len(target)
        for i in range(len(target) - 1, -1, -1):
            d = i - (len(target) - len(shape))
            if d >= 0:
                size, stride = shape[d], strides[d]
            else:
                size, stride = 1, (target[i + 1] * new_strides[i + 1] if i + 1 < len(target) else 1)
            new_strides[i] = stride if size == target[i] else 0
        shape, strides = list(target), new_strides
    elif name in ("view", "reshape_alias"):
        strides = list(view_strides(shape, strides, cfg[0]) or contiguous_strides(cfg[0]))
        shape = list(cfg[0])
    elif name == "unfold":
        dim, size, step = cfg
        if not shape:
            shape, strides = [size], [1]
        else:
            inner = strides[dim]
            shape[dim] = (shape[dim] - size) // step + 1
            strides[dim] = inner * step
            shape.append(size)
            strides.append(inner)
    elif name == "as_strided_gather":        # absolute: its own layout in the storage
        shape, strides, offset = list(cfg[0]), list(cfg[1]), cfg[2]
    elif name == "diagonal":
        off, d1, d2 = cfg
        n = max(min(shape[d1], shape[d2] - off) if off >= 0 else min(shape[d1] + off, shape[d2]), 0)
        if n:
            offset += off * strides[d2] if off >= 0 else -off * strides[d1]
        diag_stride = strides[d1] + strides[d2]
        keep = [d for d in range(len(shape)) if d not in (d1, d2)]
        shape = [shape[d] for d in keep] + [n]
        strides = [strides[d] for d in keep] + [diag_stride]
    elif name == "view_as_real":
        # strides and offset count real numbers from here on
        shape = shape + [2]
        strides = [2 * st for st in strides] + [1]
        offset *= 2
    elif name == "view_dtype":
        # strides and offset count elements of the new dtype from here on (the last dim's stride is 1)
        old, new = (np.dtype(d).itemsize for d in cfg)
        if old > new:
            r = old // new
            shape[-1] *= r
            strides = [st * r for st in strides[:-1]] + [1]
            offset *= r
        elif old < new:
            r = new // old
            shape[-1] //= r
            strides = [st // r for st in strides[:-1]] + [1]
            offset //= r
    elif name == "view_as_complex":
        shape = shape[:-1]
        strides = [st // 2 for st in strides[:-1]]
        offset //= 2
    return tuple(shape), tuple(strides), offset


def geometry(t, base=None):
    """``(shape, strides, storage_offset)`` of ``t``, as PyTorch would lay it out (``base``: the
    storage's shape, when known)."""
    base = tuple(t._cell.meta.shape) if base is None else tuple(base)
    shape, strides, offset = base, contiguous_strides(base), 0
    view = t._view
    if view is not None:
        for (op, cfg, k), dyn in zip(view[0], view[1]):
            shape, strides, offset = _step(op, cfg, k, dyn, shape, strides, offset)
    return shape, strides, offset


def view_strides(oldshape, oldstride, newshape):
    """PyTorch's ``computeStride``: the strides of ``newshape`` viewing ``oldshape``, or None."""
    if not oldshape:
        return (1,) * len(newshape)
    if math.prod(oldshape) == 0:
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        return contiguous_strides(newshape)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.")


def has_internal_overlap(t):
    """PyTorch's ``has_internal_overlap`` == YES: a dimension of size > 1 with stride 0 (expand)."""
    view = t._view
    if view is None or not any(op.name in ("expand", "as_strided_gather") for op, _, _ in view[0]):
        return False
    shape, strides, _ = geometry(t)
    return any(st == 0 and n > 1 for n, st in zip(shape, strides))


def positions(shape, strides, offset):
    """The storage position of every element of a tensor laid out as given (a flat array)."""
    pos = np.full((), offset, np.int64)
    for n, s in zip(shape, strides):
        pos = pos[..., None] + np.arange(n, dtype=np.int64) * s
    return pos.reshape(-1)


def repeats_elements(t):
    """Whether a view shows some storage element more than once (expanded, overlapping windows)."""
    view = t._view
    if view is None or not any(op.name in ("expand", "unfold", "as_strided_gather") for op, _, _ in view[0]):
        return False
    pos = positions(*geometry(t))
    return np.unique(pos).size != pos.size


def conj_bits(view):
    """PyTorch's ``(is_conj, is_neg)`` of a view: conjugated when an odd number of ``conj`` steps
    lead to it, negative when it is the imaginary part of a conjugated tensor."""
    conj = neg = real_of_conj = False
    if view is None:
        return False, False
    for (step, _, _), dyn in zip(view[0], view[1]):
        name = step.name
        if name == "conj":
            conj = not conj
        elif name == "view_as_real":
            real_of_conj, conj = conj, False
        elif name == "view_as_complex":
            conj = neg = real_of_conj = False
        elif name == "select" and real_of_conj:
            neg = int(dyn[0]) == 1
            real_of_conj = False
    return conj, neg
