"""Shape ops that copy: concatenation, stacking, reshapes, flips, repeats and the copying
rearrangements (roll, rot90, tril/triu, diag, diag_embed, block_diag)."""

import jax.numpy as jnp
from jax import lax

from .registry import op


@op("cat", saves="none")
def cat(*xs, dim, dtype):
    return jnp.concatenate([x.astype(dtype) for x in xs], axis=dim)


@op("stack", saves="none")
def stack(*xs, dim, dtype):
    return jnp.stack([x.astype(dtype) for x in xs], axis=dim)


@op("reshape_copy", grad_fn="UnsafeViewBackward0", saves="none")
def reshape_copy(x, *, shape):
    return jnp.reshape(x, shape)


# PyTorch's in-place view ops (``unsqueeze_``, ``transpose_``) on an intermediate no one else
# holds: a new array here, with the node name of PyTorch's in-place overload
@op("unsqueeze_copy", grad_fn="UnsqueezeBackward1", saves="none")
def unsqueeze_copy(x, *, dim):
    return jnp.expand_dims(x, dim)


@op("transpose_copy", grad_fn="TransposeBackward1", saves="none")
def transpose_copy(x, *, dim0, dim1):
    return jnp.swapaxes(x, dim0, dim1)


@op("squeeze_copy", grad_fn="SqueezeBackward4", saves="none")
def squeeze_copy(x, *, dim):
    return jnp.squeeze(x, dim)


@op("flip", saves="none")
def flip(x, *, dims):
    return jnp.flip(x, dims)


@op("repeat", saves="none")
def repeat(x, *, repeats):
    extra = len(repeats) - x.ndim
    return jnp.tile(x.reshape((1,) * extra + x.shape), repeats)


# ---------------------------------------------------------------- rearrangements

@op("roll", saves="none")
def roll(x, *, shifts, dims):
    if dims is None:
        return jnp.roll(x.reshape(-1), shifts).reshape(x.shape)
    return jnp.roll(x, shifts, dims)


@op("rot90", grad_fn="Rot90Backward0", saves="none")
def rot90(x, *, k, dims):
    return jnp.rot90(x, k, dims)


@op("tril", saves="none")
def tril(x, *, diagonal):
    return jnp.tril(x, diagonal)


@op("triu", saves="none")
def triu(x, *, diagonal):
    return jnp.triu(x, diagonal)


@op("diag_embed", grad_fn="DiagEmbedBackward0", saves="none")
def diag_embed(x, *, offset, dim1, dim2):
    """``x``'s last dim written on diagonal ``offset`` of a new matrix at dims (dim1, dim2)."""
    m = x.shape[-1]
    n = m + abs(offset)
    idx = jnp.arange(m)
    rows = idx + max(-offset, 0)
    cols = idx + max(offset, 0)
    out = jnp.zeros(x.shape[:-1] + (n, n), x.dtype).at[..., rows, cols].set(x)
    return jnp.moveaxis(out, (-2, -1), (dim1, dim2))


@op("diag", grad_fn="DiagonalBackward0_copy", saves="none")
def diag(x, *, offset):
    return jnp.diagonal(x, offset)


@op("block_diag", grad_fn="BlockDiagBackward0", saves="none")
def block_diag(*xs, dtype):
    xs = [x.reshape(1, -1) if x.ndim < 2 else x for x in xs]
    rows = sum(x.shape[0] for x in xs)
    cols = sum(x.shape[1] for x in xs)
    out = jnp.zeros((rows, cols), dtype)
    r = c = 0
    for x in xs:
        out = lax.dynamic_update_slice(out, x.astype(dtype), (r, c))
        r += x.shape[0]
        c += x.shape[1]
    return out
