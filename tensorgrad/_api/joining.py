"""Joining and splitting tensors: cat/stack and the stacking helpers, atleast_*d, unbind/split/
chunk/tensor_split and hsplit/vsplit/dsplit, block_diag, meshgrid, the broadcasting helpers and
cartesian_prod/combinations.
"""

import builtins
import warnings

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._ops import indexing as IX
from .._ops import shape as S
from .._ops import views as V
from .._tensor import Size, Tensor, apply, stacked_rows, _wrap, _wrap_dim
from .indexing import masked_select, _common_shape
from .operands import result_type
from .shape import expand, reshape, unsqueeze, view, _slice
from .surface import declare


# ---------------------------------------------------------------- joining

def _tensor_list(name, tensors, empty="{} expects a non-empty TensorList"):
    """``tensors`` as a tuple of Tensors, with PyTorch's errors: a list or tuple is required (not
    a Tensor or a generator), of Tensors only, not empty (``empty``'s message, for ``name``)."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    if not tensors:
        raise (ValueError if empty.startswith("torch.") else RuntimeError)(empty.format(name))
    return tuple(tensors)


def _join(tensors, name, empty="{} expects a non-empty TensorList"):
    tensors = _tensor_list(name, tensors, empty)
    return tensors, result_type(*tensors)


@declare("cat", "concat", "concatenate", out=True)
def cat(tensors, dim=0):
    tensors, d = _join(tensors, "cat", "torch.{}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]
    ref = kept[0] if kept else tensors[0]
    nd = ref.ndim
    dim = _wrap_dim(dim, nd)
    for i, t in enumerate(tensors):
        if t.ndim == 1 and t.shape[0] == 0:
            continue
        if t.ndim != nd:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {nd} and {t.ndim}")
        for k in range(nd):
            if k != dim and t.shape[k] != ref.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size {ref.shape[k]} but got "
                    f"size {t.shape[k]} for tensor number {i} in the list.")
    return apply(S.cat, tuple(kept) or tensors[:1], (dim, d.np))


concat = concatenate = cat


@declare("stack", out=True)
def stack(tensors, dim=0):
    tensors, d = _join(tensors, "stack")
    shape = tuple(tensors[0].shape)
    for i, t in enumerate(tensors):
        if tuple(t.shape) != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                f"{list(t.shape)} at entry {i}")
    dim = _wrap_dim(dim, len(shape) + 1)
    if dim == 0 and len(tensors) > 1 and tensors[0]._view is not None:
        rows = stacked_rows(tensors, V.select, IX.index_select)    # a batch of a dataset's x[i]
        if rows is not None:
            return rows
    return apply(S.stack, tensors, (dim, d.np))


@declare("hstack", out=True)
def hstack(tensors):
    tensors = [atleast_1d(t) for t in _tensor_list("hstack", tensors)]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


@declare("vstack", out=True)
def vstack(tensors):
    return _vstack("vstack", tensors)


def _vstack(name, tensors):
    return cat([atleast_2d(t) for t in _tensor_list(name, tensors, "vstack expects a non-empty TensorList")], 0)


def _each(fn, tensors):
    """``fn`` of one tensor, or a tuple of ``fn`` of each (given as arguments or as one sequence)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(fn(t) for t in tensors[0])
    if len(tensors) != 1:
        return tuple(fn(t) for t in tensors)
    return fn(tensors[0])


@declare("atleast_1d", numpy_names=False)
def atleast_1d(*tensors):
    return _each(_atleast_1d, tensors)


def _atleast_1d(t):
    return t.reshape(1) if t.ndim == 0 else t


@declare("atleast_2d", numpy_names=False)
def atleast_2d(*tensors):
    return _each(_atleast_2d, tensors)


def _atleast_2d(t):
    if t.ndim == 1:
        return unsqueeze(t, 0)  # UnsqueezeBackward0, as PyTorch
    return t.reshape(1, -1) if t.ndim < 2 else t


@declare("atleast_3d", numpy_names=False)
def atleast_3d(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(atleast_3d(t) for t in tensors[0])
    if len(tensors) != 1:
        return tuple(atleast_3d(t) for t in tensors)
    t = tensors[0]
    if t.ndim == 0:
        return reshape(t, 1, 1, 1)
    if t.ndim == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    if t.ndim == 2:
        return unsqueeze(t, -1)
    return t


@declare("dstack", out=True)
def dstack(tensors):
    return cat([atleast_3d(t) for t in _tensor_list("dstack", tensors)], 2)


@declare("column_stack", out=True)
def column_stack(tensors):
    columns = [reshape(t, -1, 1) if t.ndim <= 1 else t for t in _tensor_list("column_stack", tensors)]
    return cat(columns, 1)


@declare("row_stack", out=True)
def row_stack(tensors):
    return _vstack("row_stack", tensors)


# ---------------------------------------------------------------- splitting

@declare("unbind", method=True)
def unbind(input, dim=0):
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = _wrap_dim(dim, input.ndim)
    return apply(V.unbind, (input,), (dim,))


@declare("split", method=True, numpy_names=False)
def split(input, split_size_or_sections, dim=0):
    dim = _wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0 and size:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        sizes = tuple(builtins.min(step, size - i) for i in range(0, size, step)) or (0,)
        return apply(V.split, (input,), (sizes, dim))
    sizes = tuple(int(s) for s in split_size_or_sections)
    if builtins.sum(sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension "
            f"{dim}), but got split_sizes={list(sizes)}")
    return apply(V.split_with_sizes, (input,), (sizes, dim))


@declare("chunk", method=True)
def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = input.shape[_wrap_dim(dim, input.ndim)]
    step = -(-size // chunks) if size else 1
    return split(input, step, dim)


@declare("tensor_split", method=True)
def tensor_split(input, indices_or_sections, dim=0):
    dim = _wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.dtype is not _dtype.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{indices_or_sections.dtype.c_name}")
        if indices_or_sections.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {indices_or_sections.ndim} dims")
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        bounds = [i * (size // n) + builtins.min(i, size % n) for i in range(n + 1)]
    else:
        bounds = [0] + [builtins.min(int(i), size) for i in indices_or_sections] + [size]
    return tuple(_slice(input, dim, a, b, 1) for a, b in zip(bounds[:-1], bounds[1:]))


def _dir_split(name, min_dims, dim):
    def split(input, indices_or_sections):
        if input.ndim < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                               f"with {input.ndim} dimensions!")
        d = 0 if (name == "hsplit" and input.ndim == 1) else dim
        if not isinstance(indices_or_sections, (int, list, tuple, Tensor)):
            got = type(indices_or_sections).__name__
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got (Tensor, {got}), but expected one of:\n"
                + "".join(f" * (Tensor input, {sig})\n      didn't match because some of the arguments have invalid "
                          f"types: (Tensor, !{got}!)\n" for sig in ("int sections", "tuple of ints indices")))
        if isinstance(indices_or_sections, int):
            size = input.shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                                   f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)
    split.__name__ = name
    split.__doc__ = f"``tensor_split`` along dimension {dim} (views); an int must divide the size."
    return split


hsplit = _dir_split("hsplit", 1, 1)
declare("hsplit", method=True)(hsplit)


vsplit = _dir_split("vsplit", 2, 0)
declare("vsplit", method=True)(vsplit)


dsplit = _dir_split("dsplit", 3, 2)
declare("dsplit", method=True)(dsplit)


# ---------------------------------------------------------------- block_diag

@declare("block_diag", numpy_names=False)
def block_diag(*tensors):
    """The block-diagonal matrix of ``tensors`` (0-d and 1-D ones count as one row)."""
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
    if not tensors:
        return _wrap(jnp.zeros((1, 0), _dtype.get_default_dtype().np))
    return apply(S.block_diag, tuple(tensors), (result_type(*tensors).np,))


# ---------------------------------------------------------------- grids and broadcasting

@declare("meshgrid", numpy_names=False)
def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors (``indexing='ij'`` matrix order, ``'xy'`` Cartesian)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. (Triggered "
            "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4324.)", UserWarning,
            stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                               f"{t.ndim}D tensor")
    n = len(tensors)
    sizes = [t.numel() for t in tensors]
    swap = indexing == "xy" and n >= 2
    if swap:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(tensors):
        axis = i
        if swap and i < 2:
            axis = 1 - i
        view_shape = [1] * n
        view_shape[axis] = -1
        out.append(expand(view(t, tuple(view_shape)), tuple(sizes)))
    return tuple(out)


@declare("broadcast_shapes", numpy_names=False)
def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to (an int counts as a 1-D shape)."""
    result = []
    for i, shape in enumerate(shapes):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for k in range(1, len(shape) + 1):
            size = shape[-k]
            if k > len(result):
                result.insert(0, size)
            elif result[-k] == 1:
                result[-k] = size
            elif size != 1 and size != result[-k]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at -{k}! Mismatching argument at index "
                    f"{i} had {tuple(shape)}; but expected shape should be broadcastable to {result}")
    return Size(result)


@declare("broadcast_tensors", numpy_names=False)
def broadcast_tensors(*tensors):
    """Views of ``tensors`` expanded to their common shape (a tensor already that shape is
    returned as is)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = tuple(_common_shape(*(tuple(t.shape) for t in tensors)))
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


def _need_vectors(tensors):
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


@declare("cartesian_prod", numpy_names=False)
def cartesian_prod(*tensors):
    """All combinations of one entry from each 1-D tensor, as rows."""
    _need_vectors(tensors)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    flat = [apply(S.reshape_copy, (g,), ((g.numel(),),)) for g in grids]
    return stack(flat, 1)


@declare("combinations")
def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-D tensor's entries, as rows (``itertools`` order)."""
    _need_vectors((input,))
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _wrap(jnp.zeros((0,), input._data.dtype))
    n = input.shape[0]
    grids = meshgrid(*([input] * r), indexing="ij")
    positions = np.indices((n,) * r).reshape(r, -1)
    keep = np.ones(positions.shape[1], bool)
    for k in range(r - 1):
        keep &= positions[k] <= positions[k + 1] if with_replacement else positions[k] < positions[k + 1]
    mask = _wrap(jnp.asarray(keep.reshape((n,) * r)))
    return stack([masked_select(g, mask) for g in grids], 1)
