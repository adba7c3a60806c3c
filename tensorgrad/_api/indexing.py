"""Torch-level indexing and rearranging: gather/scatter, index_* along a dim, masked
select/scatter, take, roll, rot90, repeat_interleave, tile, stacking helpers, meshgrid,
broadcasting helpers, tril/triu (and their index lists), diag*, block_diag, cdist, unique.

Index tensors are checked on the host (dtype, rank, bounds) so that bad input raises
PyTorch's error before anything runs. Ops whose output size depends on the data
(``masked_select``, ``unique``, ``repeat_interleave`` with tensor repeats) compute that size on
the host as well, so they cannot run inside ``jax.jit``.
"""

import builtins
import itertools
import warnings

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._ops import indexing as IX
from .._ops import shape as SH
from .._tensor import Tensor, apply, _wrap, _wrap_dim
from .creation import tensor as _tensor_factory
from .math import as_operand, result_type
from . import shape as S

__all__ = ['gather', 'scatter', 'scatter_add', 'scatter_reduce', 'index_select', 'index_add', 'index_copy',
           'index_fill', 'masked_select', 'masked_scatter', 'take', 'take_along_dim', 'repeat_interleave',
           'tile', 'fliplr', 'flipud', 'roll', 'rot90', 'dstack', 'column_stack', 'row_stack', 'atleast_3d',
           'tril', 'triu', 'diag', 'diag_embed', 'diagflat', 'block_diag', 'cdist', 'meshgrid',
           'broadcast_tensors', 'broadcast_shapes', 'tril_indices', 'triu_indices', 'cartesian_prod',
           'combinations', 'unique', 'unique_consecutive', 'ravel']

_INDEX_DTYPES = (_dtype.int64, _dtype.int32)


def _host(t):
    return np.asarray(t._data)


def _index_dtype(name, index, message=None):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype not in _INDEX_DTYPES:
        raise RuntimeError(message or f"{name}(): Expected dtype int32/int64 for index")


def _bounds(index, size, dim, error=RuntimeError, allow_negative=False):
    arr = _host(index)
    if not arr.size:
        return
    lo = -size if allow_negative else 0
    bad = arr[(arr < lo) | (arr >= size)]
    if bad.size:
        raise error(f"index {bad.flat[0]} is out of bounds for dimension {dim} with size {size}")


def _same_rank(input, index):
    if builtins.max(index.ndim, 1) != builtins.max(input.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")


def _shape_of(t):
    return tuple(t.shape) if t.ndim else (1,)


def _index_fits(input, index, dim, src=None):
    ishape, xshape = _shape_of(index), _shape_of(input)
    for d, (i, x) in enumerate(zip(ishape, xshape)):
        if d != dim and i > x:
            if src is None:
                raise RuntimeError(
                    f"Size does not match at dimension {d} expected index {list(ishape)} to be no larger than self "
                    f"{list(xshape)} apart from dimension {dim}")
            break
    else:
        if src is None or builtins.all(i <= s for i, s in zip(ishape, _shape_of(src))):
            return
    raise RuntimeError(
        f"Expected index {list(ishape)} to be no larger than self {list(xshape)} apart from dimension {dim} and to "
        f"be no larger size than src {list(_shape_of(src))}")


def _common_shape(*shapes):
    """The broadcast of tensor shapes, with PyTorch's error for tensors that do not broadcast."""
    try:
        return tuple(jnp.broadcast_shapes(*shapes))
    except ValueError:
        pass
    for i in range(1, builtins.max(len(s) for s in shapes) + 1):
        sizes = [s[-i] for s in shapes if i <= len(s) and s[-i] != 1]
        if len(set(sizes)) > 1:
            dim = builtins.max(len(s) for s in shapes) - i
            raise RuntimeError(f"The size of tensor a ({sizes[0]}) must match the size of tensor b ({sizes[1]}) at "
                               f"non-singleton dimension {dim}")
    raise RuntimeError(f"shapes {[list(s) for s in shapes]} do not broadcast")


def _as_i64(index):
    return index if index.dtype is _dtype.int64 else index.to(_dtype.int64)


# ---------------------------------------------------------------- gather and scatter

def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[i][index[i][j]]`` (for ``dim=1``); ``GatherBackward0``."""
    _index_dtype("gather", index)
    d = _wrap_dim(dim, input.ndim)
    _same_rank(input, index)
    _index_fits(input, index, d)
    _bounds(index, input.shape[d] if input.ndim else 1, d)
    return apply(IX.gather, (input, _as_i64(index)._data), (d,))


def _scatter_checks(name, input, dim, index, src):
    _index_dtype(name, index, f"{name}(): Expected dtype int64 for index")
    d = _wrap_dim(dim, input.ndim)
    _same_rank(input, index)
    if isinstance(src, Tensor):
        if src.dtype is not input.dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        _index_fits(input, index, d, src)
    else:
        _index_fits(input, index, d)
    _bounds(index, input.shape[d] if input.ndim else 1, d)
    return d


def scatter(input, dim, index, src=None, *, value=None, reduce=None, out=None):
    """Write ``src`` (a tensor or a number) into ``input`` at ``index`` along ``dim``.

    With a tensor the node is ``ScatterBackward0`` (``input`` gets no gradient where written,
    ``src`` gets the gathered gradient); with a number it is ``ScatterBackward1``.
    """
    if src is None:
        src = value
    src = as_operand(src)
    d = _scatter_checks("scatter", input, dim, index, src)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
        if isinstance(src, Tensor):
            warnings.warn(
                "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future "
                "PyTorch release. Use torch.scatter_reduce instead for more reduction options. (Triggered internally "
                "at /__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:231.)",
                UserWarning, stacklevel=2)
    idx = _as_i64(index)._data
    if isinstance(src, Tensor):
        return apply(IX.scatter, (input, idx, src), (d, reduce))
    return apply(IX.scatter_value, (input, idx, src), (d, reduce))


def scatter_add(input, dim, index, src):
    """``scatter`` that adds into ``input`` (repeated indices accumulate)."""
    d = _scatter_checks("scatter_add", input, dim, index, src)
    return apply(IX.scatter_add, (input, _as_i64(index)._data, src), (d,))


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Reduce ``src`` into ``input`` at ``index`` with ``sum``, ``prod``, ``mean``, ``amax`` or
    ``amin`` (``include_self``: whether input's own value takes part)."""
    d = _scatter_checks("scatter", input, dim, index, src)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if reduce == "mean" and input.dtype is _dtype.bool_:
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
    return apply(IX.scatter_reduce, (input, _as_i64(index)._data, src), (d, reduce, bool(include_self)))


# ---------------------------------------------------------------- along one dim

def _vector_index(name, index, message=None):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype not in _INDEX_DTYPES:
        raise RuntimeError(message or f"{name}(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")


def index_select(input, dim, index, *, out=None):
    """The slices of ``input`` at ``index`` (a vector) along ``dim``; ``IndexSelectBackward0``."""
    _vector_index("index_select", index)
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    arr = _host(index)
    if arr.size and (arr.min() < 0 or arr.max() >= size):
        bad = arr[(arr < 0) | (arr >= size)].flat[0]
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    return apply(IX.index_select, (input, _as_i64(index)._data), (d,))


def _source_fits(name, input, d, index, source):
    if source.dtype is not input.dtype:
        raise RuntimeError(f"{name}(): self ({input.dtype.c_name}) and source ({source.dtype.c_name}) must have the "
                           "same scalar type")
    n = builtins.max(index.numel(), 1) if index.ndim == 0 else index.numel()
    got = source.shape[d] if source.ndim else 1
    if got != n:
        raise RuntimeError(f"{name}(): Number of indices ({n}) should be equal to source.size(dim): ({got}), for "
                           f"dim: {d}")
    expect = list(input.shape)
    if expect:
        expect[d] = n
    if source.ndim and list(source.shape) != expect:
        raise RuntimeError(f"{name}(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {expect} at dimension {d} and source slice shape: {list(source.shape)} at "
                           f"dimension {d}.")


def index_add(input, dim, index, source, *, alpha=1, out=None):
    """Add ``alpha * source`` into the slices of ``input`` at ``index`` along ``dim``."""
    _vector_index("index_add_", index, "index_add_(): Expected dtype int32/int64 for index")
    d = _wrap_dim(dim, input.ndim)
    _source_fits("index_add_", input, d, index, source)
    _bounds(index, input.shape[d] if input.ndim else 1, d)
    return apply(IX.index_add, (input, _as_i64(index)._data, source), (d, alpha))


def index_copy(input, dim, index, source, *, out=None):
    """Copy ``source``'s slices into ``input`` at ``index`` along ``dim``."""
    _vector_index("index_copy_", index, "index_copy_(): Expected a long tensor for index, but got "
                  + (index.dtype.c_name if isinstance(index, Tensor) else ""))
    d = _wrap_dim(dim, input.ndim)
    _source_fits("index_copy_", input, d, index, source)
    size = input.shape[d] if input.ndim else 1
    arr = _host(index)
    if arr.size and (arr.min() < 0 or arr.max() >= size):
        bad = arr[(arr < 0) | (arr >= size)].flat[0]
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {size}")
    return apply(IX.index_copy, (input, _as_i64(index)._data, source), (d,))


def index_fill(input, dim, index, value):
    """Fill the slices of ``input`` at ``index`` along ``dim`` with ``value`` (negative
    indices count from the end)."""
    _vector_index("index_fill_", index, "index_fill_(): Expected dtype int64 for index.")
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    arr = _host(index)
    if arr.size and (arr.min() < -size or arr.max() >= size):
        bad = arr[(arr < -size) | (arr >= size)].flat[0]
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    idx = jnp.asarray(np.where(arr < 0, arr + size, arr).astype(np.int64))
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return apply(IX.index_fill_tensor, (input, idx, value), (d,))
    return apply(IX.index_fill, (input, idx, as_operand(value)), (d,))


# ---------------------------------------------------------------- masks and flat indices

def _bool_mask(name, mask):
    if not isinstance(mask, Tensor) or mask.dtype is not _dtype.bool_:
        raise RuntimeError(f"{name}: expected BoolTensor for mask")


def masked_select(input, mask, *, out=None):
    """The entries of ``input`` where ``mask`` (broadcast with it) is true, as a 1-D tensor.

    The positions are found on the host (the output size depends on the mask).
    """
    _bool_mask("masked_select", mask)
    shape = _common_shape(tuple(input.shape), tuple(mask.shape))
    positions = np.flatnonzero(np.broadcast_to(_host(mask), shape)).astype(np.int64)
    return apply(IX.masked_select, (input, jnp.asarray(positions)), (shape,))


def masked_scatter(input, mask, source):
    """``input`` with its masked entries replaced, in order, by ``source``'s first entries."""
    _bool_mask("masked_scatter_", mask)
    if source.dtype is not input.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{input.dtype.c_name} and {source.dtype.c_name}")
    shape = _common_shape(tuple(input.shape), tuple(mask.shape))
    if shape != tuple(input.shape):
        input = S.expand(input, shape)
    positions = np.flatnonzero(np.broadcast_to(_host(mask), shape)).astype(np.int64)
    if positions.size > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return apply(IX.masked_scatter, (input, jnp.asarray(positions), source))


def take(input, index):
    """``input`` read as 1-D at ``index`` (negative indices count from the end)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"take(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
    if index.dtype is not _dtype.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype.c_name}")
    n = input.numel()
    arr = _host(index)
    if arr.size and (arr.min() < -n or arr.max() >= n):
        bad = arr[(arr < -n) | (arr >= n)].flat[0]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return apply(IX.take, (input, index._data))


def take_along_dim(input, indices, dim=None, *, out=None):
    """``gather`` with ``indices`` broadcast against ``input`` (or on the flattened input)."""
    if indices.dtype not in _INDEX_DTYPES:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be int64 but got {indices.dtype.c_name} "
                           "instead.")
    if dim is None:
        return gather(S.reshape(input, -1), 0, S.reshape(indices, -1))
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got "
            f"{input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = _wrap_dim(dim, input.ndim)
    in_shape = list(input.shape)
    ix_shape = list(indices.shape)
    in_shape[d] = ix_shape[d] = 1
    common = list(_common_shape(tuple(in_shape), tuple(ix_shape)))
    target_in = common.copy()
    target_in[d] = input.shape[d]
    target_ix = common.copy()
    target_ix[d] = indices.shape[d]
    # PyTorch expands both (an ExpandBackward0 node even when the shape stays)
    return gather(S.expand(input, tuple(target_in)), d, S.expand(indices, tuple(target_ix)))


# ---------------------------------------------------------------- repeats and rearrangements

def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each entry (or slice along ``dim``) ``repeats`` times.

    ``repeat_interleave(repeats)`` alone returns the indices that repeat each position; tensor
    repeats are read on the host (they set the output size).
    """
    if repeats is None:
        counts = _host(input)
        if input.ndim != 1 or input.dtype.kind != _dtype.INT:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if counts.size and counts.min() < 0:
            raise RuntimeError("repeats can not be negative")
        return _wrap(jnp.asarray(np.repeat(np.arange(counts.size, dtype=np.int64), counts)))
    if dim is None:
        input = S.flatten(input)
        d = 0
    else:
        d = _wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if isinstance(repeats, Tensor) and repeats.numel() != 1:
        counts = _host(repeats)
        if repeats.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if counts.shape[0] != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{counts.shape[0]} and input.size({d}) = {size}")
        if counts.size and counts.min() < 0:
            raise RuntimeError("repeats can not be negative")
        index = _wrap(jnp.asarray(np.repeat(np.arange(size, dtype=np.int64), counts)))
        return index_select(input, d, index)
    n = int(repeats)
    if n < 0:
        raise RuntimeError("Repeats must be non-negative")
    if input.ndim == 0:
        input = S.reshape(input, 1)
    shape = list(input.shape)
    spread = S.expand(S.unsqueeze(input, d + 1), tuple(shape[:d + 1] + [n] + shape[d + 1:]))
    shape[d] *= n
    return S.reshape(S.clone(spread), tuple(shape))


def tile(input, dims):
    """``repeat`` with ``dims`` padded by leading 1s to the input's rank."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    dims = (1,) * (input.ndim - len(dims)) + dims
    return S.repeat(input, dims)


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return S.flip(input, (1,))


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return S.flip(input, (0,))


def roll(input, shifts, dims=None):
    """Shift entries cyclically by ``shifts`` along ``dims`` (the flattened tensor if None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return apply(IX.roll, (input,), (shifts[0], None))
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(_wrap_dim(d, input.ndim) for d in dims)
    return apply(IX.roll, (input,), (shifts, dims))


def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first toward the second)."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (_wrap_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return apply(IX.rot90, (input,), (int(k) % 4, (d0, d1)))


def atleast_3d(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(atleast_3d(t) for t in tensors[0])
    if len(tensors) != 1:
        return tuple(atleast_3d(t) for t in tensors)
    t = tensors[0]
    if t.ndim == 0:
        return S.reshape(t, 1, 1, 1)
    if t.ndim == 1:
        return S.unsqueeze(S.unsqueeze(t, 0), -1)
    if t.ndim == 2:
        return S.unsqueeze(t, -1)
    return t


def dstack(tensors, *, out=None):
    return S.cat([atleast_3d(t) for t in tensors], 2)


def column_stack(tensors, *, out=None):
    columns = [S.reshape(t, -1, 1) if t.ndim <= 1 else t for t in tensors]
    return S.cat(columns, 1)


def row_stack(tensors, *, out=None):
    return S.vstack(tensors)


def ravel(input):
    return S.reshape(input, -1)


# ---------------------------------------------------------------- triangles and diagonals

def _triangle(op, name):
    def triangle(input, diagonal=0, *, out=None):
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return apply(op, (input,), (int(diagonal),))
    triangle.__name__ = name
    return triangle


tril = _triangle(IX.tril, "tril")
tril.__doc__ = "The lower triangle (on and below ``diagonal``) of the last two dims; zeros elsewhere."
triu = _triangle(IX.triu, "triu")
triu.__doc__ = "The upper triangle (on and above ``diagonal``) of the last two dims; zeros elsewhere."


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices whose diagonal ``offset`` (in dims ``dim1``, ``dim2`` of the output) holds the
    last dim of ``input``."""
    nd = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.ndim == 0:
        input = S.reshape(input, 1)
    return apply(IX.diag_embed, (input,), (int(offset), d1, d2))


def diag(input, diagonal=0, *, out=None):
    """A 1-D input becomes a matrix with it on diagonal ``diagonal``; a matrix gives that diagonal."""
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return apply(IX.diag, (input,), (int(diagonal),))


def diagflat(input, offset=0):
    return diag_embed(S.reshape(input, -1), offset)


def block_diag(*tensors):
    """The block-diagonal matrix of ``tensors`` (0-d and 1-D ones count as one row)."""
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
    if not tensors:
        return _wrap(jnp.zeros((1, 0), _dtype.get_default_dtype().np))
    return apply(IX.block_diag, tuple(tensors), (result_type(*tensors).np,))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise ``p``-norm distances between the rows of ``x1`` and ``x2`` (batched)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
        if x.dtype.kind != _dtype.FLOAT:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {x.dtype.c_name}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"cdist: expected both inputs to have same dtype, but got {x1.dtype.c_name} and "
                           f"{x2.dtype.c_name}")
    return apply(IX.cdist, (x1, x2), (float(p),))


# ---------------------------------------------------------------- grids and broadcasting

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
        out.append(S.expand(S.view(t, tuple(view_shape)), tuple(sizes)))
    return tuple(out)


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
    from .._tensor import Size
    return Size(result)


def broadcast_tensors(*tensors):
    """Views of ``tensors`` expanded to their common shape (a tensor already that shape is
    returned as is)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = tuple(_common_shape(*(tuple(t.shape) for t in tensors)))
    return tuple(t if tuple(t.shape) == shape else S.expand(t, shape) for t in tensors)


def _triangle_indices(name, row, col, offset, dtype, lower):
    for what, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{what} must be non-negative, got{v}")
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    d = _dtype.int64 if dtype is None else _dtype.to_dtype(dtype)
    return _wrap(jnp.asarray(np.stack([r, c]).astype(d.np)))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` coordinates of the lower triangle of a ``row x col`` matrix."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` coordinates of the upper triangle of a ``row x col`` matrix."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, False)


def _need_vectors(tensors):
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def cartesian_prod(*tensors):
    """All combinations of one entry from each 1-D tensor, as rows."""
    _need_vectors(tensors)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    flat = [apply(SH.reshape_copy, (g,), ((g.numel(),),)) for g in grids]
    return S.stack(flat, 1)


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
    return S.stack([masked_select(g, mask) for g in grids], 1)


# ---------------------------------------------------------------- unique

def _unique_result(values, inverse, counts, return_inverse, return_counts, like):
    out = [_wrap(jnp.asarray(values))]
    if return_inverse:
        out.append(_wrap(jnp.asarray(inverse.astype(np.int64))))
    if return_counts:
        out.append(_wrap(jnp.asarray(counts.astype(np.int64))))
    return out[0] if len(out) == 1 else tuple(out)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (or slices along ``dim``), sorted, computed on the host; the result
    carries no gradient."""
    arr = _host(input)
    if dim is None:
        values, inverse, counts = np.unique(arr.reshape(-1), return_inverse=True, return_counts=True,
                                            equal_nan=False)
        return _unique_result(values, inverse.reshape(arr.shape), counts, return_inverse, return_counts, input)
    d = _wrap_dim(dim, input.ndim)
    values, inverse, counts = np.unique(arr, return_inverse=True, return_counts=True, axis=d)
    return _unique_result(values, inverse.reshape(-1), counts, return_inverse, return_counts, input)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive values (or slices along ``dim``), on the host."""
    arr = _host(input)
    if dim is None:
        flat = arr.reshape(-1)
        if flat.size == 0:
            return _unique_result(flat, np.zeros(arr.shape, np.int64), np.zeros(0, np.int64), return_inverse,
                                  return_counts, input)
        starts = np.concatenate([[True], flat[1:] != flat[:-1]])
        inverse = np.cumsum(starts) - 1
        counts = np.diff(np.append(np.flatnonzero(starts), flat.size))
        return _unique_result(flat[starts], inverse.reshape(arr.shape), counts, return_inverse, return_counts, input)
    d = _wrap_dim(dim, input.ndim)
    moved = np.moveaxis(arr, d, 0)
    if moved.shape[0] == 0:
        return _unique_result(arr, np.zeros(0, np.int64), np.zeros(0, np.int64), return_inverse, return_counts, input)
    rows = moved.reshape(moved.shape[0], -1)
    starts = np.concatenate([[True], np.any(rows[1:] != rows[:-1], axis=1)])
    inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), rows.shape[0]))
    values = np.moveaxis(moved[starts], 0, d)
    return _unique_result(values, inverse, counts, return_inverse, return_counts, input)


# ---------------------------------------------------------------- in-place twins

def _inplace_checked(fn, name):
    """An in-place twin whose result must keep ``self``'s shape (scatter_ and friends)."""
    def method(self, *args, **kwargs):
        from .._tensor import check_inplace, commit_inplace
        check_inplace(self)
        return commit_inplace(self, fn(self, *args, **kwargs))
    method.__name__ = name
    return method


def _masked_scatter_(self, mask, source):
    if tuple(_common_shape(tuple(self.shape), tuple(mask.shape))) != tuple(self.shape):
        raise RuntimeError(f"masked_scatter_: expected mask to be broadcastable to self of shape "
                           f"{list(self.shape)}, but got mask of shape {list(mask.shape)}")
    return masked_scatter(self, mask, source)


METHODS = {
    "gather": gather, "scatter": scatter, "scatter_add": scatter_add, "scatter_reduce": scatter_reduce,
    "index_select": index_select, "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill,
    "masked_select": masked_select, "masked_scatter": masked_scatter, "take": take,
    "take_along_dim": take_along_dim, "repeat_interleave": repeat_interleave, "tile": tile, "fliplr": fliplr,
    "flipud": flipud, "roll": roll, "rot90": rot90, "tril": tril, "triu": triu, "diag": diag,
    "diag_embed": diag_embed, "diagflat": diagflat, "unique": unique, "unique_consecutive": unique_consecutive,
    "ravel": ravel,
}

INPLACE = {
    "scatter_": _inplace_checked(scatter, "scatter_"),
    "scatter_add_": _inplace_checked(scatter_add, "scatter_add_"),
    "scatter_reduce_": _inplace_checked(scatter_reduce, "scatter_reduce_"),
    "index_add_": _inplace_checked(index_add, "index_add_"),
    "index_copy_": _inplace_checked(index_copy, "index_copy_"),
    "index_fill_": _inplace_checked(index_fill, "index_fill_"),
    "masked_scatter_": _inplace_checked(_masked_scatter_, "masked_scatter_"),
    "tril_": _inplace_checked(tril, "tril_"),
    "triu_": _inplace_checked(triu, "triu_"),
}
