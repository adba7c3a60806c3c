"""Sampling ops: grid sampling, affine grids, max unpooling, fractional max pooling and the
channel shuffle, each one PyTorch kernel with its own backward node.

Arguments arrive checked by the torch-level functions in ``nn/_functional/sampling.py``.
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from .registry import op


# ---------------------------------------------------------------- grid sampling

def _unnormalize(coord, size, align_corners):
    # [-1, 1] to pixel coordinates: corner pixels' centres (align_corners) or their edges
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _clip(coord, size):
    # as PyTorch's clip_coordinates: the gradient is 0 at and beyond either end
    return jnp.where(coord <= 0, jnp.zeros_like(coord), jnp.where(coord >= size - 1, size - 1, coord))


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return jnp.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = jnp.abs(coord - low)
    extra = jnp.fmod(coord, span)
    flips = jnp.floor(coord / span)
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + low, span - extra + low)


def _apply_padding(coord, size, padding_mode, align_corners):
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size)
    return coord


def _gather(x, index, sizes):
    """``x[n, c, index...]`` for integer ``index`` arrays of shape ``(N, *out)`` (one per spatial
    axis, in ``x``'s order), with zero where an index falls outside ``sizes``."""
    n, c = x.shape[:2]
    inside = jnp.ones(index[0].shape, bool)
    flat = jnp.zeros(index[0].shape, jnp.int32)
    for i, size in zip(index, sizes):
        inside = inside & (i >= 0) & (i < size)
        flat = flat * size + jnp.clip(i, 0, size - 1).astype(jnp.int32)
    out_shape = flat.shape[1:]
    flat = flat.reshape(n, 1, -1)
    values = jnp.take_along_axis(x.reshape(n, c, -1), jnp.broadcast_to(flat, (n, c, flat.shape[2])), axis=2)
    values = values.reshape((n, c) + out_shape)
    return jnp.where(inside[:, None], values, jnp.zeros((), x.dtype))


def _cubic_weights(t):
    # PyTorch's cubic convolution coefficients (A = -0.75) for the taps at -1, 0, 1, 2
    a = -0.75

    def near(s):
        return ((a + 2) * s - (a + 3)) * s * s + 1

    def far(s):
        return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _grid_sample(x, grid, *, mode, padding_mode, align_corners):
    sizes = x.shape[2:]
    nd = len(sizes)
    # the grid's last axis lists x (width) first: reverse it to the input's axis order
    coords = [grid[..., nd - 1 - axis] for axis in range(nd)]
    coords = [_unnormalize(c, s, align_corners) for c, s in zip(coords, sizes)]
    if mode == "bicubic":
        corner = [jnp.floor(c) for c in coords]
        taps = [_cubic_weights(c - f) for c, f in zip(coords, corner)]
        out = 0
        for offsets in itertools.product(range(4), repeat=nd):
            index = []
            weight = 1
            for axis, k in enumerate(offsets):
                at = _apply_padding(corner[axis] - 1 + k, sizes[axis], padding_mode, align_corners)
                index.append(jax.lax.stop_gradient(at).astype(jnp.int32))
                weight = weight * taps[axis][k]
            out = out + _gather(x, index, sizes) * weight[:, None]
        return out
    coords = [_apply_padding(c, s, padding_mode, align_corners) for c, s in zip(coords, sizes)]
    if mode == "nearest":
        index = [jax.lax.stop_gradient(jnp.round(c)).astype(jnp.int32) for c in coords]
        return _gather(x, index, sizes)
    low = [jax.lax.stop_gradient(jnp.floor(c)) for c in coords]
    out = 0
    for offsets in itertools.product((0, 1), repeat=nd):
        index = []
        weight = 1
        for axis, k in enumerate(offsets):
            frac = coords[axis] - low[axis]
            weight = weight * (frac if k else 1 - frac)
            index.append(low[axis].astype(jnp.int32) + k)
        out = out + _gather(x, index, sizes) * weight[:, None]
    return out


_SAMPLER = dict(saves={"x": "any", "grid": "any"})
grid_sampler_2d = op("grid_sampler_2d", grad_fn="GridSampler2DBackward0", **_SAMPLER)(_grid_sample)
grid_sampler_3d = op("grid_sampler_3d", grad_fn="GridSampler3DBackward0", **_SAMPLER)(_grid_sample)


def _linspace_from_neg_one(steps, align_corners, dtype):
    """PyTorch's base coordinates of an affine grid, with its linspace arithmetic in ``dtype``."""
    if steps <= 1:
        return np.zeros((steps,), dtype)
    one = dtype.type(1)
    step = (one + one) / dtype.type(steps - 1)
    idx = np.arange(steps)
    low = -one + step * idx.astype(dtype)
    high = one - step * (steps - idx - 1).astype(dtype)
    out = np.where(idx < steps // 2, low, high).astype(dtype)
    if not align_corners:
        out = (out * dtype.type((steps - 1) / steps)).astype(dtype)
    return out


@op("affine_grid_generator", grad_fn="AffineGridGeneratorBackward0", saves="none")
def affine_grid_generator(theta, *, size, align_corners):
    """The sampling grid ``(N, *spatial, nd)`` of the affine maps ``theta`` ``(N, nd, nd + 1)``."""
    spatial = size[2:]
    nd = len(spatial)
    dtype = np.dtype(theta.dtype)
    axes = [_linspace_from_neg_one(s, align_corners, dtype) for s in spatial]
    base = np.ones(tuple(spatial) + (nd + 1,), dtype)
    # the grid's coordinates run x (the last axis) first
    for k in range(nd):
        shape = [1] * nd
        shape[nd - 1 - k] = spatial[nd - 1 - k]
        base[..., k] = axes[nd - 1 - k].reshape(shape)
    base = jnp.asarray(base.reshape(-1, nd + 1))
    grid = jnp.einsum("pk,njk->npj", base, theta)
    return grid.reshape((theta.shape[0],) + tuple(spatial) + (nd,))


# ---------------------------------------------------------------- max unpooling

def _scatter(x, flat, size):
    n, c = x.shape[:2]
    rows = jnp.arange(n)[:, None, None]
    channels = jnp.arange(c)[None, :, None]
    return jnp.zeros((n, c, size), x.dtype).at[rows, channels, flat].set(x)


_unpool = jax.custom_vjp(_scatter, nondiff_argnums=(2,))


def _unpool_fwd(x, flat, size):
    return _scatter(x, flat, size), flat


def _unpool_bwd(size, flat, g):
    # PyTorch's backward gathers at the indices: every duplicate index receives the gradient
    return jnp.take_along_axis(g, flat, axis=2), None


_unpool.defvjp(_unpool_fwd, _unpool_bwd)


def _max_unpool(x, indices, *, output_size):
    """Batched ``(N, C, *spatial)`` or, as PyTorch's kernel takes it, unbatched ``(C, *spatial)``."""
    lead = x.shape[:x.ndim - len(output_size)]
    n, c = (1,) + lead if len(lead) == 1 else lead
    size = int(np.prod(output_size))
    flat = indices.reshape(n, c, -1)
    out = _unpool(x.reshape(n, c, -1), flat, size)
    return out.reshape(lead + tuple(output_size))


_UNPOOL = dict(saves={"indices": "any"}, no_slot=(1,))
max_unpool2d = op("max_unpool2d", grad_fn="MaxUnpool2DBackward0", **_UNPOOL)(_max_unpool)
max_unpool3d = op("max_unpool3d", grad_fn="MaxUnpool3DBackward0", **_UNPOOL)(_max_unpool)


# ---------------------------------------------------------------- fractional max pooling

def _intervals(sample, size, out, pool):
    """PyTorch's pseudo-random window starts ``(N, C, out)`` from samples in [0, 1) ``(N, C)``."""
    if out == 1:
        return jnp.full(sample.shape + (1,), size - pool, jnp.int32)
    alpha = jnp.asarray(size - pool, sample.dtype) / jnp.asarray(out - 1, sample.dtype)
    i = jnp.arange(out - 1, dtype=sample.dtype)
    starts = (jnp.trunc((i + sample[..., None]) * alpha) - jnp.trunc(sample * alpha)[..., None]).astype(jnp.int32)
    last = jnp.full(sample.shape + (1,), size - pool, jnp.int32)
    return jnp.concatenate([starts, last], axis=-1)


def _fractional_max_pool(x, samples, *, kernel, output_size):
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    nd = len(sizes)
    # PyTorch's 2-D kernel reads the width's sample first, the 3-D one the depth's
    order = (1, 0) if nd == 2 else (0, 1, 2)
    flat = None
    for axis in range(nd):
        starts = _intervals(samples[:, :, order[axis]], sizes[axis], output_size[axis], kernel[axis])
        pos = starts[..., :, None] + jnp.arange(kernel[axis], dtype=jnp.int32)
        shape = [n, c] + [1] * (2 * nd)
        shape[2 + axis] = output_size[axis]
        shape[2 + nd + axis] = kernel[axis]
        pos = pos.reshape(shape)
        flat = pos if flat is None else flat * sizes[axis] + pos
    flat = jnp.broadcast_to(flat, (n, c) + tuple(output_size) + tuple(kernel)).reshape(n, c, -1)
    windows = jnp.take_along_axis(x.reshape(n, c, -1), flat, axis=2)
    windows = windows.reshape((n, c) + tuple(output_size) + (-1,))
    flat = flat.reshape(windows.shape)
    arg = jnp.argmax(windows, axis=-1)[..., None]
    values = jnp.take_along_axis(windows, arg, axis=-1)[..., 0]
    indices = jnp.take_along_axis(flat, arg, axis=-1)[..., 0].astype(jnp.int64)
    return values, indices


_FRACTIONAL = dict(saves={"x": "any", "out1": "any"}, no_slot=(1,), grad_reads=("x",))
fractional_max_pool2d = op("fractional_max_pool2d", grad_fn="FractionalMaxPool2DBackward0",
                           **_FRACTIONAL)(_fractional_max_pool)
fractional_max_pool3d = op("fractional_max_pool3d", grad_fn="FractionalMaxPool3DBackward0",
                           **_FRACTIONAL)(_fractional_max_pool)


# ---------------------------------------------------------------- channel shuffle

@op("channel_shuffle", grad_fn="ChannelShuffleBackward0", saves="none")
def channel_shuffle(x, *, groups):
    """Channels ``(groups, C / groups)`` transposed to ``(C / groups, groups)``."""
    n, c = x.shape[:2]
    rest = x.shape[2:]
    y = x.reshape((n, groups, c // groups) + rest)
    return jnp.swapaxes(y, 1, 2).reshape(x.shape)
