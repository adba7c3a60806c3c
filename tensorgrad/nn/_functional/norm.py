"""Normalization: batch, instance, layer, group and RMS norm, and ``normalize``."""

import math

import jax.numpy as jnp

from ... import _dtype
from ..._cache import bounded_jit
from ..._ops import elementwise as E
from ..._ops import nn_norm as N
from ..._tensor import apply, _wrap_dim
from ._util import not_implemented, or_absent, size_str, write_no_grad
from ..._api import shape as S
from ..._api import reduction as RED
from ..._api import elementwise as EL
from ..._api import conversion as CNV
from ..._api import binary as BIN


def _verify_batch_size(size, shown):
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {shown}")


def _check_same_dtype(input, *parameters):
    """PyTorch's CPU check: parameters of another dtype than the input must all be float32 (and
    then only a half-precision input may mix with them)."""
    given = [t for t in parameters if t is not None]
    if all(t.dtype is input.dtype for t in given):
        return
    if any(t.dtype is not _dtype.float32 for t in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype not in (_dtype.bfloat16, _dtype.float16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _check_count(t, name, channels):
    if t is not None and t.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    """Normalize each channel (axis 1) by its batch statistics (``training``) or the running ones.

    In training the running statistics, when given, move towards the batch's:
    ``running = (1 - momentum) * running + momentum * batch`` (unbiased variance). As in
    PyTorch, that write does not bump their version counters.
    """
    if training:
        _verify_batch_size(tuple(input.shape), size_str(input.shape))
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if momentum is None or not isinstance(momentum, (int, float)):
        raise TypeError(f"batch_norm(): argument 'momentum' (position 7) must be float, not {type(momentum).__name__}")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("batch_norm", input.dtype)
    channels = input.shape[1] if input.ndim > 1 else 0
    # in PyTorch's order: the running statistics are checked first
    _check_count(running_mean, "running_mean", channels)
    _check_count(running_var, "running_var", channels)
    _check_count(weight, "weight", channels)
    _check_count(bias, "bias", channels)
    if not training and running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if input.ndim < 2:
        if input.numel() == 0 and input.ndim == 1:
            if weight is not None or bias is not None:
                raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
            return CNV.clone(input)   # PyTorch returns an empty input as a copy (CloneBackward0)
        _wrap_dim(1, input.ndim)
    _check_same_dtype(input, weight, bias, running_mean, running_var)
    d = input.dtype
    out, batch_mean, batch_var = apply(
        N.native_batch_norm,
        (input, or_absent(weight, d), or_absent(bias, d), or_absent(running_mean, d), or_absent(running_var, d)),
        (bool(training), float(eps)))
    if training and running_mean is not None and input.numel():
        # the native kernel writes the running statistics without a version bump
        mean, var = _running(running_mean._data, running_var._data, batch_mean._data, batch_var._data, momentum)
        running_mean._write(mean)
        running_var._write(var)
    return out


@bounded_jit
def _running(mean, var, batch_mean, batch_var, momentum):
    """The running statistics moved ``momentum`` of the way to the batch's."""
    return mean * (1 - momentum) + batch_mean * momentum, var * (1 - momentum) + batch_var * momentum


@bounded_jit(static_argnums=(1,))
def _sample_mean(stats, n):
    """The mean over the ``n`` samples of per-(sample, channel) statistics."""
    return stats.reshape(n, -1).mean(0)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    """Normalize each (sample, channel) plane by its own statistics.

    PyTorch's decomposition: a batch norm of the input viewed as one sample of N * C channels.
    """
    if use_input_stats:
        size = tuple(input.shape)
        if math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {size_str(size)}")
    n, c = input.shape[0], input.shape[1]
    shape = (1, n * c) + tuple(input.shape[2:])
    flat = S.view(input, shape)
    w = None if weight is None else weight.repeat(n)
    b = None if bias is None else bias.repeat(n)
    rm = None if running_mean is None else running_mean.repeat(n)
    rv = None if running_var is None else running_var.repeat(n)
    out = batch_norm(flat, rm, rv, w, b, use_input_stats, momentum, eps)
    if running_mean is not None and use_input_stats:
        write_no_grad(running_mean, _sample_mean(rm._data, n))
        write_no_grad(running_var, _sample_mean(rv._data, n))
    return S.view(out, tuple(input.shape))


def _shape_list(normalized_shape):
    if isinstance(normalized_shape, int):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    return tuple(int(s) for s in normalized_shape)


def _check_normalized(input, shape, weight, bias, star):
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but "
            "got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                f"{list(t.shape)} and normalized_shape = {list(shape)}")
    k = len(shape)
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        inner = ", ".join(str(s) for s in shape)
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [*{star}{inner}], but got input of "
            f"size{list(input.shape)}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Normalize over the trailing ``normalized_shape`` axes, then scale and shift."""
    shape = _shape_list(normalized_shape)
    _check_normalized(input, shape, weight, bias, ", ")
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("LayerNormKernelImpl", input.dtype)
    _check_same_dtype(input, weight, bias)
    d = input.dtype
    return apply(N.native_layer_norm, (input, or_absent(weight, d), or_absent(bias, d)), (len(shape), float(eps)))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x**2) + eps) * weight`` over the trailing axes (eps defaults to the
    dtype's machine epsilon), recorded as PyTorch's composite."""
    shape = _shape_list(normalized_shape)
    _check_normalized(input, shape, weight, None, "")
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("rms_norm", input.dtype)
    if eps is None:
        eps = float(jnp.finfo(input._data.dtype).eps)
    dims = tuple(range(-len(shape), 0))
    ms = RED.mean(EL.pow(input, 2), dims, keepdim=True)
    out = input * EL.rsqrt(apply(E.add_scalar, (ms,), (float(eps),)))
    return out if weight is None else out * weight


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalize each of ``num_groups`` channel groups of every sample."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    size = tuple(input.shape)
    if num_groups == 0:
        raise ZeroDivisionError("integer division or modulo by zero")
    _verify_batch_size([size[0] * size[1] // num_groups, num_groups] + list(size[2:]),
                       [size[0] * size[1] // num_groups, num_groups] + list(size[2:]))
    if num_groups < 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    c = size[1]
    if c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{list(size)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got "
                f"{name} of shape {list(t.shape)} and input of shape {list(size)}")
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("GroupNormKernelImpl", input.dtype)
    _check_same_dtype(input, weight, bias)
    d = input.dtype
    return apply(N.native_group_norm, (input, or_absent(weight, d), or_absent(bias, d)),
                 (int(num_groups), float(eps)))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(norm(input, p, dim), eps)``, recorded as PyTorch's composite."""
    denom = BIN.clamp_min(RED.norm(input, p, dim, keepdim=True), eps)
    denom = S.expand_as(denom, input)
    if out is None:
        return input / denom
    return CNV.copy_(out, input / denom)
