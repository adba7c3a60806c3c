"""Torch-level rearranging: repeat_interleave, tile, flips, roll, rot90, the stacking helpers,
tril/triu and their index lists, diag/diag_embed/diagflat, block_diag, cdist, meshgrid, the
broadcasting helpers, cartesian_prod/combinations and unique.

``unique``, ``unique_consecutive`` and ``repeat_interleave`` with tensor repeats compute their
output size on the host, so they cannot run inside ``jax.jit``.
"""

import warnings

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._ops import reduction as R
from .._ops import shape as SH
from .._tensor import Size, Tensor, apply, _wrap, _wrap_dim
from .math import result_type
from .inplace import inplace_checked
from .indexing import index_select, masked_select, _common_shape, _host_sized
from . import shape as S
from .surface import declare


# ---------------------------------------------------------------- repeats and rearrangements

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
        return _wrap(jnp.asarray(np.repeat(np.arange(counts.size, dtype=np.int64), counts)))
    if dim is None:
        input = S.flatten(input)
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


@declare("tile", method=True)
def tile(input, dims):
    """``repeat`` with ``dims`` padded by leading 1s to the input's rank."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    dims = (1,) * (input.ndim - len(dims)) + dims
    return S.repeat(input, dims)


@declare("fliplr", method=True)
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return S.flip(input, (1,))


@declare("flipud", method=True)
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return S.flip(input, (0,))


@declare("roll", method=True)
def roll(input, shifts, dims=None):
    """Shift entries cyclically by ``shifts`` along ``dims`` (the flattened tensor if None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return apply(SH.roll, (input,), (shifts[0], None))
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(_wrap_dim(d, input.ndim) for d in dims)
    return apply(SH.roll, (input,), (shifts, dims))


@declare("rot90", method=True)
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
    return apply(SH.rot90, (input,), (int(k) % 4, (d0, d1)))


@declare("atleast_3d", numpy_names=False)
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


@declare("dstack", out=True)
def dstack(tensors):
    return S.cat([atleast_3d(t) for t in tensors], 2)


@declare("column_stack", out=True)
def column_stack(tensors):
    columns = [S.reshape(t, -1, 1) if t.ndim <= 1 else t for t in tensors]
    return S.cat(columns, 1)


@declare("row_stack", out=True)
def row_stack(tensors):
    return S.vstack(tensors)


@declare("ravel", method=True)
def ravel(input):
    return S.reshape(input, -1)


# ---------------------------------------------------------------- triangles and diagonals

def _triangle(op, name):
    def triangle(input, diagonal=0):
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return apply(op, (input,), (int(diagonal),))
    triangle.__name__ = name
    return triangle


tril = _triangle(SH.tril, "tril")
declare("tril", method=True, inplace=True, inplace_of=inplace_checked, out=True)(tril)
tril.__doc__ = "The lower triangle (on and below ``diagonal``) of the last two dims; zeros elsewhere."
triu = _triangle(SH.triu, "triu")
declare("triu", method=True, inplace=True, inplace_of=inplace_checked, out=True)(triu)
triu.__doc__ = "The upper triangle (on and above ``diagonal``) of the last two dims; zeros elsewhere."


@declare("diag_embed", method=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices whose diagonal ``offset`` (in dims ``dim1``, ``dim2`` of the output) holds the
    last dim of ``input``."""
    nd = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.ndim == 0:
        input = S.reshape(input, 1)
    return apply(SH.diag_embed, (input,), (int(offset), d1, d2))


@declare("diag", method=True, out=True)
def diag(input, diagonal=0):
    """A 1-D input becomes a matrix with it on diagonal ``diagonal``; a matrix gives that diagonal."""
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return apply(SH.diag, (input,), (int(diagonal),))


@declare("diagflat", method=True)
def diagflat(input, offset=0):
    return diag_embed(S.reshape(input, -1), offset)


@declare("block_diag", numpy_names=False)
def block_diag(*tensors):
    """The block-diagonal matrix of ``tensors`` (0-d and 1-D ones count as one row)."""
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
    if not tensors:
        return _wrap(jnp.zeros((1, 0), _dtype.get_default_dtype().np))
    return apply(SH.block_diag, tuple(tensors), (result_type(*tensors).np,))


@declare("cdist", numpy_names=False)
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
    return apply(R.cdist, (x1, x2), (float(p),))


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
        out.append(S.expand(S.view(t, tuple(view_shape)), tuple(sizes)))
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
    return tuple(t if tuple(t.shape) == shape else S.expand(t, shape) for t in tensors)


def _triangle_indices(name, row, col, offset, dtype, lower):
    for what, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{what} must be non-negative, got{v}")
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    d = _dtype.int64 if dtype is None else _dtype.to_dtype(dtype)
    return _wrap(jnp.asarray(np.stack([r, c]).astype(d.np)))


@declare("tril_indices")
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` coordinates of the lower triangle of a ``row x col`` matrix."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, True)


@declare("triu_indices")
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` coordinates of the upper triangle of a ``row x col`` matrix."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, False)


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
    flat = [apply(SH.reshape_copy, (g,), ((g.numel(),),)) for g in grids]
    return S.stack(flat, 1)


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
    return S.stack([masked_select(g, mask) for g in grids], 1)


# ---------------------------------------------------------------- unique

def _unique_result(values, inverse, counts, return_inverse, return_counts, like):
    out = [_wrap(jnp.asarray(values))]
    if return_inverse:
        out.append(_wrap(jnp.asarray(inverse.astype(np.int64))))
    if return_counts:
        out.append(_wrap(jnp.asarray(counts.astype(np.int64))))
    return out[0] if len(out) == 1 else tuple(out)


@declare("unique", method=True, numpy_names=False)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (or slices along ``dim``), sorted, computed on the host; the result
    carries no gradient."""
    arr = _host_sized("unique", input)
    if dim is None:
        values, inverse, counts = np.unique(arr.reshape(-1), return_inverse=True, return_counts=True,
                                            equal_nan=False)
        return _unique_result(values, inverse.reshape(arr.shape), counts, return_inverse, return_counts, input)
    d = _wrap_dim(dim, input.ndim)
    values, inverse, counts = np.unique(arr, return_inverse=True, return_counts=True, axis=d)
    return _unique_result(values, inverse.reshape(-1), counts, return_inverse, return_counts, input)


@declare("unique_consecutive", method=True, numpy_names=False)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive values (or slices along ``dim``), on the host."""
    arr = _host_sized("unique_consecutive", input)
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
