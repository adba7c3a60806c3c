"""The dropout family of ``torch.nn.functional``: ``dropout``, ``dropout1d/2d/3d``,
``alpha_dropout`` and ``feature_alpha_dropout``.

Each multiplies by a random mask drawn from tensorgrad's global generator (``manual_seed``
makes it reproducible), recorded as PyTorch records it (``MulBackward0``, plus ``AddBackward0``
for alpha dropout); when nothing drops the input itself is returned.
``feature_dropout`` is the channel-wise kernel behind ``dropout2d`` (PyTorch's
``torch.feature_dropout``; ``nn.functional`` has no such name).
"""

import math
import warnings

import jax
import jax.numpy as jnp

from ..._meta import is_meta, struct
from ... import _dtype
from ..._cache import bounded_jit
from ..._device import filled
from ..._tensor import _wrap
from ..._api import shape as S
from ..._api import random as RND
from ..._api import elementwise as EL


def check_probability(p, error=ValueError):
    """``nn.functional``'s check of a dropout probability; PyTorch's top-level ``torch.dropout``
    and friends (ATen ops) raise ``RuntimeError`` with the same message instead."""
    if p < 0.0 or p > 1.0:
        raise error(f"dropout probability has to be between 0 and 1, but got {p}")


def nothing_to_drop(input, p, training, feature):
    """True when a dropout returns ``input`` itself (not training, ``p == 0``, empty input);
    feature dropout needs at least two dimensions."""
    if not training or p == 0.0 or input.numel() == 0:
        return True
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return False


def mask_shape(input, feature):
    """The shape of the random mask: the input's, or with ``feature`` one value per (sample,
    channel), the first two axes. Floating inputs only, as in PyTorch."""
    if input.dtype.kind != _dtype.FLOAT:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {input.dtype.c_name}")
    shape = tuple(input.shape)
    if feature:
        shape = shape[:2] + (1,) * (len(shape) - 2)
    return shape


# The masks are drawn by kernels held in the bounded kernel cache, one per shape and dtype.

@bounded_jit(static_argnums=(1, 2))
def _scaled_mask(key, shape, dtype, keep, scale):
    """Kept entries (probability ``keep``) as ``scale``, dropped ones as 0."""
    return jax.random.bernoulli(key, keep, shape).astype(dtype) * jnp.asarray(scale, dtype)


@bounded_jit(static_argnums=(1, 2))
def _alpha_masks(key, shape, dtype, keep, a, shift, offset):
    """Alpha dropout's multiplier ``a * mask`` and addend ``(mask - 1) * shift + offset``."""
    mask = jax.random.bernoulli(key, keep, shape).astype(dtype)
    return mask * jnp.asarray(a, dtype), (mask - 1) * jnp.asarray(shift, dtype) + jnp.asarray(offset, dtype)


def _dropout(input, p, training, inplace, feature):
    """Multiply by a fixed mask of 0 and ``1 / (1 - p)``. Returns ``input`` itself when nothing
    drops."""
    if nothing_to_drop(input, p, training, feature):
        return input
    d = input._data.dtype
    if p == 1.0:
        mask = _wrap(filled((), 0, d))
    elif is_meta(input._data):
        mask = _wrap(struct(mask_shape(input, feature), d))     # no draw for a shape without data
    else:
        mask = _wrap(_scaled_mask(RND._key(None), mask_shape(input, feature), d, 1.0 - p, 1.0 / (1.0 - p)))
    if inplace:
        return input.mul_(mask)
    return EL.mul(input, mask)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Draws from tensorgrad's global generator (``manual_seed`` makes it reproducible).
    """
    check_probability(p)
    return _dropout(input, p, training, inplace, feature=False)


def feature_dropout(input, p=0.5, training=True, inplace=False):
    """Zero whole channels (the first two axes index sample and channel); at least 2-D."""
    check_probability(p)
    return _dropout(input, p, training, inplace, feature=True)


def _channel_dropout(input, p, training, inplace, batched):
    """Channel-wise dropout; an unbatched input gets a batch axis for the duration."""
    if batched:
        return _dropout(input, p, training, inplace, feature=True)
    x = input.unsqueeze_(0) if inplace else S.unsqueeze(input, 0)
    out = _dropout(x, p, training, inplace, feature=True)
    return out.squeeze_(0) if inplace else S.squeeze(out, 0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, L)`` or ``(C, L)`` input."""
    check_probability(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d "
            "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, "
            "and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channel_dropout(input, p, training, inplace, input.ndim == 3)


def _feature_warning(name, nd, lo):
    warnings.warn(
        f"{name}: Received a {nd}-D input to {name}, which is deprecated and will result in an error in a "
        f"future release. To retain the behavior and silence this warning, please use dropout instead. Note "
        f"that {name} exists to provide channel-wise dropout on inputs with {lo - 1} spatial dimensions, a "
        f"channel dimension, and an optional batch dimension (i.e. {lo}D or {lo + 1}D inputs).",
        UserWarning, stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, H, W)`` input.

    As PyTorch, a 3-D input is read as ``(N, C, L)`` (with a warning), not as unbatched.
    """
    check_probability(p)
    nd = input.ndim
    if nd not in (3, 4):
        _feature_warning("dropout2d", nd, 3)
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.", UserWarning, stacklevel=2)
    return _dropout(input, p, training, inplace, feature=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input."""
    check_probability(p)
    nd = input.ndim
    if nd not in (4, 5):
        _feature_warning("dropout3d", nd, 4)
    return _channel_dropout(input, p, training, inplace, nd == 5)


# ---------------------------------------------------------------- alpha dropout

_ALPHA = 1.7580993408473766


def _alpha_dropout(input, p, training, inplace, feature):
    """SELU-preserving dropout: dropped entries go to the negative saturation value and an
    affine map keeps the mean and variance (``input * a*mask + b``, as PyTorch composes it)."""
    if nothing_to_drop(input, p, training, feature):
        return input
    d = input._data.dtype
    if p == 1.0:
        zero = _wrap(filled((), 0, d))
        return input.mul_(zero) if inplace else EL.mul(input, zero)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    if is_meta(input._data):
        noise = b = struct(mask_shape(input, feature), d)
    else:
        noise, b = _alpha_masks(RND._key(None), mask_shape(input, feature), d, 1.0 - p, a, _ALPHA * a,
                                _ALPHA * a * p)
    noise, b = _wrap(noise), _wrap(b)
    if inplace:
        return input.mul_(noise).add_(b)
    return EL.mul(input, noise).add_(b)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: keeps zero mean and unit variance of its input."""
    check_probability(p)
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (one draw per sample and channel)."""
    check_probability(p)
    return _alpha_dropout(input, p, training, inplace, feature=True)
