"""Views, reshaping, joining, indexing (read and write) and dtype conversion."""

import builtins
import math as _math

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._ops import elementwise as E
from .._ops import indexing as IX
from .._ops import shape as S
from .._ops import views as V
from .._tensor import Tensor, apply, check_inplace, commit_inplace, _wrap, _wrap_dim
from .math import result_type, as_operand
from . import strides as _strides
from .creation import _finish
from .surface import declare


# ---------------------------------------------------------------- views

def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _infer_shape(shape, numel):
    """Resolve one ``-1`` and check the element count, with PyTorch's messages."""
    if builtins.sum(1 for s in shape if s == -1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


@declare("view", method=True, numpy_names=False)
def view(input, *shape):
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return input.to(shape[0])
    shape = _infer_shape(_shape_arg(shape), input.numel())
    if not _strides.can_view(input, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.")
    return apply(V.view, (input,), (shape,))


@declare("reshape", method=True)
def reshape(input, *shape):
    """As PyTorch: a ``view`` of a contiguous tensor, a ``_reshape_alias`` view of another one
    whose layout allows it, else a copy (``_unsafe_view`` of a clone)."""
    shape = _infer_shape(_shape_arg(shape), input.numel())
    if input._view is None or _strides.is_contiguous(input):
        return apply(V.view, (input,), (shape,))
    if not _strides.can_view(input, shape):
        return apply(S.reshape_copy, (clone(input),), (shape,))
    return apply(V.reshape_alias, (input,), (shape,))


@declare(method=("view_as",))
def view_as(input, other):
    return view(input, tuple(other.shape))


@declare(method=("reshape_as",))
def reshape_as(input, other):
    return reshape(input, tuple(other.shape))


@declare("flatten", method=True)
def flatten(input, start_dim=0, end_dim=-1):
    nd = input.ndim
    if nd == 0:
        return reshape(input, 1)
    s = _wrap_dim(start_dim, nd)
    e = _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = tuple(input.shape)
    return reshape(input, shape[:s] + (_math.prod(shape[s:e + 1]),) + shape[e + 1:])


@declare("unflatten", method=True)
def unflatten(input, dim, sizes):
    dim = _wrap_dim(dim, input.ndim)
    shape = tuple(input.shape)
    sizes = _infer_shape(tuple(sizes), shape[dim])
    return view(input, shape[:dim] + sizes + shape[dim + 1:])


@declare("squeeze", method=True)
def squeeze(input, dim=None):
    if dim is None:
        return apply(V.squeeze, (input,))
    if isinstance(dim, (tuple, list)):
        dims = tuple(_wrap_dim(d, input.ndim) for d in dim)
        dims = tuple(d for d in dims if input.shape[d] == 1)
        return apply(V.squeeze_dims, (input,), (dims,))
    d = _wrap_dim(dim, input.ndim)
    dims = (d,) if input.ndim and input.shape[d] == 1 else ()
    return apply(V.squeeze_dim, (input,), (dims,))


@declare("unsqueeze", method=True)
def unsqueeze(input, dim):
    return apply(V.unsqueeze, (input,), (_wrap_dim(dim, input.ndim + 1),))


@declare("swapaxes", "swapdims", "transpose", method=True)
def transpose(input, dim0, dim1):
    nd = input.ndim
    return apply(V.transpose, (input,), (_wrap_dim(dim0, nd), _wrap_dim(dim1, nd)))


swapaxes = swapdims = transpose


@declare("t", method=True)
def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return apply(V.t, (input,))


@declare("permute", method=True)
def permute(input, *dims):
    dims = _shape_arg(dims)
    nd = input.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
            f"desired ordering of dimensions i.e. input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    dims = tuple(_wrap_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return apply(V.permute, (input,), (dims,))


@declare("moveaxis", "movedim", method=True)
def movedim(input, source, destination):
    nd = input.ndim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    src = [_wrap_dim(s, nd) for s in src]
    dst = [_wrap_dim(d, nd) for d in dst]
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(k for k in range(nd) if k not in src)
    return permute(input, *[next(rest) if o is None else o for o in order])


moveaxis = movedim


def matrix_T(input):
    if input.ndim == 2:
        return permute(input, 1, 0)
    return permute(input, *reversed(range(input.ndim)))


@declare(method=("expand",))
def expand(input, *sizes):
    sizes = _shape_arg(sizes)
    shape = tuple(input.shape)
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.{input.dtype.legacy}{{{list(shape)}}}, size={list(sizes)}): the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    out = []
    for i, s in enumerate(sizes):
        cur = shape[i - lead] if i >= lead else 1
        if s == -1:
            if i < lead:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}")
            s = cur
        elif cur != 1 and s != cur:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}")
        out.append(s)
    return apply(V.expand, (input,), (tuple(out),))


@declare(method=("expand_as",))
def expand_as(input, other):
    return expand(input, tuple(other.shape))


@declare("broadcast_to", method=True)
def broadcast_to(input, size):
    return expand(input, tuple(size))


@declare("diagonal", method=True)
def diagonal(input, offset=0, dim1=0, dim2=1):
    nd = input.ndim
    return apply(V.diagonal, (input,), (offset, _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)))


@declare("select", method=True)
def select(input, dim, index):
    dim = _wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    return apply(V.select, (input, index % size), (dim,))


def _slice(input, dim, start, stop, step):
    size = input.shape[dim]
    if step <= 0:
        raise ValueError("step must be greater than zero")
    start, stop, step = slice(start, stop, step).indices(size)
    length = builtins.max(0, (stop - start + step - 1) // step)
    return apply(V.slice_, (input, start if length else 0), (dim, length, step))


@declare("narrow", method=True)
def narrow(input, dim, start, length):
    dim = _wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if isinstance(start, Tensor):
        start = int(start)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start %= size if size else 1
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(input, dim, start, start + length, 1)


@declare("unbind", method=True)
def unbind(input, dim=0):
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
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        bounds = [i * (size // n) + builtins.min(i, size % n) for i in range(n + 1)]
    else:
        bounds = [0] + [builtins.min(int(i), size) for i in indices_or_sections] + [size]
    return tuple(_slice(input, dim, a, b, 1) for a, b in zip(bounds[:-1], bounds[1:]))


# ---------------------------------------------------------------- joining

def _join(op, tensors, dim, name):
    tensors = tuple(tensors)
    if not tensors:
        if name == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"{name}(): expected a non-empty list of Tensors")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {tensors.index(t)} in argument 0, but got {type(t).__name__}")
    return tensors, result_type(*tensors)


@declare("cat", "concat", "concatenate", out=True)
def cat(tensors, dim=0):
    tensors, d = _join(S.cat, tensors, dim, "torch.cat")
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
    tensors, d = _join(S.stack, tensors, dim, "stack")
    shape = tuple(tensors[0].shape)
    for i, t in enumerate(tensors):
        if tuple(t.shape) != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                f"{list(t.shape)} at entry {i}")
    return apply(S.stack, tensors, (_wrap_dim(dim, len(shape) + 1), d.np))


@declare("hstack", out=True)
def hstack(tensors):
    tensors = [atleast_1d(t) for t in tensors]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


@declare("vstack", out=True)
def vstack(tensors):
    return cat([atleast_2d(t) for t in tensors], 0)


@declare("atleast_1d", numpy_names=False)
def atleast_1d(t):
    return t.reshape(1) if t.ndim == 0 else t


@declare("atleast_2d", numpy_names=False)
def atleast_2d(t):
    if t.ndim == 1:
        return unsqueeze(t, 0)  # UnsqueezeBackward0, as PyTorch
    return t.reshape(1, -1) if t.ndim < 2 else t


@declare("flip", method=True)
def flip(input, dims):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return apply(S.flip, (input,), (tuple(_wrap_dim(d, input.ndim) for d in dims),))


@declare(method=("repeat",))
def repeat(input, *sizes):
    sizes = _shape_arg(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    return apply(S.repeat, (input,), (sizes,))


@declare("nonzero", method=True, out=True)
def nonzero(input, *, as_tuple=False):
    idx = np.nonzero(np.asarray(input._data))
    if as_tuple:
        if input.ndim == 0:
            return (_wrap(jnp.asarray(np.zeros(int(bool(input)), np.int64))),)
        return tuple(_wrap(jnp.asarray(i.astype(np.int64))) for i in idx)
    return _wrap(jnp.asarray(np.stack(idx, axis=1).astype(np.int64).reshape(-1, input.ndim)))


@declare("argwhere", method=True)
def argwhere(input):
    return nonzero(input)


# ---------------------------------------------------------------- conversion

@declare("clone", method=True)
def clone(input, *, memory_format=None):
    if not isinstance(input, Tensor):
        raise TypeError(f"clone(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return apply(E.clone, (input,))


@declare(method=("contiguous",))
def contiguous(input, memory_format=None):
    return input if _strides.is_contiguous(input) else clone(input)


@declare(method=("to",))
def to(input, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
    """Convert dtype and/or device; returns ``input`` itself when nothing changes (as PyTorch)."""
    from .._device import device as device_cls, to_device
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
            device = a.device
        elif isinstance(a, (str, device_cls, int)):
            device = a
        elif a in (float, int, bool, complex):
            dtype = _dtype.to_dtype(a)
    out = input
    if dtype is not None:
        dtype = _dtype.to_dtype(dtype)
        if dtype is not input.dtype or copy:
            out = apply(E.to_copy, (input,), (dtype.np,))
    if device is not None:
        device = to_device(device)
        if device != input.device:
            import jax
            moved = jax.device_put(out._data, device.jax_device())
            out = _finish(moved, None, None, False) if out is input else out
            out._cell.value = moved
    return out


_TYPE_NAMES = {"torch." + d.legacy: d for d in _dtype.ALL}


@declare(method=("type",))
def type_(input, dtype=None, non_blocking=False):
    if dtype is None:
        return "torch." + input.dtype.legacy
    if isinstance(dtype, str):
        if dtype not in _TYPE_NAMES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _TYPE_NAMES[dtype]
    elif isinstance(dtype, type) and hasattr(dtype, "__name__") and "torch." + dtype.__name__ in _TYPE_NAMES:
        dtype = _TYPE_NAMES["torch." + dtype.__name__]
    return to(input, dtype)


@declare(method=("type_as",))
def type_as(input, other):
    return to(input, other.dtype)


# ---------------------------------------------------------------- indexing

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


def _value_tensor(value, like):
    """``value`` as a Tensor of ``like``'s dtype (numbers become constants)."""
    if isinstance(value, Tensor):
        return value if value.dtype is like.dtype else to(value, like.dtype)
    value = as_operand(value)
    if isinstance(value, Tensor):
        return to(value, like.dtype)
    return _wrap(jnp.asarray(value, like._data.dtype))


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


@declare(method=("copy_",))
def copy_(input, src, non_blocking=False):
    """Write ``src`` (broadcast and cast) into ``input``: CopyBackwards over (input, src), or
    CopySlices around it for a view."""
    check_inplace(input, src)
    shape = tuple(input.shape)
    val = src if isinstance(src, Tensor) else _value_tensor(src, input)
    try:
        ok = jnp.broadcast_shapes(tuple(val.shape), shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(_size_mismatch(shape, tuple(val.shape)))
    _strides.check_no_internal_overlap(input)
    return commit_inplace(input, apply(V.copy_from, (input, val)))


def _size_mismatch(a, b):
    for i in range(1, builtins.max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and y != 1:
            return (f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                    f"dimension {builtins.max(len(a), len(b)) - i}")
    return f"shape mismatch: {list(b)} cannot be broadcast to {list(a)}"


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


def where(cond, a, b):
    from .math import where as w
    return w(cond, a, b)


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
