"""Helpers shared by the distributions, as in ``torch.distributions.utils``: broadcasting the
parameters, probabilities from logits and back, ``lazy_property``, and the random draws (each a
bounded kernel of ``_api/random.py`` with tensorgrad's generator)."""

import numbers
from functools import update_wrapper

import numpy as np

from .. import _dtype
from .._autograd.grad_mode import enable_grad
from .._tensor import Tensor, Size, _wrap
from .._api import random as RND
from .._api.creation import tensor as _tensor
from .._api.joining import broadcast_tensors
from ..nn._functional.activation import softmax, sigmoid as _sigmoid

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]


def broadcast_all(*values):
    """The values (tensors and numbers) as tensors broadcast to one shape; numbers take the
    first tensor's dtype (the default dtype when there is none)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = _dtype.get_default_dtype()
        for v in values:
            if isinstance(v, Tensor):
                dtype = v.dtype
                break
        values = tuple(v if isinstance(v, Tensor) else _tensor(v, dtype=dtype) for v in values)
    return broadcast_tensors(*values)


def finfo(dtype):
    """numpy's ``finfo`` of a tensorgrad floating dtype (``eps``, ``tiny``, ``max``, ``min``)."""
    return np.finfo(dtype.np)


def clamp_probs(probs):
    """Probabilities clamped into ``[eps, 1 - eps]`` of their dtype."""
    eps = float(finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    """Sigmoid of ``logits`` when ``is_binary``, else softmax over the last dimension."""
    if is_binary:
        return _sigmoid(logits)
    return softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped away from 0 and 1)."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


class lazy_property:
    """A property computed at its first read and stored on the instance (PyTorch's
    ``lazy_property``; under grad mode, so that parameters derived from others keep a graph)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _LazyPropertyAndProperty(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _LazyPropertyAndProperty(lazy_property, property):
    """What a lazy property reads as on the class: a property too (for documentation tools)."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (below ``diag``) of the last two dimensions, row by row, as a vector."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = np.tril_indices(n, diag)
    return mat[..., _tensor(rows), _tensor(cols)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of ``tril_matrix_to_vec``."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = float(finfo(vec.dtype).eps)
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    rows, cols = np.tril_indices(n, diag)
    mat[..., _tensor(rows), _tensor(cols)] = vec
    return mat


def as_size(shape):
    """``sample_shape`` (a Size, tuple or list) as a Size."""
    return shape if isinstance(shape, Size) else Size(shape)


# ---------------------------------------------------------------- draws (no gradient)

def standard_normal(shape, like):
    """N(0, 1) draws of ``shape`` in ``like``'s dtype."""
    return _wrap(RND._normal(RND._key(None), tuple(shape), like.dtype.np))


def uniform(shape, like, low=0.0, high=1.0):
    """U[low, high) draws of ``shape`` in ``like``'s dtype."""
    d = like.dtype.np
    return _wrap(RND._uniform(RND._key(None), tuple(shape), d, d, low, high))


def standard_exponential(shape, like):
    """Exp(1) draws of ``shape`` in ``like``'s dtype."""
    return _wrap(RND._exponential(RND._key(None), tuple(shape), like.dtype.np, 1.0))


def bernoulli(probs, shape):
    """0/1 draws of ``shape`` with ``probs`` (broadcast to it), in ``probs``' dtype."""
    d = probs.dtype.np
    return _wrap(RND._bernoulli(RND._key(None), tuple(shape), d, d, probs.detach()._data))


def categorical(probs, shape):
    """Category indices (int64) of ``shape`` with ``probs`` over its last dimension."""
    return _wrap(RND._categorical(RND._key(None), probs.detach()._data, tuple(shape)))


def poisson(rate, shape):
    """Poisson counts of ``shape`` with ``rate`` (broadcast to it), in ``rate``'s dtype."""
    return _wrap(RND._poisson(RND._key(None), rate.detach()._data, tuple(shape)))


def standard_gamma(concentration, shape):
    """Gamma(concentration, 1) draws of ``shape``, differentiable in ``concentration``."""
    return RND.standard_gamma(concentration.expand(tuple(shape)), tuple(shape))
