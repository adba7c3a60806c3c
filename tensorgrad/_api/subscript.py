"""``input[key]`` read and written (``__getitem__``/``__setitem__``: basic keys are views, advanced
ones ``index``/``index_put``), ``index_put``/``index_put_`` and ``masked_fill``/``masked_fill_``.
"""

import builtins

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._ops import elementwise as E
from .._ops import indexing as IX
from .._ops import views as V
from .._tensor import Tensor, apply, check_inplace, commit_inplace
from . import strides as _strides
from .conversion import _value_tensor
from .inplace import _fit
from .shape import expand, reshape, select, unsqueeze, view, _slice
from .surface import declare


def _is_advanced(part):
    return isinstance(part, (Tensor, list, np.ndarray, bool)) or (
        isinstance(part, tuple))


def _expand_key(key, ndim):
    """Turn a key into a list of parts with the Ellipsis spelled out as full slices."""
    if not isinstance(key, tuple):
        key = (key,)
    consumed = 0
    for part in key:
        if part is None or part is Ellipsis:
            continue
        if isinstance(part, Tensor) and part.dtype is _dtype.bool_:
            consumed += builtins.max(part.ndim, 1)
        elif isinstance(part, bool):
            continue
        else:
            consumed += 1
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    parts = []
    seen_ellipsis = False
    for part in key:
        if part is Ellipsis:
            if seen_ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen_ellipsis = True
            parts.extend([slice(None)] * (ndim - consumed))
        else:
            parts.append(part)
    return parts, seen_ellipsis


def _int_index(part):
    if isinstance(part, (int, np.integer)) and not isinstance(part, bool):
        return int(part)
    return None


def getitem(input, key):
    """``input[key]``: basic keys give a chain of views; tensor, list or mask keys copy."""
    parts, had_ellipsis = _expand_key(key, input.ndim)
    if builtins.any(_is_advanced(p) for p in parts):
        return _advanced_getitem(input, parts)
    if not parts or (had_ellipsis and builtins.all(p == slice(None) for p in parts)):
        return apply(V.alias, (input,))
    out = input
    dim = 0
    # PyTorch's out-of-range message names the part's position in the key (Ellipsis counts once)
    key_len = len(key) if isinstance(key, tuple) else 1
    extra = len(parts) - key_len + 1 if had_ellipsis else 0
    ell = next(i for i, p in enumerate(key) if p is Ellipsis) if had_ellipsis else len(parts)
    for pos, part in enumerate(parts):
        idx = _int_index(part)
        if idx is not None:
            size = out.shape[dim]
            if not -size <= idx < size:
                real = pos if pos < ell else builtins.max(ell, pos - extra + 1)
                raise IndexError(f"index {idx} is out of bounds for dimension {real} with size {size}")
            out = select(out, dim, idx)
        elif isinstance(part, slice):
            if not (isinstance(key, tuple) and _keeps_all(part, out.shape[dim])):
                start, stop, step = (None if v is None else int(v) for v in (part.start, part.stop, part.step))
                out = _slice(out, dim, start, stop, 1 if step is None else step)
            dim += 1
        elif part is None:
            out = unsqueeze(out, dim)
            dim += 1
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                f"(got {type(part).__name__})")
    return out if out is not input else apply(V.alias, (input,))


def _keeps_all(part, size):
    """Inside a tuple key PyTorch skips a slice written to keep the whole dimension (``:``, ``0:n``)."""
    return (part.start is None or part.start == 0) and (part.stop is None or part.stop >= size) and (
        part.step is None or part.step == 1)


def _index_arrays(input, parts):
    """Static spec and index arrays for an advanced key, bounds-checked like PyTorch."""
    spec = []
    arrays = []
    dim = 0
    for part in parts:
        if part is None:
            spec.append(None)
            continue
        if isinstance(part, slice):
            spec.append(("slice", part.start, part.stop, part.step))
            dim += 1
            continue
        if isinstance(part, (int, np.integer)) and not isinstance(part, bool):
            size = input.shape[dim]
            if not -size <= part < size:
                raise IndexError(f"index {part} is out of bounds for dimension {dim} with size {size}")
            spec.append(int(part))
            dim += 1
            continue
        arr = np.asarray(part._data) if isinstance(part, Tensor) else np.asarray(part)
        if arr.dtype == np.bool_ or arr.dtype == np.uint8 and isinstance(part, Tensor):
            arr = arr.astype(bool)
            for k in range(arr.ndim):
                if arr.shape[k] != input.shape[dim + k]:
                    raise IndexError(
                        f"The shape of the mask {list(arr.shape)} at index {k} does not match the shape of the "
                        f"indexed tensor {list(input.shape)} at index {dim + k}")
            for nz in np.nonzero(arr) if arr.ndim else (np.zeros(int(arr), np.int64),):
                spec.append("array")
                arrays.append(jnp.asarray(nz.astype(np.int64)))
            if arr.ndim == 0:
                spec[-1:] = [None, "array"]
            dim += arr.ndim
            continue
        if arr.dtype.kind not in "iu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        size = input.shape[dim]
        if arr.size and (arr.max() >= size or arr.min() < -size):
            bad = arr.flat[np.flatnonzero((arr >= size) | (arr < -size))[0]]
            # PyTorch counts the dimension among the indexed ones (the index tensors so far)
            raise IndexError(f"index {bad} is out of bounds for dimension {len(arrays)} with size {size}")
        spec.append("array")
        arrays.append(jnp.asarray(arr.astype(np.int64)))
        dim += 1
    return tuple(spec), tuple(arrays)


def _advanced_getitem(input, parts):
    """PyTorch applies the basic parts first (select, slice, unsqueeze), then one index op."""
    out = input
    rest = []
    dim = 0
    for part in parts:
        idx = _int_index(part)
        if idx is not None:
            out = select(out, dim, idx)
            continue
        if isinstance(part, slice) or part is None:
            if part is None:
                out = unsqueeze(out, dim)
            elif not _keeps_all(part, out.shape[dim]):
                start, stop, step = (None if v is None else int(v) for v in (part.start, part.stop, part.step))
                out = _slice(out, dim, start, stop, 1 if step is None else step)
            rest.append(slice(None))
            dim += 1
            continue
        rest.append(part)
        if isinstance(part, Tensor) and part.dtype is _dtype.bool_:
            dim += part.ndim
        elif not isinstance(part, bool):
            dim += 1
    spec, arrays = _index_arrays(out, rest)
    return apply(IX.index, (out, arrays), (spec,))


def _broadcast_value(value, shape, what):
    """PyTorch's setitem ``copy_to``: drop the value's leading 1s, then expand it to ``shape``."""
    vshape = tuple(value.shape)
    if vshape == shape:
        return value
    stripped = vshape
    while stripped and stripped[0] == 1:
        stripped = stripped[1:]
    value = view(value, stripped) if _strides.can_view(value, stripped) else reshape(value, stripped)
    return value if stripped == shape else expand(value, shape)


def setitem(input, key, value):
    """``input[key] = value``: a copy into a view (CopySlices) or an index_put (IndexPutBackward0)."""
    parts, _ = _expand_key(key, input.ndim)
    if builtins.any(_is_advanced(p) for p in parts):
        spec, arrays = _index_arrays(input, parts)
        check_inplace(input, value)
        _strides.warn_expanded(input, "index_put_")
        _index_put_dtype(input, value)
        val = _value_tensor(value, input)
        target_shape = jnp.zeros(input._data.shape, bool)[IX._build_key(spec, arrays)].shape
        _broadcast_check(val, target_shape)
        new = apply(IX.index_put, (input, arrays, val), (spec, False))
        commit_inplace(input, new)
        return
    # As PyTorch's setitem: a key that selects everything writes into input itself (a full
    # slice is not taken); a same-shaped value is copied (CopyBackwards), a 0-d one filled in
    # (FillBackward3), another one stripped of leading 1s and expanded first.
    target = input if _selects_all(parts, tuple(input.shape)) else getitem(input, key)
    val = value if isinstance(value, Tensor) else _value_tensor(value, target)
    shape = tuple(target.shape)
    if not val.ndim and shape:
        fn = V.fill_tensor
    else:
        fn = V.copy_from
        val = _broadcast_value(val, shape, "setitem")
    check_inplace(target, val)
    _strides.check_no_internal_overlap(target)
    commit_inplace(target, apply(fn, (target, val)))


def _selects_all(parts, shape):
    """Whether basic ``parts`` are all slices that PyTorch's setitem skips (``:``, ``0:n``)."""
    for part, n in zip(parts, shape):
        if not (isinstance(part, slice) and part.start in (None, 0) and part.step in (None, 1)
                and (part.stop is None or part.stop >= n)):
            return False
    return len(parts) <= len(shape)


def _broadcast_check(value, shape):
    try:
        out = jnp.broadcast_shapes(tuple(value.shape), tuple(shape))
    except ValueError:
        out = None
    if out != tuple(shape):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(value.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(shape)}")


@declare("masked_fill", method=True)
def masked_fill(input, mask, value):
    if mask.dtype is not _dtype.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.c_name}")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} dimension(s).")
        return apply(E.masked_fill_tensor, (input, mask, value))
    return apply(E.masked_fill, (input, mask, value))


def _index_put_dtype(input, value):
    if isinstance(value, Tensor) and value.dtype is not input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {input.dtype.c_name} "
                           f"for the destination and {value.dtype.c_name} for the source.")


@declare("index_put", method=True)
def index_put(input, indices, values, accumulate=False):
    spec, arrays = _index_arrays(input, list(indices))
    _index_put_dtype(input, values)
    val = _value_tensor(values, input)
    return apply(IX.index_put, (input, arrays, val), (spec, accumulate))


# ---------------------------------------------------------------- in-place twins

@declare(method=("index_put_",))
def index_put_(self, indices, values, accumulate=False):
    check_inplace(self, values)
    _strides.warn_expanded(self, "index_put_")
    return commit_inplace(self, index_put(self, indices, values, accumulate))


@declare(method=("masked_fill_",))
def masked_fill_(self, mask, value):
    check_inplace(self, value)
    _strides.warn_expanded(self, "masked_fill_")
    return commit_inplace(self, _fit(self, masked_fill(self, mask, value)))
