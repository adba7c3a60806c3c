"""``input[key]`` read and written (``__getitem__``/``__setitem__``: basic keys are views, advanced
ones ``index``/``index_put``), ``index_put``/``index_put_`` and ``masked_fill``/``masked_fill_``.
"""

import builtins
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._device import from_host
from .._ops import elementwise as E
from .._ops import indexing as IX
from .._ops import views as V
from .._tensor import Tensor, apply, check_inplace, commit_inplace, deferred_row, _wrap, _C_TYPE
from . import strides as _strides
from .conversion import _value_tensor
from .inplace import _fit
from .shape import expand, reshape, select, unsqueeze, view, _slice
from .surface import declare


def _is_advanced(part):
    return isinstance(part, (Tensor, list, np.ndarray, bool, np.bool_)) or (
        isinstance(part, tuple))


def _is_mask(part):
    return isinstance(part, Tensor) and part.dtype in (_dtype.bool_, _dtype.uint8)


def _scalar_bool(part):
    """The flag of a 0-d boolean index (``True``, ``tensor(False)``, a 0-d uint8 tensor), else None.

    PyTorch indexes with it a new dimension of size 1, taking its one entry or none.
    """
    if isinstance(part, (bool, np.bool_)):
        return bool(part)
    if (_is_mask(part) or isinstance(part, np.ndarray) and part.dtype == np.bool_) and part.ndim == 0 and not (
            isinstance(part, Tensor) and _traced(part)):
        return bool(part)
    return None


def _traced(t):
    return isinstance(t._data, jax.core.Tracer)


def _as_int(part):
    """A 0-d integer tensor indexes as its value (PyTorch selects: the result is a view)."""
    if (isinstance(part, Tensor) and part.ndim == 0 and part.dtype.kind == _dtype.INT and not _is_mask(part)
            and not _traced(part)):
        return int(part)
    return part


_SEQUENCE_KEY = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use "
    "x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
    "which will result either in an error or a different result (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/python_variable_indexing.cpp:{}.)")


def _as_key(key):
    """PyTorch's (NumPy's old) ``treatSequenceAsTuple``: a list shorter than 32 holding a tensor, a
    sequence, a slice, an Ellipsis or None is the tuple of its items, with a deprecation warning
    (whose line says which of them came first)."""
    if type(key) is not list or len(key) >= 32:
        return key
    for k in key:
        line = 349 if isinstance(k, (Tensor, list, tuple, np.ndarray, slice)) else 359 if (
            k is None or k is Ellipsis) else None
        if line is not None:
            warnings.warn(_SEQUENCE_KEY.format(line), UserWarning, stacklevel=3)
            return tuple(key)
    return key


def _sequence_index(part):
    """PyTorch's ``sequenceToVariable``: a list, tuple or NumPy array part indexes as a bool tensor
    (a mask) or else as a long one (floats truncated, ``[]`` empty)."""
    if not isinstance(part, (list, tuple, np.ndarray)) or isinstance(part, np.ndarray) and not part.ndim:
        return part
    arr = np.asarray(part)
    return _wrap(from_host(arr if arr.dtype == np.bool_ else arr.astype(np.int64)))


def _expand_key(key, ndim):
    """Turn a key into a list of parts with the Ellipsis spelled out as full slices.

    Returns the parts, each part's position in the key (PyTorch's errors name it), and whether
    the key had an Ellipsis.
    """
    if not isinstance(key, tuple):
        key = (key,)
    key = tuple(_as_int(_sequence_index(part)) for part in key)
    consumed = 0
    for part in key:
        if part is None or part is Ellipsis or _scalar_bool(part) is not None:
            continue
        consumed += part.ndim if _is_mask(part) else 1
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    parts = []
    places = []
    seen_ellipsis = past_end = False
    for place, part in enumerate(key):
        if part is Ellipsis:
            # PyTorch takes every Ellipsis for the dims not indexed: a second one moves past the end
            past_end = seen_ellipsis and consumed < ndim
            if not seen_ellipsis:
                parts.extend([slice(None)] * (ndim - consumed))
                places.extend([place] * (ndim - consumed))
            seen_ellipsis = True
        elif past_end and isinstance(part, slice) and part == slice(None):
            continue                    # PyTorch skips a full slice, even there
        elif past_end:
            raise IndexError(f"too many indices for tensor of dimension {ndim}")
        else:
            parts.append(part)
            places.append(place)
    return parts, places, seen_ellipsis


def _select(input, dim, index, place):
    """``input.select(dim, index)`` for the key part at ``place``, with PyTorch's indexing error."""
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {place} with size {size}")
    return select(input, dim, index)


def _int_index(part):
    if isinstance(part, (int, np.integer)) and not isinstance(part, bool):
        return int(part)
    return None


def getitem(input, key):
    """``input[key]``: basic keys give a chain of views; tensor, list or mask keys copy."""
    if type(key) is int:        # ``x[i]``, a dataset's sample: the select alone
        shape = input.shape
        if shape:
            size = shape[0]
            if not -size <= key < size:
                raise IndexError(f"index {key} is out of bounds for dimension 0 with size {size}")
            row = deferred_row(input, key % size, V.select)
            return apply(V.select, (input, key % size), (0,)) if row is None else row
    key = _as_key(key)
    parts, places, had_ellipsis = _expand_key(key, input.ndim)
    if builtins.any(_is_advanced(p) for p in parts):
        return _advanced_getitem(input, parts, places)
    if not parts or (had_ellipsis and builtins.all(p == slice(None) for p in parts)):
        return apply(V.alias, (input,))
    out = input
    dim = 0
    for part, place in zip(parts, places):
        idx = _int_index(part)
        if idx is not None:
            out = _select(out, dim, idx, place)
        elif isinstance(part, slice):
            if not (isinstance(key, tuple) and _keeps_all(part, out.shape[dim])):
                out = _slice_part(out, dim, part)
            dim += 1
        elif part is None:
            out = unsqueeze(out, dim)
            dim += 1
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                f"(got {type(part).__name__})")
    return out if out is not input else apply(V.alias, (input,))


def _slice_part(input, dim, part):
    """``input`` sliced along ``dim`` by the key part ``part`` (Python's error for a zero step)."""
    start, stop, step = (None if v is None else int(v) for v in (part.start, part.stop, part.step))
    if step == 0:
        raise ValueError("slice step cannot be zero")
    return _slice(input, dim, start, stop, 1 if step is None else step)


def _keeps_all(part, size):
    """Inside a tuple key PyTorch skips a slice written to keep the whole dimension (``:``, ``0:n``)."""
    return (part.start is None or part.start == 0) and (part.stop is None or part.stop >= size) and (
        part.step is None or part.step == 1)


def _index_arrays(input, parts):
    """Static spec and index arrays for an advanced key, checked like PyTorch."""
    spec, arrays, out_of_bounds = _index_layout(input, parts)
    if out_of_bounds is not None:
        raise out_of_bounds
    return spec, arrays


def _index_layout(input, parts):
    """``_index_arrays`` with the error of an index out of bounds returned (PyTorch's kernel raises
    it after ``index_put``'s value checks, and only when the result has elements), not raised."""
    spec = []
    arrays = []
    free = 1                # the elements of each index position: the dims no array indexes
    bad = late = None
    dim = 0
    for part in parts:
        if part is None:
            spec.append(None)
            continue
        if isinstance(part, slice):
            spec.append(("slice", part.start, part.stop, part.step))
            free *= len(range(*part.indices(input.shape[dim])))
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
            for nz in np.nonzero(arr):
                spec.append("array")
                arrays.append(nz.astype(np.int64))
            dim += arr.ndim
            continue
        size = input.shape[dim]
        if arr.dtype.kind not in "iu":
            late = late or IndexError("tensors used as indices must be long, int, byte or bool tensors")
        elif arr.size and not size:
            late = late or IndexError("index is out of bounds for dimension with size 0")
        elif bad is None and arr.size and (arr.max() >= size or arr.min() < -size):
            value = arr.flat[np.flatnonzero((arr >= size) | (arr < -size))[0]]
            # PyTorch counts the dimension among the indexed ones (the index tensors so far)
            bad = IndexError(f"index {value} is out of bounds for dimension {len(arrays)} with size {size}")
        spec.append("array")
        arrays.append(arr.astype(np.int64) if arr.dtype.kind in "iu" else arr)
        dim += 1
    free *= math.prod(input.shape[dim:])
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(a.shape)) for a in arrays)) from None
    if late is not None:    # PyTorch checks the index tensors' broadcast first, their dtypes then
        raise late
    return tuple(spec), tuple(jnp.asarray(a) for a in arrays), bad if free * math.prod(shape) else None


def _apply_slicing(input, parts, places):
    """PyTorch's ``applySlicing``: the basic parts of an advanced key are applied first (select,
    slice, unsqueeze; a 0-d boolean unsqueezes and indexes the new dimension with ``[0]`` or
    ``[]``), leaving one index op for the tensor parts.

    Returns the sliced tensor (a view, or ``input`` itself) and the parts left for it: a full
    slice for each dimension not indexed, and the index tensors, lists and arrays.
    """
    out = input
    rest = []
    dim = 0
    for part, place in zip(parts, places):
        idx = _int_index(part)
        if idx is not None:
            out = _select(out, dim, idx, place)
            continue
        if isinstance(part, slice) or part is None:
            if part is None:
                out = unsqueeze(out, dim)
            elif not _keeps_all(part, out.shape[dim]):
                out = _slice_part(out, dim, part)
            rest.append(slice(None))
            dim += 1
            continue
        flag = _scalar_bool(part)
        if flag is not None:
            out = unsqueeze(out, dim)
            rest.append(np.zeros(1 if flag else 0, np.int64))
            dim += 1
            continue
        rest.append(part)
        dim += part.ndim if _is_mask(part) else 1
    return out, rest


def _advanced_getitem(input, parts, places):
    out, rest = _apply_slicing(input, parts, places)
    spec, arrays = _index_arrays(out, rest)
    return apply(IX.index, (out, arrays), (spec,))


def _strip_leading_ones(value):
    """PyTorch's ``slicePrefix1sSize``: ``value`` viewed without its leading dimensions of size 1."""
    shape = tuple(value.shape)
    stripped = shape
    while stripped and stripped[0] == 1:
        stripped = stripped[1:]
    if stripped == shape:
        return value
    return view(value, stripped) if _strides.can_view(value, stripped) else reshape(value, stripped)


def _copy_to(target, value):
    """PyTorch's setitem ``copy_to``: a same-shaped value is copied (CopyBackwards), a 0-d one
    filled in (FillBackward3), another one stripped of leading 1s and expanded first."""
    shape = tuple(target.shape)
    if not value.ndim and shape:
        check_inplace(target, value)
        _strides.check_no_internal_overlap(target)
        commit_inplace(target, apply(V.fill_tensor, (target, value)))
        return
    if tuple(value.shape) != shape:
        value = _strip_leading_ones(value)
        if tuple(value.shape) != shape:
            value = expand(value, shape)
    check_inplace(target, value)
    _strides.check_no_internal_overlap(target)
    _strides.check_no_partial_overlap(target, (value,))
    commit_inplace(target, apply(V.copy_from, (target, value)))


def setitem(input, key, value):
    """``input[key] = value``, as PyTorch's ``THPVariable_setitem``.

    A basic key copies into a view (CopySlices on the base); a key with tensor, list or boolean
    parts applies its basic parts first (``_apply_slicing``), then ``index_put_`` into that
    (IndexPutBackward0, or CopySlices around it when the basic parts made a view).
    """
    if not isinstance(value, Tensor):
        _check_number_fits(input, value)
        value = _value_tensor(value, input)
    key = _as_key(key)
    if key is False:
        return      # PyTorch writes nothing (and moves no version)
    if key is True:
        _copy_to(unsqueeze(input, 0), value)
        return
    parts, places, _ = _expand_key(key, input.ndim)
    if not builtins.any(_is_advanced(p) for p in parts):
        # a key that selects everything writes into input itself (a full slice is not taken)
        _copy_to(input if _selects_all(parts, tuple(input.shape)) else getitem(input, key), value)
        return
    sliced, indices = _apply_slicing(input, parts, places)
    _index_put_inplace(sliced, indices, _strip_leading_ones(value), False)


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


# The C++ type PyTorch names when a complex number cannot be written into a real tensor.
_OVERFLOW_TYPE = {"float32": "float", "float64": "double", "float16": "double", "bfloat16": "double",
                  "int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t"}


def _check_number_fits(input, value):
    """PyTorch's error for a complex number with an imaginary part (or a complex tensor) written
    into a real (not bool) tensor, then ``check_fits``."""
    if isinstance(value, Tensor):
        complex_value = value.dtype.kind == _dtype.COMPLEX
    else:
        complex_value = isinstance(value, (complex, np.complexfloating)) and value.imag != 0
    if complex_value and input.dtype.name in _OVERFLOW_TYPE:
        raise RuntimeError(f"value cannot be converted to type {_OVERFLOW_TYPE[input.dtype.name]} without overflow")
    if type(value) is int and not -2 ** 63 <= value < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    if input.dtype.name not in ("float16", "bfloat16"):     # a number beyond those is written as inf
        _dtype.check_fits(value, input.dtype)


@declare("masked_fill", method=True)
def masked_fill(input, mask, value):
    if mask.dtype is not _dtype.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {_C_TYPE[mask.dtype.name]}")
    if isinstance(value, Tensor):
        _check_number_fits(input, value)
        if value.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} dimension(s).")
        return apply(E.masked_fill_tensor, (input, mask, value))
    _dtype.check_fits(value, input.dtype)      # a complex number with an imaginary part into a real dtype raises
    return apply(E.masked_fill, (input, mask, _dtype.written_number(value, input.dtype)))


def _fills_mask(input, indices, value):
    """PyTorch's ``canDispatchToMaskedFill``: one boolean (or uint8) mask, full slices elsewhere,
    and a one-element value; index_put_ then runs as masked_fill_ with the value's number (cast
    to input's dtype; no dtype or overlap checks)."""
    if value.numel() != 1:
        return False
    masks = 0
    for part in indices:
        if isinstance(part, slice):
            continue
        if not _is_mask(part) or masks:
            return False
        masks += 1
    return masks == 1


def _index_put(input, indices, value, accumulate):
    """``input`` with ``value`` (a Tensor) put at ``indices`` (index parts, a full slice where a
    dimension is not indexed), as PyTorch's ``index_put``."""
    fills = not accumulate and _fills_mask(input, indices, value)
    if fills:
        mask = next(part for part in indices if isinstance(part, Tensor))
        if mask.dtype is not _dtype.bool_:
            raise RuntimeError(
                f"masked_fill_ only supports boolean masks, but got mask with dtype {_C_TYPE[mask.dtype.name]}")
        _check_number_fits(input, value)
        if value.ndim:
            value = reshape(value, ())
        start = next(i for i, part in enumerate(indices) if part is mask)
        full = all(part == slice(None) for part in indices if part is not mask)
        if full and mask.ndim and tuple(mask.shape) == tuple(input.shape[start:start + mask.ndim]):
            return apply(IX.index_put_mask, (input, mask, value), (start,))
    spec, arrays, out_of_bounds = _index_layout(input, indices)
    shape = input._data.shape          # the written region's shape, traced abstractly (compiles nothing)
    target_shape = jax.eval_shape(lambda a: jnp.zeros(shape, bool)[IX._build_key(spec, a)], arrays).shape
    _broadcast_check(value, target_shape)
    if value.dtype is not input.dtype and not fills:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {input.dtype.c_name} "
                           f"for the destination and {value.dtype.c_name} for the source.")
    if out_of_bounds is not None:
        raise out_of_bounds
    return apply(IX.index_put, (input, arrays, value), (spec, accumulate))


def _index_put_inplace(self, indices, value, accumulate):
    """``self.index_put_(indices, value)``: PyTorch's in-place and memory checks, then the write."""
    check_inplace(self, value)
    _strides.warn_expanded(self, "index_put_")
    if not accumulate and _fills_mask(self, indices, value):
        _strides.warn_expanded(self, "masked_fill_")
    else:
        _strides.check_no_overlap(self, (value, *indices))
    return commit_inplace(self, _index_put(self, indices, value, accumulate))


def _index_parts(name, indices):
    """``index_put``'s indices (a tuple or list of Tensors) as index parts."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for i, part in enumerate(indices):
        if not isinstance(part, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(part).__name__}")
    return list(indices)


@declare("index_put", method=True)
def index_put(input, indices, values, accumulate=False):
    value = values if isinstance(values, Tensor) else _value_tensor(values, input)
    return _index_put(input, _index_parts("index_put", indices), value, accumulate)


# ---------------------------------------------------------------- in-place twins

@declare(method=("index_put_",))
def index_put_(self, indices, values, accumulate=False):
    value = values if isinstance(values, Tensor) else _value_tensor(values, self)
    return _index_put_inplace(self, _index_parts("index_put_", indices), value, accumulate)


@declare(method=("masked_fill_",))
def masked_fill_(self, mask, value):
    check_inplace(self, value)
    _strides.warn_expanded(self, "masked_fill_")
    return commit_inplace(self, _fit(self, masked_fill(self, mask, value)))
