"""Conversion: ``to``/``type``/``type_as`` (dtype and device), ``clone``, ``contiguous`` and ``copy_``
(a value written into a tensor, broadcast and cast).
"""

import builtins

import jax
import jax.numpy as jnp

from .. import _dtype
from .._device import device as device_cls, filled, host_copy, to_device
from .._meta import is_meta, struct
from .._ops import elementwise as E
from .._ops import views as V
from .._autograd.grad_mode import is_grad_enabled
from .._tensor import Tensor, apply, check_inplace, commit_inplace, _wrap
from . import strides as _strides
from .creation import _finish
from .operands import as_operand
from .surface import declare


@declare("clone", method=True)
def clone(input, *, memory_format=None):
    if not isinstance(input, Tensor):
        raise TypeError(f"clone(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not (input.requires_grad and is_grad_enabled()) and not input.dtype.is_complex:
        # no node to record (an optimizer's first momentum buffer): copied on the host, as a fill is
        copied = host_copy(input._data)
        if copied is not None:
            return _wrap(copied)
    return apply(E.clone, (input,))


@declare(method=("contiguous",))
def contiguous(input, memory_format=None):
    return input if _strides.is_contiguous(input) else clone(input)


_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n")


def _is_dtype(a):
    return isinstance(a, _dtype.dtype) or a is float or a is int or a is bool or a is complex


def _to_arguments(args, dtype, device, non_blocking, copy):
    """PyTorch's three positional forms of ``to``: ``(device, dtype, non_blocking, copy)``,
    ``(dtype, non_blocking, copy)`` and ``(tensor, non_blocking, copy)``."""
    rest = list(args)
    if rest:
        first = rest.pop(0)
        if isinstance(first, Tensor):
            dtype, device = first.dtype, first.device
        elif _is_dtype(first):
            dtype = first
        elif isinstance(first, (str, device_cls)) or type(first) is int:
            device = first
            if rest and _is_dtype(rest[0]):
                dtype = rest.pop(0)
            elif rest:
                rest = None         # after a device, a flag needs the dtype before it
        else:
            rest = None
    if rest is None or len(rest) > 2 or not all(type(f) is bool for f in rest):
        got = ", ".join("Tensor" if isinstance(a, Tensor) else "torch.dtype" if isinstance(a, _dtype.dtype)
                        else type(a).__name__ for a in args)
        raise TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        + _TO_SIGNATURES)
    if rest:
        non_blocking = rest[0]
    if len(rest) > 1:
        copy = rest[1]
    return dtype, device, copy


@declare(method=("to",))
def to(input, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
    """Convert dtype and/or device; returns ``input`` itself when nothing changes (as PyTorch),
    a new tensor with ``copy=True``. ``non_blocking`` has no effect: JAX's transfers are
    asynchronous already."""
    dtype, device, copy = _to_arguments(args, dtype, device, non_blocking, copy)
    out = input
    if dtype is not None:
        dtype = _dtype.to_dtype(dtype)
        if dtype is not input.dtype or copy:
            out = apply(E.to_copy, (input,), (dtype.np,))
    elif copy:
        out = apply(E.to_copy, (input,), (input.dtype.np,))
    if device is not None:
        device = to_device(device)
        if device != input.device:
            moved = _moved(out._data, device)
            out = _finish(moved, None, None, False) if out is input else out
            out._cell.value = moved
    return out


NO_DATA = "Cannot copy out of meta tensor; no data!"


def _moved(array, device):
    """``array`` on ``device``: to the meta device, its shape and dtype; out of it, PyTorch's error."""
    if is_meta(array):
        raise NotImplementedError(NO_DATA)
    if device.type == "meta":
        return struct(array.shape, array.dtype)
    return jax.device_put(array, device.jax_device())


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
    return _wrap(filled((), value, like._data.dtype))     # as PyTorch converts: -1 into uint8 is 255


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
    if input.is_meta != val.is_meta:
        if val.is_meta:
            raise NotImplementedError(NO_DATA)
        val = to(val, device="meta")        # into a meta tensor, as PyTorch: only the shape counts
    same = _same_array_kind(input, val)
    if same is not None:
        # nothing to record, cast or broadcast (``load_state_dict``): the source's (immutable)
        # array becomes the tensor's value, with no kernel to compile per shape
        return commit_inplace(input, _wrap(same))
    return commit_inplace(input, apply(V.copy_from, (input, val)))


def _same_array_kind(input, val):
    """``val``'s array, where ``input.copy_(val)`` records no node and is only that array: same
    shape, dtype and placement, into a tensor that is not a view; else None."""
    if input._view is not None or (is_grad_enabled() and (input.requires_grad or val.requires_grad)):
        return None
    if input.dtype is not val.dtype or input.dtype.is_complex or tuple(input.shape) != tuple(val.shape):
        return None
    new, old = val._data, input._data
    if isinstance(new, jax.core.Tracer) or isinstance(old, jax.core.Tracer) or is_meta(new) or is_meta(old):
        return None
    return new if new.sharding == old.sharding and new.committed == old.committed else None


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
