"""Padding, resampling and patch rearrangement: pad, interpolate, unfold/fold, pixel_shuffle."""

import math
import warnings

from ... import _dtype
from ..._autograd.grad_mode import STATE
from ..._ops import nn_conv as NC
from ..._tensor import apply, _wrap_dim
from ._util import not_implemented
from .conv import adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_avg_pool1d
from ..._api import shape as S
from ..._api import creation as C
from ..._api import conversion as CNV


# ---------------------------------------------------------------- pad

_NON_CONSTANT = {"reflect": ("Reflection", "reflection_pad"), "replicate": ("Replication", "replication_pad"),
                 "circular": ("Circular", None)}
_PAD_OPS = {("reflect", 1): NC.reflection_pad1d, ("reflect", 2): NC.reflection_pad2d,
            ("reflect", 3): NC.reflection_pad3d, ("replicate", 1): NC.replication_pad1d,
            ("replicate", 2): NC.replication_pad2d, ("replicate", 3): NC.replication_pad3d}


def _pairs(input, pad):
    """PyTorch's flat pad list (last axis first) as ``(low, high)`` per axis, first axis first."""
    k = len(pad) // 2
    pairs = [(0, 0)] * (input.ndim - k)
    for i in reversed(range(k)):
        pairs.append((int(pad[2 * i]), int(pad[2 * i + 1])))
    return tuple(pairs)


def pad(input, pad, mode="constant", value=None):
    """Pad (or, with negative amounts, crop) the trailing axes.

    ``pad`` lists ``(left, right)`` pairs starting from the last axis. Modes: ``constant``
    (with ``value``, default 0), ``reflect``, ``replicate``, ``circular``.

    >>> import tensorgrad as torch
    >>> torch.nn.functional.pad(torch.ones(1, 2), (1, 1))
    tensor([[0., 1., 1., 0.]])
    """
    pad = tuple(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding length "
            f"{len(pad)} and input of dimension {input.ndim}")
    if mode == "constant":
        pairs = _pairs(input, pad)
        for n, (lo, hi) in zip(input.shape, pairs):
            # PyTorch crops one side at a time
            if n + min(lo, 0) < 0 or n + min(lo, 0) + min(hi, 0) < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        return apply(NC.constant_pad_nd, (input,), (pairs, 0 if value is None else value))
    if mode not in _NON_CONSTANT:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if not (1 <= k <= 3 and input.ndim in (k + 1, k + 2)):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    pairs = _pairs(input, pad)
    for dim in range(input.ndim - k, input.ndim):
        lo, hi = pairs[dim]
        n = input.shape[dim]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: padding "
                f"({lo}, {hi}) at dimension {dim} of input {list(input.shape)}")
        if mode == "circular":
            if lo > n or hi > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if n + lo + hi < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
    if input.dtype is _dtype.bool_ and mode != "circular":
        raise not_implemented(f"{_NON_CONSTANT[mode][1]}{k}d", input.dtype)
    if mode == "circular":
        if STATE.grad and not STATE.inference and input.requires_grad:
            return _circular_copies(input, pad)
        return apply(NC.circular_pad, (input,), (pairs,))
    return apply(_PAD_OPS[mode, k], (input,), (pairs,))


def _circular_copies(input, pad):
    """PyTorch's ``_pad_circular``, whose graph is its slice copies (CopySlices over
    SliceBackward0 nodes): the input (cropped where a pad is negative) copied into a new
    tensor, then each padded side copied from the opposite edge of that tensor, last axis
    first. Without a graph to record, the one ``circular_pad`` op gives the same values."""
    shape = tuple(input.shape)
    k = len(pad) // 2
    lead = input.ndim - k
    out_shape = list(shape)
    for i in range(k):
        out_shape[lead + i] = shape[lead + i] + pad[2 * (k - i - 1)] + pad[2 * (k - i - 1) + 1]
    out = C.empty(tuple(out_shape), dtype=input.dtype, device=input.device)
    out_part, in_part = out, input
    for i in range(k):
        dim = k - i + lead - 1
        lo, hi = pad[2 * i], pad[2 * i + 1]
        out_part = S._slice(out_part, dim, max(lo, 0), out_shape[dim] - max(hi, 0), 1)
        in_part = S._slice(in_part, dim, max(-lo, 0), shape[dim] - max(-hi, 0), 1)
    CNV.copy_(out_part, in_part)
    for i in range(k):
        dim = k - i + lead - 1
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = out_shape[dim]
        if lo > 0:
            CNV.copy_(S._slice(out, dim, 0, lo, 1), S._slice(out, dim, n - lo - max(hi, 0), n - max(hi, 0), 1))
        if hi > 0:
            CNV.copy_(S._slice(out, dim, n - hi, n, 1), S._slice(out, dim, max(lo, 0), max(lo, 0) + hi, 1))
    return out


# ---------------------------------------------------------------- interpolate

_INTERP_NDIM = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _output_size(input, size, scale_factor, dim):
    """``(output_size, scale_factors)`` as PyTorch resolves them (scales stay None for a size)."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor "
                    "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            return tuple(int(s) for s in size), (None,) * dim
        return (int(size),) * dim, (None,) * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please "
                "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
        scales = tuple(float(s) for s in scale_factor)
    else:
        scales = (float(scale_factor),) * dim
    sizes = tuple(int(math.floor(n * s)) for n, s in zip(input.shape[2:], scales))
    return sizes, scales


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial axes of an ``(N, C, *spatial)`` input.

    Modes: ``nearest``, ``nearest-exact``, ``linear`` (3-D), ``bilinear``/``bicubic`` (4-D),
    ``trilinear`` (5-D) and ``area`` (adaptive average pooling), with PyTorch's index
    arithmetic. ``antialias=True`` is not implemented.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear "
                             "| bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    out, scales = _output_size(input, size, scale_factor, dim)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or (mode == "area" and size is None):
        scales = (None,) * dim
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not implemented in tensorgrad")
    if input.ndim not in (3, 4, 5) or mode not in ("nearest", "nearest-exact", "area", "linear", "bilinear",
                                                   "bicubic", "trilinear"):
        if mode in _INTERP_NDIM and input.ndim in (3, 4, 5):
            want = _INTERP_NDIM[mode]
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {want}D input")
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: nearest | "
            f"linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})")
    if mode in _INTERP_NDIM and input.ndim != _INTERP_NDIM[mode]:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_INTERP_NDIM[mode]}D input")
    if mode == "area":
        pool = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}[dim]
        return pool(input, out)
    spatial = tuple(input.shape[2:])
    if any(o <= 0 for o in out) or any(n <= 0 for n in spatial):
        names = ("D", "H", "W")[3 - dim:]
        ins = ", ".join(f"{a}: {n}" for a, n in zip(names, spatial))
        outs = ", ".join(f"{a}: {o}" for a, o in zip(names, out))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}) and output "
                           f"({outs})")
    if input.dtype.kind != _dtype.FLOAT:
        kernel = "compute_indices_weights_nearest" if mode.startswith("nearest") else (
            "compute_indices_weights_cubic" if mode == "bicubic" else "compute_indices_weights_linear")
        raise not_implemented(kernel, input.dtype)
    kind = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    op = NC.RESAMPLE[kind, dim]
    return apply(op, (input,), (kind, out, bool(align_corners), scales))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of ``interpolate``."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


# ---------------------------------------------------------------- unfold / fold

def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode="nearest")``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _pair(value):
    return tuple(int(v) for v in value) if isinstance(value, (list, tuple)) else (int(value), int(value))


def _blocks(spatial, kernel, dilation, padding, stride):
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, d, p, s in zip(spatial, kernel, dilation, padding, stride))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of an ``(N, C, H, W)`` input as columns: ``(N, C * kh * kw, L)``."""
    if input.ndim < 3:
        _wrap_dim(2, input.ndim)
    if input.ndim not in (3, 4):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{list(input.shape)}")
    if any(s == 0 for s in input.shape[input.ndim - 3:]):
        # PyTorch's im2col_shape_check: only a 4-D input's batch may be empty
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    kernel, dilation, padding, stride = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    spatial = tuple(input.shape[-2:])
    out = _blocks(spatial, kernel, dilation, padding, stride)
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"Given input with spatial size {spatial}, kernel_size={kernel}, dilation={dilation}, "
            f"padding={padding}, calculated shape of the array of sliding blocks as {out}, but its components must "
            "be at least one.")
    if input.dtype.kind == _dtype.INT:
        raise not_implemented("im2col_out_cpu", input.dtype)
    return apply(NC.im2col, (input,), (kernel, dilation, padding, stride, out))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum columns ``(N, C * kh * kw, L)`` back into an image ``(N, C, *output_size)``."""
    if input.ndim not in (2, 3) or any(s == 0 for s in input.shape[input.ndim - 2:]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for "
            f"input, but got: {list(input.shape)}")
    size, kernel = _pair(output_size), _pair(kernel_size)
    dilation, padding, stride = _pair(dilation), _pair(padding), _pair(stride)
    k = kernel[0] * kernel[1]
    rows = input.shape[-2]
    if rows % k:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={rows} and kernel_size={kernel}.")
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if math.prod(blocks) != input.shape[-1]:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, padding={padding}, "
            f"stride={stride}, expected size of input's dimension 2 to match the calculated number of sliding blocks "
            f"{blocks[0]} * {blocks[1]} = {math.prod(blocks)}, but got input.size(2)={input.shape[-1]}.")
    if input.dtype.kind == _dtype.INT:
        raise not_implemented("col2im_out_cpu", input.dtype)
    image = tuple(input.shape[:-2]) + (rows // k,) + size
    return apply(NC.col2im, (input,), (image, kernel, dilation, padding, stride, blocks))


# ---------------------------------------------------------------- pixel shuffle

def pixel_shuffle(input, upscale_factor):
    """``(*, C * r * r, H, W)`` to ``(*, C, H * r, W * r)``."""
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
            f"but input.size(-3)={c} is not divisible by {r * r}")
    return apply(NC.pixel_shuffle, (input,), (r,))


def pixel_unshuffle(input, downscale_factor):
    """``(*, C, H * r, W * r)`` to ``(*, C * r * r, H, W)``."""
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {input.ndim} "
            "dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    h, w = input.shape[-2:]
    if h % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h} is not "
            f"divisible by {r}")
    if w % r:
        raise RuntimeError(
            f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w} is not "
            f"divisible by {r}")
    return apply(NC.pixel_unshuffle, (input,), (r,))
