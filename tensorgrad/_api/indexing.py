"""Torch-level indexing: gather/scatter, index_* along a dim, masked select/scatter, take/put, the
out-of-place ``*_scatter`` ops, repeat_interleave and nonzero.

Index tensors are checked on the host (dtype, rank, bounds) so that bad input raises
PyTorch's error before anything runs. ``masked_select``, ``masked_scatter``, ``nonzero`` and
``repeat_interleave`` with tensor repeats find their output size on the host, so they cannot
run inside ``jax.jit``.
"""

import builtins
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._device import from_host
from .._ops import indexing as IX
from .._tensor import Tensor, apply, _wrap, _wrap_dim
from .conversion import clone
from . import strides as _strides
from .inplace import inplace_scattering, inplace_twin
from .operands import as_operand, _need_tensor
from .shape import expand, flatten, reshape, unsqueeze
from .surface import declare


_INDEX_DTYPES = (_dtype.int64, _dtype.int32)


def _traced(t):
    return isinstance(t._data, jax.core.Tracer)


def _host(t):
    """``t``'s values on the host for checks, or None inside a traced program (checks skipped)."""
    return None if _traced(t) else np.asarray(t._data)


def _host_sized(name, t):
    """``t``'s values on the host, for an op whose output size depends on them."""
    if _traced(t):
        raise RuntimeError(f"{name}: the output size depends on the values of a tensor, so it cannot be computed "
                           "inside jax.jit, tensorgrad.compile or tensorgrad.func transforms")
    return np.asarray(t._data)


def _index_dtype(name, index, message=None):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype not in _INDEX_DTYPES:
        raise RuntimeError(message or f"{name}(): Expected dtype int32/int64 for index")


def _bounds(index, size, dim, error=RuntimeError, allow_negative=False):
    arr = _host(index)
    if arr is None or not arr.size:
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


# ---------------------------------------------------------------- the memory rules of the in-place twins

def _warn_if_expanded(self, inputs):
    _strides.warn_expanded(self, "index_fill_")


def _index_fill_twin(fn, name=None):
    """``index_fill_``: PyTorch writes into an expanded self, with its deprecation warning."""
    return inplace_twin(fn, name, _warn_if_expanded, fit=False)


def _refuse_expanded(self, inputs):
    _strides.check_no_internal_overlap(self)


def _masked_scatter_twin(fn, name=None):
    """``masked_scatter_``: self may not be an expanded view (its source may share self's memory)."""
    return inplace_twin(fn, name, _refuse_expanded, fit=False)


# ---------------------------------------------------------------- gather and scatter

@declare("gather", method=True, out=True)
def gather(input, dim, index, *, sparse_grad=False):
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


@declare("scatter", method=True, inplace=True, inplace_of=inplace_scattering, out=True)
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
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


@declare("scatter_add", method=True, inplace=True, inplace_of=inplace_scattering, out=True)
def scatter_add(input, dim, index, src):
    """``scatter`` that adds into ``input`` (repeated indices accumulate)."""
    d = _scatter_checks("scatter_add", input, dim, index, src)
    return apply(IX.scatter_add, (input, _as_i64(index)._data, src), (d,))


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


@declare("scatter_reduce", method=True, inplace=True, inplace_of=inplace_scattering, out=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
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


@declare("index_select", method=True, out=True)
def index_select(input, dim, index):
    """The slices of ``input`` at ``index`` (a vector) along ``dim``; ``IndexSelectBackward0``."""
    _vector_index("index_select", index)
    if input.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    arr = _host(index)
    if arr is not None and arr.size and (arr.min() < 0 or arr.max() >= size):
        bad = arr[(arr < 0) | (arr >= size)].flat[0]
        # PyTorch's CPU kernel has three paths, each with its own error
        if input.ndim > 1 and input.numel() == 0 and size == 0:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if input.ndim > 1 and (d == 1 or input.numel() == 0):
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
        raise IndexError("index out of range in self")
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


@declare("index_add", method=True, inplace=True, inplace_of=inplace_scattering, out=True)
def index_add(input, dim, index, source, *, alpha=1):
    """Add ``alpha * source`` into the slices of ``input`` at ``index`` along ``dim``."""
    _vector_index("index_add_", index, "index_add_(): Expected dtype int32/int64 for index")
    d = _wrap_dim(dim, input.ndim)
    _source_fits("index_add_", input, d, index, source)
    _bounds(index, input.shape[d] if input.ndim else 1, d)
    return apply(IX.index_add, (input, _as_i64(index)._data, source), (d, alpha))


@declare("index_copy", method=True, inplace=True, inplace_of=inplace_scattering, out=True)
def index_copy(input, dim, index, source):
    """Copy ``source``'s slices into ``input`` at ``index`` along ``dim``."""
    _vector_index("index_copy_", index, "index_copy_(): Expected a long tensor for index, but got "
                  + (index.dtype.c_name if isinstance(index, Tensor) else ""))
    d = _wrap_dim(dim, input.ndim)
    _source_fits("index_copy_", input, d, index, source)
    size = input.shape[d] if input.ndim else 1
    arr = _host(index)
    if arr is not None and arr.size and (arr.min() < 0 or arr.max() >= size):
        bad = arr[(arr < 0) | (arr >= size)].flat[0]
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {size}")
    return apply(IX.index_copy, (input, _as_i64(index)._data, source), (d,))


@declare("index_fill", method=True, inplace=True, inplace_of=_index_fill_twin)
def index_fill(input, dim, index, value):
    """Fill the slices of ``input`` at ``index`` along ``dim`` with ``value`` (negative
    indices count from the end)."""
    _vector_index("index_fill_", index, "index_fill_(): Expected dtype int64 for index.")
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    arr = _host(index)
    if arr is not None and arr.size and (arr.min() < -size or arr.max() >= size):
        bad = arr[(arr < -size) | (arr >= size)].flat[0]
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    idx = _as_i64(index)._data
    complex_value = value.dtype.kind == _dtype.COMPLEX if isinstance(value, Tensor) \
        else isinstance(value, (complex, np.complexfloating))
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
    if complex_value and input.dtype.kind != _dtype.COMPLEX:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    if isinstance(value, Tensor):
        return apply(IX.index_fill_tensor, (input, idx, value), (d,))
    _dtype.check_fits(value, input.dtype)
    return apply(IX.index_fill, (input, idx, as_operand(value)), (d,))


# ---------------------------------------------------------------- masks and flat indices

def _bool_mask(name, mask):
    if not isinstance(mask, Tensor) or mask.dtype is not _dtype.bool_:
        raise RuntimeError(f"{name}: expected BoolTensor for mask")


@declare("masked_select", method=True, out=True)
def masked_select(input, mask):
    """The entries of ``input`` where ``mask`` (broadcast with it) is true, as a 1-D tensor.

    The positions are found on the host (the output size depends on the mask).
    """
    _bool_mask("masked_select", mask)
    shape = _common_shape(tuple(input.shape), tuple(mask.shape))
    positions = np.flatnonzero(np.broadcast_to(_host_sized("masked_select", mask), shape)).astype(np.int64)
    return apply(IX.masked_select, (input, jnp.asarray(positions)), (shape,))


@declare("masked_scatter", method=True)
def masked_scatter(input, mask, source):
    """``input`` with its masked entries replaced, in order, by ``source``'s first entries."""
    _bool_mask("masked_scatter_", mask)
    if source.dtype is not input.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{input.dtype.c_name} and {source.dtype.c_name}")
    shape = _common_shape(tuple(input.shape), tuple(mask.shape))
    if shape != tuple(input.shape):
        input = expand(input, shape)
    positions = np.flatnonzero(np.broadcast_to(_host_sized("masked_scatter", mask), shape)).astype(np.int64)
    if positions.size > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return apply(IX.masked_scatter, (input, jnp.asarray(positions), source))


@declare("take", method=True, out=True)
def take(input, index):
    """``input`` read as 1-D at ``index`` (negative indices count from the end)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"take(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
    if index.dtype is not _dtype.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype.c_name}")
    n = input.numel()
    arr = _host(index)
    if arr is not None and arr.size and (arr.min() < -n or arr.max() >= n):
        bad = arr[(arr < -n) | (arr >= n)].flat[0]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return apply(IX.take, (input, index._data))


@declare("take_along_dim", method=True, out=True)
def take_along_dim(input, indices, dim=None):
    """``gather`` with ``indices`` broadcast against ``input`` (or on the flattened input)."""
    if indices.dtype not in _INDEX_DTYPES:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be int64 but got {indices.dtype.c_name} "
                           "instead.")
    if dim is None:
        return gather(reshape(input, -1), 0, reshape(indices, -1))
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got "
            f"{input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = _wrap_dim(dim, input.ndim)
    arr = _host(indices)
    if arr is not None and arr.size and arr.min() < 0:     # along a dim, PyTorch counts negatives from the end
        indices = _wrap(from_host(np.where(arr < 0, arr + input.shape[d], arr)))
    in_shape = list(input.shape)
    ix_shape = list(indices.shape)
    in_shape[d] = ix_shape[d] = 1
    common = list(_common_shape(tuple(in_shape), tuple(ix_shape)))
    target_in = common.copy()
    target_in[d] = input.shape[d]
    target_ix = common.copy()
    target_ix[d] = indices.shape[d]
    # PyTorch expands both (an ExpandBackward0 node even when the shape stays)
    return gather(expand(input, tuple(target_in)), d, expand(indices, tuple(target_ix)))


# ---------------------------------------------------------------- in-place twins

@declare(inplace=("masked_scatter_",), inplace_of=_masked_scatter_twin)
def _masked_scatter_(self, mask, source):
    if tuple(_common_shape(tuple(self.shape), tuple(mask.shape))) != tuple(self.shape):
        raise RuntimeError(f"masked_scatter_: expected mask to be broadcastable to self of shape "
                           f"{list(self.shape)}, but got mask of shape {list(mask.shape)}")
    return masked_scatter(self, mask, source)


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


# ---------------------------------------------------------------- put

@declare("put", method=True, inplace=True, inplace_of=inplace_scattering)
def put(input, index, source, accumulate=False):
    """A copy of ``input`` with ``source`` written (or added, with ``accumulate``) at the flat
    positions ``index`` (negative ones count from the end)."""
    _need_tensor("put", "index", index, 2)
    _need_tensor("put", "source", source, 3)
    if index.dtype is not _dtype.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype.c_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{input.dtype.c_name} and source.dtype = {source.dtype.c_name}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    values = _host(index)
    if values is not None and values.size:
        bad = values[(values < -n) | (values >= n)]
        if bad.size:
            if n == 0:
                raise IndexError(f"out of range: tried to access index {bad.flat[0]} on an empty tensor")
            raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of {n} elements.")
    return apply(IX.put, (input, index._data, source), (bool(accumulate),))


# ---------------------------------------------------------------- repeat_interleave

@declare("repeat_interleave", method=True)
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each entry (or slice along ``dim``) ``repeats`` times.

    ``repeat_interleave(repeats)`` alone returns the indices that repeat each position; tensor
    repeats are read on the host (they set the output size).
    """
    if repeats is None:
        counts = _host_sized("repeat_interleave", input)
        if input.ndim != 1 or input.dtype.kind != _dtype.INT:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if counts.size and counts.min() < 0:
            raise RuntimeError("repeats can not be negative")
        return _wrap(from_host(np.repeat(np.arange(counts.size, dtype=np.int64), counts)))
    if dim is None:
        input = flatten(input)
        d = 0
    else:
        d = _wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if isinstance(repeats, Tensor) and repeats.numel() != 1:
        counts = _host_sized("repeat_interleave", repeats)
        if repeats.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if counts.shape[0] != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{counts.shape[0]} and input.size({d}) = {size}")
        if counts.size and counts.min() < 0:
            raise RuntimeError("repeats can not be negative")
        index = _wrap(from_host(np.repeat(np.arange(size, dtype=np.int64), counts)))
        return index_select(input, d, index)
    n = int(repeats)
    if n < 0:
        raise RuntimeError("Repeats must be non-negative")
    if input.ndim == 0:
        input = reshape(input, 1)
    shape = list(input.shape)
    spread = expand(unsqueeze(input, d + 1), tuple(shape[:d + 1] + [n] + shape[d + 1:]))
    shape[d] *= n
    return reshape(clone(spread), tuple(shape))


# ---------------------------------------------------------------- nonzero

@declare("nonzero", method=True, out=True)
def nonzero(input, *, as_tuple=False):
    if input.ndim == 0:
        found = int(bool(np.asarray(input._data)))
        if as_tuple:
            return (_wrap(from_host(np.zeros(found, np.int64))),)
        return _wrap(from_host(np.zeros((found, 0), np.int64)))
    idx = np.nonzero(np.asarray(input._data))
    if as_tuple:
        return tuple(_wrap(jnp.asarray(i.astype(np.int64))) for i in idx)
    return _wrap(from_host(np.stack(idx, axis=1).astype(np.int64).reshape(-1, input.ndim)))


@declare("argwhere", method=True)
def argwhere(input):
    return nonzero(input)
