"""Pools that PyTorch composes in Python from other pools: power-average (``lp_pool``) pooling,
local response normalization, and the ``*_with_indices`` spellings of the max pools. Each is
written as PyTorch writes it, so the recorded ``grad_fn`` chain is PyTorch's."""

import math

from ..._api import elementwise as EL
from ..._api import shape as S
from ._util import ntuple
from .activation import relu
from .conv import (
    adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d,
    max_pool2d, max_pool3d,
)
from .spatial import pad

_AVG = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}
_MAX = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd):
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        if norm_type > 0:
            return _MAX[nd](EL.abs(input), kernel_size, stride, 0, 1, ceil_mode)
        return EL.neg(_MAX[nd](EL.neg(EL.abs(input)), kernel_size, stride, 0, 1, ceil_mode))
    count = math.prod(ntuple(kernel_size, nd, "kernel_size")) if nd > 1 else kernel_size
    if stride is not None:
        out = _AVG[nd](EL.pow(input, norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = _AVG[nd](EL.pow(input, norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return EL.pow(EL.mul(EL.sign(out) * relu(EL.abs(out)), count), 1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum over each window of x ** p) ** (1 / p)``; ``p = inf`` is max pooling of ``|x|``."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Each element divided by ``(k + alpha * mean of x ** 2 over size neighbouring channels) ** beta``."""
    dim = input.ndim
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = EL.mul(input, input)
    if dim == 3:
        div = S.unsqueeze(div, 1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = S.squeeze(avg_pool2d(div, (size, 1), stride=1), 1)
    else:
        sizes = tuple(input.shape)
        div = S.view(div, sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = S.squeeze(avg_pool3d(div, (size, 1, 1), stride=1), 1)
        div = S.view(div, sizes)
    div = EL.pow(EL.add(EL.mul(div, alpha), k), beta)
    return EL.div(input, div)


# ---------------------------------------------------------------- the max pools' *_with_indices spellings

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool3d(input, output_size, True)
