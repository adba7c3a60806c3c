"""Conversion: ``to``/``type``/``type_as`` (dtype and device), ``clone``, ``contiguous`` and ``copy_``
(a value written into a tensor, broadcast and cast).
"""

import builtins

import jax
import jax.numpy as jnp

from .. import _dtype
from .._device import device as device_cls, to_device
from .._ops import elementwise as E
from .._ops import views as V
from .._tensor import Tensor, apply, check_inplace, commit_inplace, _wrap
from . import strides as _strides
from .creation import _finish
from .operands import as_operand
from .surface import declare


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


def _value_tensor(value, like):
    """``value`` as a Tensor of ``like``'s dtype (numbers become constants)."""
    if isinstance(value, Tensor):
        return value if value.dtype is like.dtype else to(value, like.dtype)
    value = as_operand(value)
    if isinstance(value, Tensor):
        return to(value, like.dtype)
    return _wrap(jnp.asarray(value, like._data.dtype))


@declare(method=("copy_",))
def copy_(input, src, non_blocking=False):
    """Write ``src`` (broadcast and cast) into ``input``: CopyBackwards over (input, src), or
    CopySlices around it for a view."""
    check_inplace(input, src)
    shape = tuple(input.shape)
    val = src if isinstance(src, Tensor) else _value_tensor(src, input)
    _strides.check_no_internal_overlap(input)
    _strides.check_no_partial_overlap(input, (val,))
    try:
        ok = jnp.broadcast_shapes(tuple(val.shape), shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(_size_mismatch(shape, tuple(val.shape)))
    return commit_inplace(input, apply(V.copy_from, (input, val)))


def _size_mismatch(a, b):
    """PyTorch's error for a ``copy_`` source of shape ``b`` that does not fit ``a``."""
    ndim = builtins.max(len(a), len(b))
    for i in range(1, ndim + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            return (f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                    f"dimension {ndim - i}")
    return f"output with shape {list(a)} doesn't match the broadcast shape {list(jnp.broadcast_shapes(a, b))}"
