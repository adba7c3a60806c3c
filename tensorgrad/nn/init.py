"""``nn.init``: fill tensors in place with PyTorch's initialization schemes.

Every function writes under ``no_grad`` and returns its tensor. Random draws come from the
given generator (or the global one): they are reproducible under ``manual_seed`` and have
PyTorch's distributions, not its exact streams.
"""

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._autograd.grad_mode import no_grad
from .._cache import bounded_jit
from .._device import from_host
from .._api.random import _key
from .._tensor import _wrap

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
    "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
    "sparse_",
]


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (``relu``: sqrt(2), ``tanh``: 5/3, ...).

    >>> calculate_gain("tanh")
    1.6666666666666667
    """
    linear = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d"]
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tuple(tensor.shape)[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


_calculate_fan_in_and_fan_out = _fans


def _fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _fans(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _write(tensor, array):
    """Copy a jax array of the tensor's shape into it without recording history."""
    with no_grad():
        tensor.copy_(_wrap(array if array.dtype == tensor._data.dtype else array.astype(tensor._data.dtype)))
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with draws from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with draws from N(mean, std**2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


@bounded_jit(static_argnums=1)
def _truncated_normal(key, shape, mean, std, a, b):
    z = jax.random.truncated_normal(key, (a - mean) / std, (b - mean) / std, shape, jnp.float64)
    return jnp.clip(z * std + mean, a, b)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with draws from N(mean, std**2) truncated to [a, b]."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    if tensor.is_meta:      # a shape without data: nothing to draw
        return tensor
    sample = _truncated_normal(_key(generator), tuple(tensor.shape), float(mean), float(std), float(a), float(b))
    return _write(tensor, sample)


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-D tensor with the identity."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, from_host(np.eye(*tuple(tensor.shape), dtype=tensor._data.dtype)))


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta (identity convolution)."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    shape = tuple(tensor.shape)
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = shape[0] // groups
    arr = np.zeros(shape, tensor._data.dtype)
    centre = tuple(s // 2 for s in shape[2:])
    for g in range(groups):
        for d in range(min(out_per_group, shape[1])):
            arr[(g * out_per_group + d, d) + centre] = 1.0
    return _write(tensor, from_host(arr))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-b, b) with b = gain * sqrt(3 / fan)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std**2) with std = gain / sqrt(fan)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix, the tensor viewed as ``(shape[0], rest)``."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    if tensor.is_meta:
        return tensor
    q = _orthogonal(_key(generator), rows, cols, float(gain))
    return _write(tensor, q.reshape(tuple(tensor.shape)))


@bounded_jit(static_argnums=(1, 2))
def _orthogonal(key, rows, cols, gain):
    flat = jax.random.normal(key, (rows, cols), jnp.float64)
    if rows < cols:
        flat = flat.T
    q, r = jnp.linalg.qr(flat)
    q = q * jnp.sign(jnp.diagonal(r))
    if rows < cols:
        q = q.T
    return gain * q


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D tensor with N(0, std**2) draws, with a ``sparsity`` fraction of each column zero."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tuple(tensor.shape)
    zeros = int(math.ceil(sparsity * rows))
    if tensor.is_meta:
        return tensor
    return _write(tensor, _sparse(_key(generator), rows, cols, zeros, float(std)))


@bounded_jit(static_argnums=(1, 2, 3))
def _sparse(key, rows, cols, zeros, std):
    value_key, order_key = jax.random.split(key)
    values = std * jax.random.normal(value_key, (rows, cols), jnp.float64)
    orders = jax.vmap(lambda k: jax.random.permutation(k, rows))(jax.random.split(order_key, cols))
    # the first ``zeros`` rows of each column's random order are zeroed
    ranks = jnp.argsort(orders, axis=1).T
    return jnp.where(ranks < zeros, 0.0, values)
