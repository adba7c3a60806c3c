"""Strides at the torch level: ``stride``, ``storage_offset``, ``is_contiguous``, whether a view
is possible, and the in-place writes that PyTorch refuses because of the memory layout
(``tensorgrad/_storage/layout.py`` derives the layout from a tensor's chain of view steps).

The layout decides which in-place writes PyTorch refuses: a written-to tensor whose
elements repeat (an expanded view: ``check_no_internal_overlap``), and inputs that share part of
its memory (``check_no_partial_overlap``, ``check_no_overlap``).
"""

import math
import warnings

import numpy as np

from .._storage.layout import OVERLAP, geometry, has_internal_overlap, positions, repeats_elements, view_strides
from .._tensor import Tensor


def can_view(t, shape):
    """Whether ``t.view(shape)`` is possible without a copy."""
    if t._view is None:
        return True
    old_shape, old_strides, _ = geometry(t)
    return view_strides(old_shape, old_strides, shape) is not None


def stride(input, dim=None):
    strides = geometry(input)[1]
    if dim is None:
        return strides
    n = max(len(strides), 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return strides[dim]


def storage_offset(input):
    return geometry(input)[2]


def is_contiguous(input, memory_format=None):
    if input._view is None:
        return True
    shape, strides, _ = geometry(input)
    if 0 in shape:
        return True
    z = 1
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if st != z:
                return False
            z *= n
    return True


PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                   "single memory location. Please clone() the tensor before performing the operation.")


def check_no_internal_overlap(t):
    """The error PyTorch's elementwise kernels raise when writing into an expanded view."""
    if has_internal_overlap(t):
        raise RuntimeError(OVERLAP)


def check_no_repeated_elements(t):
    """Refuse an elementwise write into a view that shows an element twice (overlapping
    ``unfold`` windows): PyTorch computes one, in an order its kernel picks, that tensorgrad
    cannot reproduce; expanded views get PyTorch's own error."""
    check_no_internal_overlap(t)
    if repeats_elements(t):
        raise RuntimeError(OVERLAP)


def tensors_in(values):
    """The Tensors among ``values``, and inside the lists and tuples among them."""
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            for item in v:
                if isinstance(item, Tensor):
                    yield item


def _dense(shape, strides):
    """PyTorch's ``is_non_overlapping_and_dense``: the elements fill one block of memory."""
    expected = 1
    for stride, size in sorted((st, n) for n, st in zip(shape, strides) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def overlap(written, other):
    """How ``other``'s elements share memory with ``written``'s: None, ``"full"`` or ``"partial"``.

    PyTorch's ``get_overlap_status``: between two tensors whose elements each fill one block, the
    same block with the same strides is a full overlap, any other shared memory a partial one.
    Where a tensor leaves gaps or repeats elements PyTorch does not check ("too hard"), and its
    result then depends on the order its kernel visits the elements; tensorgrad calls that a
    partial overlap where the elements meet and are not laid out alike.
    """
    if other._cell is not written._cell:
        return None
    if other is written:
        return "full"
    shape_w, strides_w, offset_w = geometry(written)
    shape_o, strides_o, offset_o = geometry(other)
    size_w = math.prod(shape_w)
    size_o = math.prod(shape_o)
    if not size_w or not size_o:
        return None
    if _dense(shape_w, strides_w) and _dense(shape_o, strides_o):
        if offset_w == offset_o and size_w == size_o:
            return "full" if strides_w == strides_o else "partial"
        if offset_w < offset_o + size_o and offset_o < offset_w + size_w:
            return "partial"
        return None
    if (shape_w, strides_w, offset_w) == (shape_o, strides_o, offset_o):
        return "full"
    meet = np.intersect1d(positions(shape_w, strides_w, offset_w), positions(shape_o, strides_o, offset_o))
    return "partial" if meet.size else None


def check_no_partial_overlap(written, others):
    """PyTorch's ``assert_no_partial_overlap`` between the written-to tensor and each input
    (elementwise ops and ``copy_``: an input that is exactly the written tensor is fine)."""
    for t in tensors_in(others):
        if overlap(written, t) == "partial":
            raise RuntimeError(PARTIAL_OVERLAP)


def check_no_overlap(written, others):
    """PyTorch's ``assert_no_overlap``: no input may share memory with the written-to tensor
    (``index_put_``, ``index_add_``, ``scatter_``, ...: they read their inputs while writing)."""
    for t in tensors_in(others):
        if overlap(written, t) is not None:
            raise RuntimeError(PARTIAL_OVERLAP)


_EXPANDED_WARNINGS = {
    "index_put_": ("tensor[indices] = tensor", 976),
    "masked_fill_": ("tensor[mask] = scalar", 2450),
    "index_fill_": ("tensor[mask] = scalar", 1913),
}


def warn_expanded(t, op_name):
    """PyTorch's deprecation warning for index_put_/masked_fill_/index_fill_ on an expanded tensor."""
    if has_internal_overlap(t):
        example, line = _EXPANDED_WARNINGS[op_name]
        warnings.warn(
            f"Use of {op_name} on expanded tensors is deprecated. Please clone() the tensor before performing this "
            f"operation. This also applies to advanced indexing e.g. {example} (Triggered internally at "
            f"/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:{line}.)", UserWarning, stacklevel=3)
