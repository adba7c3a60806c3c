"""Neural-network linear maps, attention and embeddings (the ops behind
``nn/_functional/linear.py``)."""

import jax
import jax.numpy as jnp
from jax import lax

from .registry import op


# ---------------------------------------------------------------- linear maps

@op("trilinear", grad_fn="TrilinearBackward0")
def trilinear(x1, weight, x2):
    """The bilinear form ``out[n, o] = sum_ij x1[n, i] weight[o, i, j] x2[n, j]``."""
    return jnp.einsum("ni,oij,nj->no", x1, weight, x2)


# ---------------------------------------------------------------- attention

@op("safe_softmax", grad_fn="SafeSoftmaxBackward0", saves="output")
def safe_softmax(x, *, dim):
    """Softmax whose rows of all ``-inf`` give zeros instead of NaN (attention masks)."""
    return jnp.moveaxis(_masked_softmax_rows(jnp.moveaxis(x, dim, -1)), -1, dim)


def _masked_softmax_rows(scores):
    dead = jnp.all(scores == -jnp.inf, axis=-1, keepdims=True)
    out = jax.nn.softmax(jnp.where(dead, 0.0, scores), axis=-1)
    return jnp.where(dead, 0.0, out)


@op("sdpa_flash", grad_fn="ScaledDotProductFlashAttentionForCpuBackward0", no_slot=(3,),
    saves={"q": "any", "k": "any", "v": "any", "mask": "any", "out": "any"}, grad_reads=("q", "k", "v"))
def sdpa_flash(q, k, v, mask, *, scale, causal, groups):
    """Attention as one kernel, as PyTorch's CPU flash path (4-D inputs).

    ``mask`` is an additive float mask (shape (0,) for none); ``groups`` repeats the key and
    value heads for grouped-query attention. Rows with nothing to attend to give zeros.
    """
    if groups > 1:
        k = jnp.repeat(k, groups, axis=-3)
        v = jnp.repeat(v, groups, axis=-3)
    scores = jnp.einsum("...qd,...kd->...qk", q, k) * jnp.asarray(scale, q.dtype)
    if causal:
        keep = jnp.tril(jnp.ones(scores.shape[-2:], bool))
        scores = jnp.where(keep, scores, -jnp.inf)
    if mask.shape != (0,):
        scores = scores + mask
    return jnp.einsum("...qk,...kd->...qd", _masked_softmax_rows(scores), v)


# ---------------------------------------------------------------- embedding and one-hot

@op("embedding", no_slot=(1,), saves={"indices": "any"})
def embedding(weight, indices, *, padding_idx, scale_grad_by_freq):
    rows = jnp.take(weight, indices, axis=0)
    if scale_grad_by_freq:
        # the gradient of each row is divided by how often its index occurs in the batch;
        # the forward value stays exact (rows + 0)
        flat = indices.reshape(-1)
        counts = jnp.zeros(weight.shape[0], weight.dtype).at[flat].add(1.0)
        scale = (1.0 / counts[indices])[..., None]
        rows = lax.stop_gradient(rows) + (rows - lax.stop_gradient(rows)) * scale
    if padding_idx is not None:
        # the padding row gets no gradient, as in PyTorch
        rows = jnp.where((indices == padding_idx)[..., None], lax.stop_gradient(rows), rows)
    return rows


@op("one_hot", differentiable=False)
def one_hot(x, *, num_classes):
    return (x[..., None] == jnp.arange(num_classes, dtype=x.dtype)).astype(jnp.int64)


@op("embedding_renorm", differentiable=False, no_slot=(1,))
def embedding_renorm(weight, indices, *, max_norm, norm_type):
    """``weight`` with the rows named in ``indices`` scaled down to norm ``max_norm``."""
    norms = jnp.sum(jnp.abs(weight) ** norm_type, axis=1) ** (1.0 / norm_type)
    used = jnp.zeros(weight.shape[0], bool).at[indices.reshape(-1)].set(True)
    scale = jnp.where(used & (norms > max_norm), max_norm / (norms + 1e-7), 1.0)
    return weight * scale[:, None].astype(weight.dtype)


@op("embedding_bag", grad_fn="EmbeddingBagBackward0", no_slot=(1, 2),
    saves={"weight": "any", "indices": "any", "offsets": "any", "per_sample_weights": "any"})
def embedding_bag(weight, indices, offsets, per_sample_weights, *, mode, include_last_offset, padding_idx):
    """The sum, mean or max of the rows of each bag: ``indices[offsets[b]:offsets[b + 1]]``.

    ``per_sample_weights`` of shape (0,) means none; ``padding_idx``'s entries are left out
    (of the mean's count too); an empty bag gives zeros.
    """
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    # with include_last_offset the last bag runs to the end of ``indices``, as in PyTorch's
    # general CPU kernel (its float32 sum path stops at the last offset instead)
    bag = jnp.searchsorted(offsets[:bags], jnp.arange(indices.shape[0], dtype=offsets.dtype), side="right") - 1
    keep = bag >= 0
    if padding_idx is not None:
        keep = keep & (indices != padding_idx)
    bag = jnp.clip(bag, 0, max(bags - 1, 0))
    rows = jnp.take(weight, indices, axis=0)
    if per_sample_weights.shape[0]:
        rows = rows * per_sample_weights[:, None].astype(rows.dtype)
    if mode == "max":
        filled = jnp.where(keep[:, None], rows, -jnp.inf)
        out = jax.ops.segment_max(filled, bag, num_segments=bags)
        return jnp.where(jnp.isneginf(out), jnp.zeros((), out.dtype), out)
    out = jax.ops.segment_sum(jnp.where(keep[:, None], rows, jnp.zeros((), rows.dtype)), bag, num_segments=bags)
    if mode == "mean":
        count = jax.ops.segment_sum(keep.astype(rows.dtype), bag, num_segments=bags)
        out = out / jnp.maximum(count, 1)[:, None]
    return out
