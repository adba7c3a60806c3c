"""Loss ops that PyTorch runs as single kernels (each with its own backward node).

``reduction`` is ``"none"``, ``"mean"`` or ``"sum"``. Losses that PyTorch composes from
ordinary ops (l1, cross entropy, kl_div, the ranking, embedding and triplet margin losses) are
composed in ``tensorgrad/nn/_functional/loss*.py`` and record PyTorch's chain of nodes.
"""

import jax
import jax.numpy as jnp

from .registry import op


def reduce(loss, reduction):
    if reduction == "mean":
        return jnp.mean(loss)
    if reduction == "sum":
        return jnp.sum(loss)
    return loss


# ``dtype`` is the promoted dtype of input and target (PyTorch computes in it without a node)

@op("mse_loss", grad_fn="MseLossBackward0", saves={"x": "any", "target": "any"})
def mse_loss(x, target, *, reduction, dtype):
    return reduce(jnp.square(x.astype(dtype) - target.astype(dtype)), reduction)


@op("smooth_l1_loss", grad_fn="SmoothL1LossBackward0", saves={"x": "any", "target": "any"})
def smooth_l1_loss(x, target, *, reduction, beta, dtype):
    d = x.astype(dtype) - target.astype(dtype)
    ad = jnp.abs(d)
    return reduce(jnp.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta), reduction)


@op("huber_loss", grad_fn="HuberLossBackward0", saves={"x": "any", "target": "any"})
def huber_loss(x, target, *, reduction, delta, dtype):
    d = x.astype(dtype) - target.astype(dtype)
    ad = jnp.abs(d)
    return reduce(jnp.where(ad < delta, 0.5 * d * d, delta * (ad - 0.5 * delta)), reduction)


def _nll(x, target, weight, reduction, ignore_index):
    """Negative log likelihood with classes on axis 1 (axis 0 for an unbatched input)."""
    axis = 1 if x.ndim > 1 else 0
    keep = target != ignore_index
    safe = jnp.where(keep, target, 0)
    picked = jnp.take_along_axis(x, jnp.expand_dims(safe, axis), axis=axis)
    picked = jnp.squeeze(picked, axis)
    w = jnp.ones((), x.dtype) if weight.shape[0] == 0 else weight[safe].astype(x.dtype)
    w = jnp.where(keep, w, jnp.zeros((), x.dtype))
    loss = -picked * w
    if reduction == "mean":
        # a batch whose targets are all ignored gives 0 / 0 = nan, as in PyTorch, whose
        # gradient is still 0 (no target is counted), not nan
        total = jnp.sum(jnp.broadcast_to(w, loss.shape))
        empty = total == 0
        mean = jnp.sum(loss) / jnp.where(empty, 1.0, total)
        return jnp.where(empty, jnp.nan, mean).astype(x.dtype)
    return reduce(loss, reduction)


@op("nll_loss", grad_fn="NllLossBackward0", no_slot=(1, 2), saves={"x": "any", "target": "any", "weight": "any"},
    grad_reads=("x",))
def nll_loss(x, target, weight, *, reduction, ignore_index):
    """``weight`` of shape (0,) means no class weights."""
    return _nll(x, target, weight, reduction, ignore_index)


@op("nll_loss2d", grad_fn="NllLoss2DBackward0", no_slot=(1, 2), saves={"x": "any", "target": "any", "weight": "any"},
    grad_reads=("x",))
def nll_loss2d(x, target, weight, *, reduction, ignore_index):
    return _nll(x, target, weight, reduction, ignore_index)


@jax.custom_vjp
def _bce(x, target):
    # PyTorch clamps each log at -100, so the loss stays finite at 0 and 1
    return -(target * jnp.maximum(jnp.log(x), -100.0) + (1 - target) * jnp.maximum(jnp.log1p(-x), -100.0))


def _bce_fwd(x, target):
    return _bce(x, target), (x, target)


def _bce_bwd(residuals, g):
    # PyTorch's gradients: (x - t) / max(x (1 - x), 1e-12) for the input, -logit(x) for the target
    x, target = residuals
    dx = g * (x - target) / jnp.maximum((1 - x) * x, 1e-12)
    dt = g * -(jnp.log(x) - jnp.log1p(-x))
    return dx, dt


_bce.defvjp(_bce_fwd, _bce_bwd)


@op("binary_cross_entropy", grad_fn="BinaryCrossEntropyBackward0", no_slot=(2,),
    saves={"x": "any", "target": "any", "weight": "any"})
def binary_cross_entropy(x, target, weight, *, reduction):
    loss = _bce(x, target.astype(x.dtype))
    if weight.shape[0]:
        loss = loss * weight
    return reduce(loss, reduction)


@op("binary_cross_entropy_with_logits", grad_fn="BinaryCrossEntropyWithLogitsBackward0", no_slot=(2, 3),
    saves={"x": "any", "target": "any", "weight": "any", "pos_weight": "any"})
def binary_cross_entropy_with_logits(x, target, weight, pos_weight, *, reduction):
    """Stable in ``x``: ``(1 - t) x - (1 + (pos_weight - 1) t) log(sigmoid(x))``."""
    log_weight = 1.0 if pos_weight.shape[0] == 0 else 1.0 + (pos_weight - 1.0) * target
    loss = (1.0 - target) * x - log_weight * jax.nn.log_sigmoid(x)
    if weight.shape[0]:
        loss = loss * weight
    return reduce(loss, reduction)


# ---------------------------------------------------------------- margin losses

@op("soft_margin_loss", grad_fn="SoftMarginLossBackward0", no_slot=(1,), saves={"x": "any", "target": "any"})
def soft_margin_loss(x, target, *, reduction):
    # computed in the input's dtype (PyTorch writes into an input-typed output)
    t = jnp.broadcast_to(target, x.shape).astype(x.dtype)
    return reduce(jnp.log1p(jnp.exp(-x * t)), reduction).astype(x.dtype)


def _hinge(z):
    # the gradient passes only where z > 0, as PyTorch's kernels
    return jnp.where(z > 0, z, jnp.zeros_like(z))


@op("multilabel_margin_loss", grad_fn="MultilabelMarginLossBackward0", no_slot=(1,),
    saves={"x": "any", "target": "any"}, grad_reads=("x",))
def multilabel_margin_loss(x, target, *, reduction, out_shape):
    """``x`` and ``target`` are (N, C) or (C,); a sample's targets are the entries before its
    first negative one. ``out_shape`` is the unreduced loss's shape."""
    c = x.shape[-1] if x.ndim else 1
    x = x.reshape(-1, c)
    target = target.reshape(-1, c)
    valid = jnp.cumprod(target >= 0, axis=-1).astype(bool)
    safe = jnp.where(valid, target, 0)
    is_target = jnp.any(jax.nn.one_hot(safe, c, dtype=bool) & valid[..., None], axis=-2)
    picked = jnp.take_along_axis(x, safe, axis=-1)
    z = 1 - picked[..., :, None] + x[..., None, :]
    mask = valid[..., :, None] & ~is_target[..., None, :]
    loss = jnp.sum(jnp.where(mask, _hinge(z), jnp.zeros_like(z)), axis=(-2, -1)) / c
    return reduce(loss.reshape(out_shape), reduction)


@op("multi_margin_loss", grad_fn="MultiMarginLossBackward0", no_slot=(1, 2),
    saves={"x": "any", "target": "any", "weight": "any"}, grad_reads=("x",))
def multi_margin_loss(x, target, weight, *, reduction, p, margin, out_shape):
    """``x`` is (N, C) or (C,), ``target`` holds N class indices; ``weight`` of shape (0,) means
    no class weights. ``out_shape`` is the unreduced loss's shape."""
    c = x.shape[-1] if x.ndim else 1
    x = x.reshape(-1, c)
    target = target.reshape(-1)
    picked = jnp.take_along_axis(x, target[:, None], axis=-1)
    z = _hinge(margin - picked + x)
    h = z if p == 1 else z * z
    if weight.shape[0]:
        h = h * weight[target][:, None]
    others = jnp.arange(c)[None, :] != target[:, None]
    loss = jnp.sum(jnp.where(others, h, jnp.zeros_like(h)), axis=-1) / c
    return reduce(loss.reshape(out_shape), reduction)
