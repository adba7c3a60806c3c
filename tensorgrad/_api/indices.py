"""Index arithmetic and reductions at indices: ``unravel_index``, ``nonzero_static`` and
``index_reduce``.
"""

import math

import numpy as np

from .. import _dtype
from .._device import from_host
from .._ops import indexing as IX
from .._tensor import Tensor, apply, _wrap, _wrap_dim
from . import indexing as _indexing
from .creation import tensor as _tensor
from .inplace import inplace_scattering
from .surface import declare


@declare("unravel_index")
def unravel_index(indices, shape):
    """The coordinates in an array of ``shape`` of each flat index (a tuple of int64 tensors).

    >>> import tensorgrad as torch
    >>> torch.unravel_index(torch.tensor([4, 7]), (2, 4))
    (tensor([1, 1]), tensor([0, 3]))
    """
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype is _dtype.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(not isinstance(n, int) for n in shape):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {shape}")
    if any(n < 0 for n in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not shape:
        return ()
    if 0 in shape:
        raise RuntimeError("ZeroDivisionError")
    coefs = [math.prod(shape[k + 1:]) for k in range(len(shape))]
    flat = indices.to(_dtype.int64).unsqueeze(-1)
    coords = flat.floor_divide(_tensor(coefs, dtype=_dtype.int64)) % _tensor(list(shape), dtype=_dtype.int64)
    return coords.unbind(-1)


@declare("nonzero_static", method=True, out=True)
def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero``'s rows, cut or padded with ``fill_value`` to exactly ``size`` rows."""
    if not isinstance(size, int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    values = _indexing._host_sized("nonzero_static", input)
    rows = np.argwhere(values).astype(np.int64)[:size]
    padded = np.full((size, input.ndim), fill_value, np.int64)
    padded[:len(rows)] = rows
    return _wrap(from_host(padded))


# ---------------------------------------------------------------- index_reduce

_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


@declare("index_reduce", method=True, inplace=True, inplace_of=inplace_scattering, out=True)
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduce the slices of ``source`` along ``dim`` into ``input``'s slices ``index`` with
    ``prod``, ``mean``, ``amax`` or ``amin`` (``include_self``: input's own value takes part)."""
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = _wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{index.dtype.c_name} and size: {list(index.shape)}")
    if index.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {index.dtype.c_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype.c_name}) and source ({source.dtype.c_name}) must "
                           f"have the same scalar type")
    if source.ndim != input.ndim or any(a != b for k, (a, b) in enumerate(zip(input.shape, source.shape)) if k != d):
        if input.ndim or source.ndim:
            raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                               f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    count = source.shape[d] if source.ndim else 1
    if index.numel() != count:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({count}), for dim: {dim}")
    if input.dtype is _dtype.bool_ and not include_self:
        raise NotImplementedError('"index_reduce_func_exclude_input_init" not implemented for \'Bool\'')
    if input.dtype is _dtype.bool_ and reduce == "mean":
        raise NotImplementedError('"div_floor_cpu" not implemented for \'Bool\'')
    values = _indexing._host(index)
    size = input.shape[d] if input.ndim else 1
    if values is not None and values.size and (values.min() < 0 or values.max() >= size):
        raise IndexError("index out of range in self")
    index = index.to(_dtype.int64).reshape(-1)
    return apply(IX.index_reduce, (input, index._data, source), (d, reduce, bool(include_self)))
