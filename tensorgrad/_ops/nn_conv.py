"""Spatial ops: convolution, pooling, padding, resampling and patch extraction.

Spatial arguments (kernel, stride, padding, ...) arrive as tuples with one entry per spatial
axis, already checked by the torch-level functions. Windows are gathered with strided slices
and reduced explicitly, so each pooling op decides which element receives the gradient
(PyTorch's max pools: the first maximum in the window).
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .registry import op


# ---------------------------------------------------------------- convolution

def _dimension_numbers(nd):
    spatial = "DHW"[3 - nd:]
    return ("NC" + spatial, "OI" + spatial, "NC" + spatial)


@op("convolution", grad_fn="ConvolutionBackward0", saves={"x": "any", "weight": "any"}, grad_reads=("x", "weight"))
def convolution(x, weight, bias, *, stride, padding, dilation, groups, transposed, output_padding):
    """N-d convolution (or its transpose) of a batched input; ``bias`` of shape (0,) is none.

    ``padding`` holds ``(low, high)`` per spatial axis. A transposed convolution is the
    convolution of the stride-dilated input with the flipped, regrouped kernel.
    """
    nd = x.ndim - 2
    if transposed:
        cin, cout_g = weight.shape[:2]
        k = weight.shape[2:]
        w = weight.reshape((groups, cin // groups, cout_g) + k)
        w = jnp.swapaxes(w, 1, 2).reshape((groups * cout_g, cin // groups) + k)
        w = jnp.flip(w, tuple(range(2, 2 + nd)))
        pads = [(d * (kk - 1) - lo, d * (kk - 1) - hi + op_)
                for d, kk, (lo, hi), op_ in zip(dilation, k, padding, output_padding)]
        y = lax.conv_general_dilated(x, w, (1,) * nd, pads, lhs_dilation=stride, rhs_dilation=dilation,
                                     dimension_numbers=_dimension_numbers(nd), feature_group_count=groups)
    else:
        y = lax.conv_general_dilated(x, weight, stride, list(padding), rhs_dilation=dilation,
                                     dimension_numbers=_dimension_numbers(nd), feature_group_count=groups)
    if bias.shape[0]:
        y = y + bias.reshape((1, -1) + (1,) * nd)
    return y


# ---------------------------------------------------------------- sliding windows

def _windows(x, kernel, stride, dilation, pad_lo, out, fill):
    """The sliding windows over the last ``len(kernel)`` axes: shape ``(..., *out, prod(kernel))``.

    The input is padded with ``fill``: ``pad_lo`` before each axis and whatever the last
    window needs after it (ceil_mode windows may run past the padding).
    """
    return jnp.stack(_window_elements(x, kernel, stride, dilation, pad_lo, out, fill), axis=-1)


def _window_elements(x, kernel, stride, dilation, pad_lo, out, fill):
    """``_windows`` as a list: the k-th element of every window, shape ``(..., *out)``, per k."""
    nd = len(kernel)
    lead = x.ndim - nd
    spatial = x.shape[lead:]
    pad_hi = [max(0, (o - 1) * s + d * (k - 1) + 1 - (n + p))
              for o, s, d, k, n, p in zip(out, stride, dilation, kernel, spatial, pad_lo)]
    config = [(0, 0, 0)] * lead + [(p, h, 0) for p, h in zip(pad_lo, pad_hi)]
    xp = lax.pad(x, jnp.asarray(fill, x.dtype), config)
    parts = []
    for offsets in itertools.product(*[range(k) for k in kernel]):
        start = [0] * lead + [o * d for o, d in zip(offsets, dilation)]
        limit = list(x.shape[:lead]) + [st + (o - 1) * s + 1 for st, o, s in zip(start[lead:], out, stride)]
        parts.append(lax.slice(xp, start, limit, [1] * lead + list(stride)))
    return parts


def _outer_grid(per_axis, combine):
    """Combine per-axis ``(o, w)`` arrays into one ``(*o, *w)`` array, axis by axis."""
    nd = len(per_axis)
    out = None
    for axis, a in enumerate(per_axis):
        shape = [1] * (2 * nd)
        shape[axis] = a.shape[0]
        shape[nd + axis] = a.shape[1]
        out = a.reshape(shape) if out is None else combine(axis, out, a.reshape(shape))
    return out


def _window_positions(spatial, kernel, stride, dilation, pad_lo, out):
    """Flat index into the unpadded input of every window element: int64 ``(*out, prod(kernel))``."""
    grids = [np.arange(o)[:, None] * s - p + np.arange(k)[None, :] * d
             for k, s, d, p, o in zip(kernel, stride, dilation, pad_lo, out)]
    flat = _outer_grid(grids, lambda axis, acc, a: acc * spatial[axis] + a)
    return flat.reshape(tuple(out) + (-1,)).astype(np.int64)


def _max_over_windows(windows, positions):
    # the first maximum of each window takes the gradient, as PyTorch's kernels do
    # (argmax also picks the first NaN, which PyTorch propagates)
    arg = jnp.argmax(windows, axis=-1)[..., None]
    values = jnp.take_along_axis(windows, arg, axis=-1)[..., 0]
    idx = jnp.broadcast_to(jnp.asarray(positions), windows.shape)
    indices = jnp.take_along_axis(idx, arg, axis=-1)[..., 0]
    return values, indices


def _first_max(elements, positions):
    """``_max_over_windows`` for windows given element by element (``_window_elements``), as a
    chain of elementwise selections: the same choice (the first of equal values, the first NaN),
    which XLA compiles several times faster than an argmax and two gathers, and runs faster."""
    best = elements[0]
    index = jnp.broadcast_to(jnp.asarray(positions[..., 0]), best.shape)
    for k in range(1, len(elements)):
        e = elements[k]
        take = (e > best) | (jnp.isnan(e) & ~jnp.isnan(best))
        best = jnp.where(take, e, best)
        index = jnp.where(take, jnp.asarray(positions[..., k]), index)
    return best, index


_SELECTION_CHAIN_MAX = 16   # windows of at most this many elements are reduced by ``_first_max``


def _max_pool(x, *, kernel, stride, padding, dilation, out):
    fill = -jnp.inf if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min
    elements = _window_elements(x, kernel, stride, dilation, padding, out, fill)
    spatial = x.shape[x.ndim - len(kernel):]
    positions = _window_positions(spatial, kernel, stride, dilation, padding, out)
    if len(elements) <= _SELECTION_CHAIN_MAX:
        return _first_max(elements, positions)
    return _max_over_windows(jnp.stack(elements, axis=-1), positions)


_MAX_POOL = dict(saves={"x": "any", "out1": "any"}, grad_reads=("x",))
max_pool2d = op("max_pool2d", grad_fn="MaxPool2DWithIndicesBackward0", **_MAX_POOL)(_max_pool)
max_pool3d = op("max_pool3d", grad_fn="MaxPool3DWithIndicesBackward0", **_MAX_POOL)(_max_pool)


def avg_divisors(spatial, kernel, stride, padding, out, count_include_pad, divisor_override):
    """PyTorch's divisor of every avg-pool window (numpy, ``out``-shaped)."""
    if divisor_override:
        return np.full(tuple(out), float(divisor_override))
    per_axis = []
    for n, k, s, p, o in zip(spatial, kernel, stride, padding, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        size = end - start  # includes padding, excludes the ceil_mode overhang
        inside = np.minimum(end, n) - np.maximum(start, 0)
        per_axis.append(size if count_include_pad else inside)
    div = per_axis[0].astype(np.float64)
    for a in per_axis[1:]:
        div = np.multiply.outer(div, a)
    return div


def _avg_pool(x, *, kernel, stride, padding, out, count_include_pad, divisor_override):
    windows = _windows(x, kernel, stride, (1,) * len(kernel), padding, out, 0)
    total = jnp.sum(windows, axis=-1)
    spatial = x.shape[x.ndim - len(kernel):]
    div = avg_divisors(spatial, kernel, stride, padding, out, count_include_pad, divisor_override)
    if jnp.issubdtype(x.dtype, jnp.integer):
        # integer pools divide with truncation, as PyTorch's kernels do
        return lax.div(total, jnp.broadcast_to(jnp.asarray(div.astype(np.int64), x.dtype), total.shape))
    return total / jnp.asarray(div, x.dtype)


# PyTorch's *_backward kernels of these take the input (with a zero derivative in it)
_READS_X = dict(grad_reads=("x",))
avg_pool2d = op("avg_pool2d", grad_fn="AvgPool2DBackward0", **_READS_X)(_avg_pool)
avg_pool3d = op("avg_pool3d", grad_fn="AvgPool3DBackward0", **_READS_X)(_avg_pool)


def _adaptive_bins(n, o):
    """Per output position: the input indices of its bin, padded to the longest bin, and a mask."""
    start = (np.arange(o) * n) // o
    end = -((-(np.arange(o) + 1) * n) // o)
    width = int((end - start).max()) if o else 0
    idx = start[:, None] + np.arange(width)[None, :]
    mask = idx < end[:, None]
    return np.minimum(idx, n - 1), mask


def _adaptive_gather(x, out):
    """Bins of the last ``len(out)`` axes: values ``(..., *out, K)``, their flat positions in
    the input and a mask of the real (not padding) entries, both ``(*out, K)``."""
    nd = len(out)
    lead = x.ndim - nd
    spatial = x.shape[lead:]
    bins = [_adaptive_bins(n, o) for n, o in zip(spatial, out)]
    y = x
    for axis, (idx, _) in enumerate(bins):
        # taking with an (o, w) index splits the axis in two, so later axes move right
        y = jnp.take(y, jnp.asarray(idx), axis=lead + 2 * axis)
    order = list(range(lead)) + [lead + 2 * i for i in range(nd)] + [lead + 2 * i + 1 for i in range(nd)]
    y = jnp.transpose(y, order)
    # the bin sizes spelled out: -1 cannot be inferred when a leading axis is empty (a batch of 0)
    width = int(np.prod([idx.shape[1] for idx, _ in bins], dtype=np.int64))
    y = y.reshape(y.shape[:lead + nd] + (width,))
    positions = _outer_grid([idx for idx, _ in bins], lambda axis, acc, a: acc * spatial[axis] + a)
    mask = _outer_grid([m for _, m in bins], lambda axis, acc, a: acc & a)
    return y, positions.reshape(tuple(out) + (-1,)), mask.reshape(tuple(out) + (-1,))


def _adaptive_avg_pool(x, *, out):
    values, _, mask = _adaptive_gather(x, out)
    total = jnp.sum(jnp.where(jnp.asarray(mask), values, 0), axis=-1)
    return total / jnp.asarray(mask.sum(-1), x.dtype)


def _adaptive_max_pool(x, *, out):
    values, positions, mask = _adaptive_gather(x, out)
    values = jnp.where(jnp.asarray(mask), values, -jnp.inf)
    return _max_over_windows(values, positions)


adaptive_avg_pool2d = op("adaptive_avg_pool2d", grad_fn="AdaptiveAvgPool2DBackward0", **_READS_X)(_adaptive_avg_pool)
adaptive_avg_pool3d = op("adaptive_avg_pool3d", grad_fn="AdaptiveAvgPool3DBackward0", **_READS_X)(_adaptive_avg_pool)
adaptive_max_pool2d = op("adaptive_max_pool2d", grad_fn="AdaptiveMaxPool2DBackward0", **_MAX_POOL)(_adaptive_max_pool)
adaptive_max_pool3d = op("adaptive_max_pool3d", grad_fn="AdaptiveMaxPool3DBackward0", **_MAX_POOL)(_adaptive_max_pool)


# ---------------------------------------------------------------- patches (unfold / fold)

def _im2col(x, kernel, dilation, padding, stride, out):
    windows = _windows(x, kernel, stride, dilation, padding, out, 0)  # (N, C, oh, ow, K)
    lead = x.ndim - 3
    c = x.shape[lead]
    order = tuple(range(lead)) + (lead, lead + 3, lead + 1, lead + 2)
    cols = jnp.transpose(windows, order)  # (N, C, K, oh, ow)
    return cols.reshape(x.shape[:lead] + (c * windows.shape[-1], int(np.prod(windows.shape[lead + 1:-1]))))


@op("im2col", grad_fn="Im2ColBackward0", saves="none")
def im2col(x, *, kernel, dilation, padding, stride, out):
    return _im2col(x, kernel, dilation, padding, stride, out)


@op("col2im", grad_fn="Col2ImBackward0", saves="none")
def col2im(cols, *, image, kernel, dilation, padding, stride, out):
    """Sum the columns back into an image of shape ``image``: the adjoint of im2col."""
    if cols.dtype == jnp.bool_:
        summed = col2im.fn(cols.astype(jnp.float32), image=image, kernel=kernel, dilation=dilation,
                           padding=padding, stride=stride, out=out)
        return summed != 0
    zeros = jnp.zeros(image, cols.dtype)
    _, pullback = jax.vjp(lambda img: _im2col(img, kernel, dilation, padding, stride, out), zeros)
    return pullback(cols)[0]


# ---------------------------------------------------------------- padding

@op("constant_pad_nd", grad_fn="ConstantPadNdBackward0", saves="none", scalar_slots=False)
def constant_pad_nd(x, *, pads, value):
    """``pads`` is ``(low, high)`` per axis, first axis first; negative entries crop."""
    config = [(lo, hi, 0) for lo, hi in pads]
    return lax.pad(x, jnp.asarray(value, x.dtype), config)


def _pad_mode(mode):
    def pad(x, *, pads):
        """``pads``: ``(low, high)`` per axis; negative amounts crop after padding."""
        grow = [(max(lo, 0), max(hi, 0)) for lo, hi in pads]
        y = jnp.pad(x, grow, mode=mode)
        crop = tuple(slice(-min(lo, 0), y.shape[i] + min(hi, 0)) for i, (lo, hi) in enumerate(pads))
        return y[crop]
    return pad


reflection_pad1d = op("reflection_pad1d", grad_fn="ReflectionPad1DBackward0", **_READS_X)(_pad_mode("reflect"))
reflection_pad2d = op("reflection_pad2d", grad_fn="ReflectionPad2DBackward0", **_READS_X)(_pad_mode("reflect"))
reflection_pad3d = op("reflection_pad3d", grad_fn="ReflectionPad3DBackward0", **_READS_X)(_pad_mode("reflect"))
replication_pad1d = op("replication_pad1d", grad_fn="ReplicationPad1DBackward0", **_READS_X)(_pad_mode("edge"))
replication_pad2d = op("replication_pad2d", grad_fn="ReplicationPad2DBackward0", **_READS_X)(_pad_mode("edge"))
replication_pad3d = op("replication_pad3d", grad_fn="ReplicationPad3DBackward0", **_READS_X)(_pad_mode("edge"))
@op("circular_pad", grad_fn="CopySlices", saves="none")
def circular_pad(x, *, pads):
    """PyTorch's ``_pad_circular``, copy for copy (so negative amounts give its values, which
    are not a crop of the wrapped tensor): the input, cropped where a pad is negative, goes
    into a new array; then, last axis first, each positive side is copied from the other
    end of that array. ``pads``: ``(low, high)`` per axis, first axis first."""
    out_shape = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, pads))
    dst = tuple(slice(max(lo, 0), n - max(hi, 0)) for n, (lo, hi) in zip(out_shape, pads))
    src = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(x.shape, pads))
    out = jnp.zeros(out_shape, x.dtype).at[dst].set(x[src])
    for axis in reversed(range(x.ndim)):
        lo, hi = pads[axis]
        n = out_shape[axis]
        lead = (slice(None),) * axis
        if lo > 0:
            out = out.at[lead + (slice(0, lo),)].set(out[lead + (slice(n - lo - max(hi, 0), n - max(hi, 0)),)])
        if hi > 0:
            out = out.at[lead + (slice(n - hi, n),)].set(out[lead + (slice(max(lo, 0), max(lo, 0) + hi),)])
    return out


# ---------------------------------------------------------------- resampling

def resample_taps(mode, n, o, align_corners, scale):
    """Source indices and weights ``(o, taps)`` for resizing one axis from ``n`` to ``o``.

    ``scale`` is the user's scale factor (or None); the arithmetic follows PyTorch's kernels,
    including float32 index math for the nearest modes.
    """
    dst = np.arange(o)
    if mode in ("nearest", "nearest-exact"):
        ratio = np.float32(1.0 / scale) if scale else np.float32(n) / np.float32(o)
        offset = np.float32(0.5) if mode == "nearest-exact" else np.float32(0.0)
        src = np.floor((dst.astype(np.float32) + offset) * ratio).astype(np.int64)
        if mode == "nearest" and o in (n, 2 * n):
            src = dst * n // o  # PyTorch's exact shortcuts for same size and doubling
        return np.minimum(src, n - 1)[:, None], np.ones((o, 1))
    if align_corners:
        ratio = (n - 1) / (o - 1) if o > 1 else 0.0
        src = ratio * dst
    else:
        ratio = 1.0 / scale if scale else n / o
        src = ratio * (dst + 0.5) - 0.5
    if mode == "cubic":
        base = np.floor(src).astype(np.int64)  # taps outside the input repeat its edge
        t = src - base
        a = -0.75

        def near(v):
            return ((a + 2) * v - (a + 3)) * v * v + 1

        def far(v):
            return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a
        weights = np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], axis=1)
        idx = np.clip(base[:, None] + np.arange(-1, 3)[None, :], 0, n - 1)
        return idx, weights
    src = np.maximum(src, 0.0)
    lo = np.minimum(src.astype(np.int64), n - 1)
    hi = np.minimum(lo + 1, n - 1)
    frac = src - lo
    return np.stack([lo, hi], axis=1), np.stack([1.0 - frac, frac], axis=1)


def _resample(x, *, mode, out, align_corners, scales):
    nd = len(out)
    spatial = x.shape[x.ndim - nd:]
    for axis, (n, o, s) in enumerate(zip(spatial, out, scales)):
        idx, weights = resample_taps(mode, n, o, align_corners, s)
        dim = x.ndim - nd + axis
        taken = jnp.take(x, jnp.asarray(idx.reshape(-1)), axis=dim)
        taken = taken.reshape(x.shape[:dim] + idx.shape + x.shape[dim + 1:])
        w = jnp.asarray(weights, x.dtype).reshape(idx.shape + (1,) * (x.ndim - dim - 1))
        x = jnp.sum(taken * w, axis=dim + 1) if idx.shape[1] > 1 else taken[(slice(None),) * (dim + 1) + (0,)]
    return x


RESAMPLE = {}
for _mode, _names in {"nearest": ("Nearest1D", "Nearest2D", "Nearest3D"),
                      "nearest-exact": ("NearestExact1D", "NearestExact2D", "NearestExact3D"),
                      "linear": ("Linear1D", "Bilinear2D", "Trilinear3D"),
                      "cubic": (None, "Bicubic2D", None)}.items():
    for _nd, _name in enumerate(_names, start=1):
        if _name is not None:
            RESAMPLE[_mode, _nd] = op("upsample_" + _name.lower(), grad_fn=f"Upsample{_name}Backward0",
                                      saves="none")(_resample)


# ---------------------------------------------------------------- pixel shuffle

@op("pixel_shuffle", grad_fn="PixelShuffleBackward0", saves="none")
def pixel_shuffle(x, *, r):
    *lead, c, h, w = x.shape
    oc = c // (r * r)
    y = x.reshape(tuple(lead) + (oc, r, r, h, w))
    k = len(lead)
    y = jnp.transpose(y, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return y.reshape(tuple(lead) + (oc, h * r, w * r))


@op("pixel_unshuffle", grad_fn="PixelUnshuffleBackward0", saves="none")
def pixel_unshuffle(x, *, r):
    *lead, c, h, w = x.shape
    k = len(lead)
    y = x.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    y = jnp.transpose(y, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return y.reshape(tuple(lead) + (c * r * r, h // r, w // r))
