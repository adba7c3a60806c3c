"""Grid sampling, affine grids, max unpooling, fractional max pooling and the channel shuffle,
with PyTorch's argument checks and messages."""

import warnings

import numpy as np

from ... import _dtype
from ..._ops import nn_sample as NS
from ..._api.surface import declare
from ..._tensor import apply
from ._util import is_tracer, no_grad_argument, not_implemented, ntuple
from ..._api import shape as S
from ..._api import random as RND

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


# ---------------------------------------------------------------- grid sampling

def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` ``(N, C, H, W)`` (or 5-D) at the ``[-1, 1]`` locations of ``grid``
    ``(N, H_out, W_out, 2)`` (x first); ``mode`` bilinear/nearest/bicubic."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, ("bilinear", "nearest", "bicubic").index(mode),
                        ("zeros", "border", "reflection").index(padding_mode), align_corners)


@declare("grid_sampler")
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler``: ``grid_sample`` with PyTorch's integer mode codes."""
    if input.ndim != grid.ndim:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have same number of dimensions as input, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but got grid with "
            f"sizes {list(grid.shape)}")
    if input.ndim not in (4, 5):
        raise RuntimeError(
            f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input with "
            f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    for axis in range(2, input.ndim):
        if input.shape[axis] == 0:
            raise RuntimeError(
                f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
                f"{list(input.shape)} with dimension {axis} being empty")
    if interpolation_mode == 2 and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    nd = input.ndim - 2
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented(f"grid_sampler_{nd}d_cpu_kernel_impl", input.dtype)
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.c_name} but found {grid.dtype.c_name}")
    op = NS.grid_sampler_2d if nd == 2 else NS.grid_sampler_3d
    mode = ("bilinear", "nearest", "bicubic")[interpolation_mode]
    padding = ("zeros", "border", "reflection")[padding_mode]
    return apply(op, (input, grid), (mode, padding, bool(align_corners)))


@declare("grid_sampler_2d")
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    if input.ndim != 4:
        raise RuntimeError(f"grid_sampler_2d(): expected 4D input, but got input with sizes {list(input.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


@declare("grid_sampler_3d")
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    if input.ndim != 5:
        raise RuntimeError(f"grid_sampler_3d(): expected 5D input, but got input with sizes {list(input.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def affine_grid(theta, size, align_corners=None):
    """The ``grid_sample`` grid ``(N, H, W, 2)`` (or ``(N, D, H, W, 3)``) of the affine maps ``theta``."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if theta.dtype.kind != _dtype.FLOAT:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.ndim != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}.")
    elif len(size) == 5:
        if theta.ndim != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}.")
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
            f"Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. "
            "This is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
            stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)


@declare("affine_grid_generator")
def affine_grid_generator(theta, size, align_corners):
    """``torch.affine_grid_generator``: ``affine_grid`` without its checks of ``theta``'s shape."""
    size = tuple(int(s) for s in size)
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {theta.shape[2]}] but got: "
            f"[{theta.shape[0]}, {theta.shape[2]}].")
    return apply(NS.affine_grid_generator, (theta,), (size, bool(align_corners)))


# ---------------------------------------------------------------- max unpooling

def _unpool_output_size(input, kernel, stride, padding, output_size):
    nd = len(kernel)
    default = [(input.shape[input.ndim - nd + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(nd)]
    if output_size is None:
        out = default
    else:
        output_size = tuple(int(s) for s in output_size)
        if len(output_size) == nd + 2:
            output_size = output_size[2:]
        if len(output_size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(nd):
            low = default[d] - stride[d]
            high = default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
        out = list(output_size)
    for d in range(nd):
        if out[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={out[d]}")
    return tuple(out)


def _max_unpool(input, indices, output_size, nd):
    name = f"max_unpooling{nd}d"
    if indices.dtype is not _dtype.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype.c_name}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) but got "
            f"indices tensor with shape: {list(indices.shape)}")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Input to {name} should be a {nd + 1}d or {nd + 2}d Tensor, but got a tensor with "
                           f"{input.ndim} dimensions.")
    for axis in range(1, input.ndim):
        if input.shape[axis] <= 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got "
                               f"{list(input.shape)} with dimension {axis} being empty.")
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented(f"max_unpool{nd}d", input.dtype)
    total = int(np.prod(output_size))
    if not is_tracer(indices) and indices.numel():
        flat = np.asarray(indices._data)
        bad = flat[(flat < 0) | (flat >= total)]
        if bad.size:
            sizes = "x".join(str(s) for s in output_size)
            raise RuntimeError(f"Found an invalid max index: {bad.flat[0]} (output volumes are of size {sizes})")
    # PyTorch's kernel takes an unbatched input as it is (its node reads the input's own node)
    op = NS.max_unpool2d if nd == 2 else NS.max_unpool3d
    return apply(op, (input, indices), (tuple(output_size),))


def _unpool_arguments(input, kernel_size, stride, padding, output_size, nd):
    kernel = ntuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None else ntuple(stride, nd, "stride")
    padding = ntuple(padding, nd, "padding")
    return _unpool_output_size(input, kernel, stride, padding, output_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool1d``: each value written at its index, zeros elsewhere."""
    size = _unpool_arguments(input, kernel_size, stride, padding, output_size, 1)
    out = _max_unpool(S.unsqueeze(input, -1), S.unsqueeze(indices, -1), size + (1,), 2)
    return S.squeeze(out, -1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool2d``: each value written at its (flat) index, zeros elsewhere."""
    size = _unpool_arguments(input, kernel_size, stride, padding, output_size, 2)
    return _max_unpool(input, indices, size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    size = _unpool_arguments(input, kernel_size, stride, padding, output_size, 3)
    return _max_unpool(input, indices, size, 3)


# ---------------------------------------------------------------- fractional max pooling

_AXIS_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, nd):
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if isinstance(output_ratio, (list, tuple)) and len(output_ratio) > nd:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * nd
        if len(ratio) == 1:
            ratio = ratio * nd
        output_size = [int(input.shape[input.ndim - nd + d] * ratio[d]) for d in range(nd)]
    kernel = ntuple(kernel_size, nd, "kernel_size")
    output_size = ntuple(output_size, nd, "output_size")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    if _random_samples is None:
        batch = 1 if input.ndim == nd + 1 else input.shape[0]
        _random_samples = RND.rand(batch, input.shape[input.ndim - nd - 1], nd, dtype=input.dtype)
    batched = input.ndim == nd + 2
    x = input if batched else S.unsqueeze(input, 0)
    if _random_samples.dtype is not input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if _random_samples.ndim != 3:
        raise RuntimeError(f"Expect _random samples to have 3 dimensions, got {_random_samples.ndim}")
    if _random_samples.shape[0] != x.shape[0]:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if _random_samples.shape[1] != x.shape[1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if _random_samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {_random_samples.shape[2]}.")
    no_grad_argument(name, "random_samples", _random_samples)
    prefix = name if nd == 2 else f"{name}_out"
    for axis, (k, o, n) in enumerate(zip(kernel, output_size, x.shape[2:])):
        if o + k - 1 > n:
            what = _AXIS_NAMES[nd][axis]
            raise RuntimeError(f"{prefix}(): pool {what} {k} too large relative to input {what} {n}")
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented(f"{name}_out_frame", input.dtype)
    op = NS.fractional_max_pool2d if nd == 2 else NS.fractional_max_pool3d
    values, indices = apply(op, (x, _random_samples), (kernel, output_size))
    if not batched:
        values = S.squeeze(values, 0)
        indices = S.squeeze(indices, 0)
    return (values, indices) if return_indices else values


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Max over pseudo-random windows (Graham's fractional pooling); ``_random_samples``
    ``(N, C, 2)`` in [0, 1) fixes the windows, as in PyTorch."""
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional(input, kernel_size, output_size, output_ratio, True, _random_samples, 2)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional(input, kernel_size, output_size, output_ratio, True, _random_samples, 3)


# ---------------------------------------------------------------- channel shuffle

@declare("channel_shuffle", "native_channel_shuffle")
def channel_shuffle(input, groups):
    """Channels (axis 1) split into ``groups`` and interleaved."""
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    groups = int(groups)
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and {groups} groups.")
    return apply(NS.channel_shuffle, (input,), (groups,))


native_channel_shuffle = channel_shuffle
