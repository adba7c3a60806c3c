"""Argument handling shared by the functional modules: dtype checks, spatial tuples,
reductions, in-place variants, the placeholder for an absent optional tensor and the
broadcasting and reduction steps the losses share."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np

from ... import _dtype
from ..._cache import tracing
from ..._autograd.grad_mode import is_grad_enabled, no_grad
from ..._tensor import apply, check_inplace, commit_inplace, _wrap
from ..._api import shape as S
from ..._api import reduction as RED
from ..._api import conversion as CNV
from ..._api import strides as STRIDES

_ABSENT = {}


def absent(dtype):
    """An empty tensor that stands for a missing optional argument (bias, weight).

    Passing it keeps PyTorch's ``(None, 0)`` slot in ``next_functions``; the op treats an
    array of shape ``(0,)`` as "not given".
    """
    t = _ABSENT.get(dtype)
    if t is None:
        if tracing():           # a value of the trace: not kept
            return _wrap(jnp.zeros((0,), dtype.np))
        t = _ABSENT[dtype] = _wrap(jax.device_put(np.zeros((0,), dtype.np)))    # no kernel to compile
    return t


def or_absent(t, dtype):
    return absent(dtype) if t is None else t


def not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype.c_name}\'')


def require_float(input, kernel):
    """PyTorch's error for a kernel that has no integer or bool version."""
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented(kernel, input.dtype)


def is_tracer(t):
    """True where values can't be read on the host: inside a JAX transform, or a meta tensor."""
    data = t._data
    return isinstance(data, jax.core.Tracer) or type(data) is jax.ShapeDtypeStruct


def ntuple(value, n, name):
    """``value`` as an n-tuple of ints (an int repeats), with PyTorch's length error."""
    if isinstance(value, (list, tuple)):
        value = tuple(int(v) for v in value)
        if len(value) == 1:
            return value * n
        if len(value) != n:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {n} values to match the "
                f"convolution dimensions, but got {name}={list(value)}")
        return value
    return (int(value),) * n


def reduction_of(size_average, reduce, reduction, *, allowed=("none", "mean", "sum")):
    """The reduction string, resolving the deprecated ``size_average``/``reduce`` pair."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if size_average and reduce else ("sum" if reduce else "none")
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
            UserWarning, stacklevel=3)
        return reduction
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      UserWarning, stacklevel=3)
        return "mean"
    if reduction not in allowed:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def maybe_inplace(input, inplace, compute):
    """``compute(input)``, written back into ``input`` when ``inplace`` (PyTorch's ``fn_``)."""
    if not inplace:
        return compute(input)
    check_inplace(input)
    STRIDES.check_no_repeated_elements(input)
    return commit_inplace(input, compute(input))


def write_no_grad(target, array):
    """Overwrite ``target`` (running statistics) outside autograd; bumps its version."""
    with no_grad():
        commit_inplace(target, _wrap(array.astype(target._data.dtype)))


def size_str(shape):
    return f"torch.Size({list(shape)})"


# ---------------------------------------------------------------- losses

def broadcast_shape(a, b):
    """numpy broadcasting with PyTorch's message."""
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    out = []
    # from the last dimension, as PyTorch's infer_size (which names the last mismatch)
    for i in reversed(range(n)):
        x = a[i - n + len(a)] if i >= n - len(a) else 1
        y = b[i - n + len(b)] if i >= n - len(b) else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def broadcast_pair(input, target):
    shape = broadcast_shape(input.shape, target.shape)
    if tuple(input.shape) != shape:
        input = S.expand(input, shape)
    if tuple(target.shape) != shape:
        target = S.expand(target, shape)
    return input, target


def no_grad_argument(name, arg, t):
    if t is not None and t.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{name}' is not differentiable with respect to argument '{arg}'. This input cannot have "
            "requires_grad True.")


def reduce_loss(loss, reduction):
    if reduction == "mean":
        return RED.mean(loss)
    if reduction == "sum":
        return RED.sum(loss)
    return loss


def scalar_op(op, x, value):
    """``x`` with a Python number, recorded as PyTorch's Tensor-Scalar overload (``AddBackward1``);
    an integer tensor promotes to the default float dtype first."""
    if x.dtype.kind != _dtype.FLOAT:
        x = CNV.to(x, _dtype.get_default_dtype())
    return apply(op, (x,), (float(value),))
