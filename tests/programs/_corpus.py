"""Deterministic inputs for the corpus programs.

PyTorch's and tensorgrad's random generators give different streams for the same seed, so a
program that drew its data or its initial weights from ``torch.randn`` would print different
numbers under the two. The programs draw them here instead, from numpy's seeded generator, and
hand them to ``torch.tensor`` (which is PyTorch or tensorgrad, whichever ``torch`` is).
"""

import math

import numpy as np
import torch


def _rng(seed):
    return np.random.default_rng(seed)


def _shape(shape):
    """``f(2, 3)`` and ``f((2, 3))`` both mean shape (2, 3), as in ``torch.randn``."""
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape


def randn(*shape, seed=0, dtype=None):
    """Standard normal samples of ``shape`` (float32 unless ``dtype``)."""
    data = _rng(seed).standard_normal(_shape(shape)).astype(np.float32)
    return torch.tensor(data, dtype=dtype)


def rand(*shape, seed=0, dtype=None):
    """Uniform [0, 1) samples of ``shape``."""
    data = _rng(seed).random(_shape(shape)).astype(np.float32)
    return torch.tensor(data, dtype=dtype)


def randint(low, high, shape, seed=0):
    """int64 integers in [low, high) of ``shape``."""
    return torch.tensor(_rng(seed).integers(low, high, size=shape), dtype=torch.int64)


def init_(module, seed=0):
    """Overwrites every parameter of ``module`` in place with seeded uniform values.

    Weights get U(-1/sqrt(fan_in), 1/sqrt(fan_in)) like PyTorch's default Linear/Conv init; 1-D
    parameters (biases, norm weights) keep their shape and get the same bound of their module's
    weight. Returns ``module``.
    """
    rng = _rng(seed)
    with torch.no_grad():
        for _, param in module.named_parameters():
            shape = tuple(param.shape)
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            bound = 1.0 / math.sqrt(max(fan_in, 1))
            values = rng.uniform(-bound, bound, size=shape).astype(np.float32)
            param.copy_(torch.tensor(values, dtype=param.dtype))
    return module
