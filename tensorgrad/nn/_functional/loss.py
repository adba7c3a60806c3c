"""Losses and distances.

Losses that PyTorch runs as one kernel (mse, smooth_l1, huber, nll, binary cross entropy) are
single ops; the others are composed the way PyTorch composes them, so their ``grad_fn``
chains match (``cross_entropy`` is ``NllLossBackward0`` over ``LogSoftmaxBackward0``).
"""

import warnings

import numpy as np
import jax.numpy as jnp

from ... import _dtype
from ..._autograd.grad_mode import is_grad_enabled, no_grad
from ..._api import extra_math as X
from ..._api import math as M
from ..._api import shape as S
from ..._ops import elementwise as E
from ..._ops import nn_loss as NL
from ..._ops import reduction as R
from ..._tensor import apply, _wrap
from ._util import is_tracer, not_implemented, or_absent, reduction_of, size_str
from .activation import log_softmax


# ---------------------------------------------------------------- helpers

def _broadcast_shape(a, b):
    """numpy broadcasting with PyTorch's message."""
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    out = []
    for i in range(n):
        x = a[i - n + len(a)] if i >= n - len(a) else 1
        y = b[i - n + len(b)] if i >= n - len(b) else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


def _broadcast_pair(input, target):
    shape = _broadcast_shape(input.shape, target.shape)
    if tuple(input.shape) != shape:
        input = S.expand(input, shape)
    if tuple(target.shape) != shape:
        target = S.expand(target, shape)
    return input, target


def _warn_size(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({size_str(target.shape)}) that is different to the input size "
            f"({size_str(input.shape)}). This will likely lead to incorrect results due to broadcasting. Please "
            "ensure they have the same size.", UserWarning, stacklevel=3)


def _no_grad_argument(name, arg, t):
    if t is not None and t.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{name}' is not differentiable with respect to argument '{arg}'. This input cannot have "
            "requires_grad True.")


def _reduce(loss, reduction):
    if reduction == "mean":
        return M.mean(loss)
    if reduction == "sum":
        return M.sum(loss)
    return loss


def _weighted(loss, weight, input, reduction, mean_by_weight=True):
    """The Python-level weighted reductions of mse/l1/huber (``weight`` is input-shaped)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return M.sum(loss)
    return M.sum(loss) / M.sum(weight) if mean_by_weight else M.mean(loss)


def _pointwise(op, kernel, input, target, reduction, *cfg):
    d = M.result_type(input, target)
    if d.kind != _dtype.FLOAT:
        raise not_implemented(kernel, d)
    input, target = _broadcast_pair(input, target)
    return apply(op, (input, target), (reduction,) + cfg + (d.np,))


# ---------------------------------------------------------------- regression losses

def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (``MseLossBackward0``); ``weight`` multiplies each squared error."""
    _warn_size(input, target)
    reduction = reduction_of(size_average, reduce, reduction)
    if weight is not None:
        x, t = _broadcast_pair(input, target)
        return _weighted(M.pow(x - t, 2), weight, input, reduction)
    return _pointwise(NL.mse_loss, "mse_cpu", input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error, composed as PyTorch does: ``(input - target).abs()`` then reduced."""
    _warn_size(input, target)
    reduction = reduction_of(size_average, reduce, reduction)
    x, t = _broadcast_pair(input, target)
    diff = M.abs(x - t)
    if weight is not None:
        return _weighted(diff, weight, input, reduction)
    return _reduce(diff, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic below ``beta``, linear above (``beta=0`` is the L1 loss)."""
    _warn_size(input, target)
    reduction = reduction_of(size_average, reduce, reduction)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _pointwise(NL.smooth_l1_loss, "smooth_l1_cpu", input, target, reduction, float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Quadratic below ``delta``, then ``delta``-sloped linear."""
    _warn_size(input, target)
    reduction = reduction_of(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        loss = _pointwise(NL.huber_loss, "huber_cpu", input, target, "none", float(delta))
        return _weighted(loss, weight, input, reduction, mean_by_weight=False)
    return _pointwise(NL.huber_loss, "huber_cpu", input, target, reduction, float(delta))


# ---------------------------------------------------------------- classification losses

def _check_target_dtype(target):
    if target.dtype not in (_dtype.int64, _dtype.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.c_name}")


def _check_targets(target, classes, ignore_index):
    """PyTorch's IndexError for a (non-ignored) class index outside ``[0, classes)``."""
    if target.numel() == 0 or is_tracer(target):
        return
    arr = np.asarray(target._data).reshape(-1)
    bad = arr[(arr != ignore_index) & ((arr < 0) | (arr >= classes))]
    if bad.size:
        raise IndexError(f"Target {int(bad[0])} is out of bounds.")


def _check_weight(weight, classes, prefix=""):
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(
            f"{prefix}weight tensor should be defined either for all {classes} classes or no classes but got weight "
            f"tensor of shape: {list(weight.shape)}")


def _nll_nd(input, target, weight, reduction, ignore_index):
    """``nll_loss`` for any rank: (C,), (N, C), (N, C, H, W), or flattened to 4-D otherwise."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and target.ndim != 0 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    classes = input.shape[0] if input.ndim == 1 else input.shape[1]
    # PyTorch checks shapes, then the weight, then the dtypes
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim == 4:
        if target.ndim != 3:
            raise RuntimeError(
                f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {target.ndim}")
        if tuple(target.shape) != (input.shape[0],) + tuple(input.shape[2:]):
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
    if input.ndim > 2 and input.ndim != 4 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, got "
                           f"{list(target.shape)}")
    _check_weight(weight, classes)
    _check_target_dtype(target)
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("nll_loss_out_frame", input.dtype)
    if target.dtype is not _dtype.int64:
        target = S.to(target, _dtype.int64)
    _check_targets(target, classes, ignore_index)
    cfg = (reduction, int(ignore_index))
    w = or_absent(weight, input.dtype)
    if input.ndim <= 2:
        if input.ndim == 1 and target.numel() == 1 and target.ndim == 1:
            target = S.reshape(target, ())
        return apply(NL.nll_loss, (input, target, w), cfg)
    if input.ndim == 4:
        return apply(NL.nll_loss2d, (input, target, w), cfg)
    n = input.shape[0]
    x = S.view(input, (n, classes, 1, -1))
    t = S.view(target, (n, 1, -1))
    out = apply(NL.nll_loss2d, (x, t, w), cfg)
    if reduction == "none":
        out = S.view(out, (n,) + tuple(input.shape[2:]))
    return out


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of class indices under log-probabilities ``input`` (classes on
    axis 1); ``ignore_index`` targets contribute nothing, and ``mean`` divides by the summed
    weights of the counted targets."""
    reduction = reduction_of(size_average, reduce, reduction)
    return _nll_nd(input, target, weight, reduction, ignore_index)


def _class_shape(input, weight):
    """``weight`` viewed to broadcast along the class axis."""
    shape = [1] * input.ndim
    shape[1 if input.ndim > 1 else 0] = weight.shape[0]
    return S.view(weight, tuple(shape))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy of logits ``input`` (classes on axis 1) against class indices or class
    probabilities, with PyTorch's ``weight``, ``ignore_index`` and ``label_smoothing``.

    >>> import tensorgrad as torch
    >>> loss = torch.nn.functional.cross_entropy(torch.zeros(2, 4, requires_grad=True), torch.tensor([0, 3]))
    >>> loss.grad_fn
    <NllLossBackward0 object at 0x...>
    """
    reduction = reduction_of(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    axis = 0 if input.ndim == 1 else 1
    if tuple(input.shape) == tuple(target.shape):
        return _cross_entropy_probs(input, target, weight, ignore_index, reduction, label_smoothing, axis)
    if input.ndim == 0:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    logp = log_softmax(input, axis)
    if label_smoothing <= 0.0:
        return _nll_nd(logp, target, weight, reduction, ignore_index)
    classes = input.shape[axis]
    nll = _nll_nd(logp, target, weight, reduction, ignore_index)
    ignored = M.eq(target, ignore_index)
    if weight is not None:
        smooth = M.neg(M.sum(logp * _class_shape(input, weight), axis))
    else:
        smooth = M.neg(M.sum(logp, axis))
    smooth = S.masked_fill(smooth, ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            # the summed weights of the counted targets (a constant, as in PyTorch's formula)
            safe = jnp.where(ignored._data, 0, target._data)
            denom = _wrap(jnp.sum(jnp.where(ignored._data, 0, weight._data[safe])))
        else:
            denom = M.sum(M.logical_not(ignored))
        smooth = M.sum(smooth) / denom
    elif reduction == "sum":
        smooth = M.sum(smooth)
    first = apply(E.mul_scalar, (nll,), (1.0 - label_smoothing,))
    return first + apply(E.mul_scalar, (smooth,), (label_smoothing / classes,))


def _cross_entropy_probs(input, target, weight, ignore_index, reduction, label_smoothing, axis):
    if target.dtype.kind != _dtype.FLOAT:
        raise RuntimeError(
            f"Expected floating point type for target with class probabilities, got {target.dtype.c_name}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    classes = input.shape[axis]
    _check_weight(weight, classes, "cross_entropy: ")
    logp = log_softmax(input, axis)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    prod = logp * target
    if weight is not None:
        prod = prod * _class_shape(input, weight)
    if reduction == "mean":
        n = input.numel() // classes if classes else 0
        return apply(E.div_scalar, (M.neg(M.sum(prod)),), (float(n),))
    if reduction == "sum":
        return M.neg(M.sum(prod))
    return M.neg(M.sum(prod, axis))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """``-w (t log x + (1 - t) log(1 - x))`` for probabilities ``x`` (logs clamped at -100)."""
    reduction = reduction_of(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({size_str(target.shape)}) that is different to the input size "
            f"({size_str(input.shape)}) is deprecated. Please ensure they have the same size.")
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("binary_cross_entropy", input.dtype)
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype.c_name} but expected {input.dtype.c_name}")
    _no_grad_argument("binary_cross_entropy", "weight", weight)
    if weight is not None:
        try:
            shape = _broadcast_shape(target.shape, weight.shape)
        except RuntimeError:
            shape = None
        if shape != tuple(target.shape):
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {weight.shape[-1]} at -1! Mismatching argument at "
                f"index 1 had {size_str(weight.shape)}; but expected shape should be broadcastable to "
                f"{list(target.shape)}")
        weight = S.expand(weight, tuple(target.shape))
    if input.numel() and not is_tracer(input):
        arr = np.asarray(input._data)
        if not ((arr >= 0) & (arr <= 1)).all():
            raise RuntimeError("all elements of input should be between 0 and 1")
    return apply(NL.binary_cross_entropy, (input, target, or_absent(weight, input.dtype)), (reduction,))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross entropy of ``sigmoid(input)``, computed stably from the logits;
    ``pos_weight`` scales the positive term per class."""
    reduction = reduction_of(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({size_str(target.shape)}) must be the same as input size ({size_str(input.shape)})")
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("log_sigmoid_cpu", input.dtype)
    if target.dtype.kind != _dtype.FLOAT:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {target.dtype.c_name}")
    _no_grad_argument("binary_cross_entropy_with_logits", "weight", weight)
    _no_grad_argument("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    shape = tuple(input.shape)
    if weight is not None:
        weight = S.expand(weight, _broadcast_shape(shape, weight.shape)) if tuple(weight.shape) != shape else weight
    if pos_weight is not None:
        _broadcast_shape(pos_weight.shape, shape)
    d = input.dtype
    return apply(NL.binary_cross_entropy_with_logits, (input, target, or_absent(weight, d), or_absent(pos_weight, d)),
                 (reduction,))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """``target * (log(target) - input)`` (input holds log-probabilities), reduced;
    ``batchmean`` divides the sum by the batch size."""
    if size_average is not None or reduce is not None:
        reduction = reduction_of(size_average, reduce, reduction)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
                "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed "
                "to behave the same as 'batchmean' in the next major release.", UserWarning, stacklevel=2)
        if reduction != "batchmean":
            reduction_of(None, None, reduction)
    if input.dtype.kind != _dtype.FLOAT or target.dtype.kind != _dtype.FLOAT:
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = M.exp(target) * (target - input)
    else:
        loss = X.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = M.sum(loss)
        return total / input.shape[0] if input.ndim else total
    return _reduce(loss, reduction)


# ---------------------------------------------------------------- embedding losses and distances

def _scalar_op(op, x, value):
    """``x`` with a Python number, recorded as PyTorch's Tensor-Scalar overload (``AddBackward1``);
    an integer tensor promotes to the default float dtype first."""
    if x.dtype.kind != _dtype.FLOAT:
        x = S.to(x, _dtype.get_default_dtype())
    return apply(op, (x,), (float(value),))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``1 - cos`` for target 1, ``max(0, cos - margin)`` for target -1."""
    reduction = reduction_of(size_average, reduce, reduction)
    if target.ndim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.ndim == 1 and not (input1.ndim == 2 and input2.ndim == 2):
        raise RuntimeError(
            f"1D target tensor expects 2D input tensors, but found inputs with sizes {list(input1.shape)} and "
            f"{list(input2.shape)}.")
    if target.ndim == 0 and not (input1.ndim == 1 and input2.ndim == 1):
        raise RuntimeError(
            f"0D target tensor expects 1D input tensors, but found inputs with sizes {list(input1.shape)} and "
            f"{list(input2.shape)}.")
    _broadcast_shape(input1.shape, input2.shape)
    dim = target.ndim
    eps = 1e-12
    prod = M.sum(input1 * input2, dim)
    mag1 = _scalar_op(E.add_scalar, M.sum(input1 * input1, dim), eps)
    mag2 = _scalar_op(E.add_scalar, M.sum(input2 * input2, dim), eps)
    cos = prod / M.sqrt(mag1 * mag2)
    zeros = _wrap(jnp.zeros(cos._data.shape, cos._data.dtype))
    pos = _wrap(jnp.ones(cos._data.shape, cos._data.dtype)) - cos
    neg = X.clamp_min(_scalar_op(E.sub_scalar, cos, margin), 0.0)
    out = M.where(M.eq(target, 1), pos, zeros) + M.where(M.eq(target, -1), neg, zeros)
    return _reduce(out, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    reduction = reduction_of(size_average, reduce, reduction)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{size_str(input1.shape)}, input2: {size_str(input2.shape)}, target: {size_str(target.shape)} ")
    _broadcast_shape(_broadcast_shape(input1.shape, input2.shape), target.shape)
    out = _scalar_op(E.add_scalar, M.neg(target) * (input1 - input2), margin)
    return _reduce(X.clamp_min(out, 0.0), reduction)


def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    """``norm(x1 - x2 + eps, p)`` over the last axis (``NormBackward1``)."""
    nd = max(x1.ndim, x2.ndim)
    d = x1 - x2
    shifted = _scalar_op(E.add_scalar, d, eps)
    dims = (nd - 1,) if nd else ()
    return apply(R.norm_dim, (shifted,), (float(p), dims, bool(keepdim)))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``pairwise_distance``."""
    reduction = reduction_of(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = M.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    out = _scalar_op(E.add_scalar, dist_pos, margin) - dist_neg
    return _reduce(X.clamp_min(out, 0.0), reduction)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``x1 . x2 / (max(|x1|, eps) max(|x2|, eps))`` along ``dim``.

    As PyTorch, the norms are clamped outside autograd, so the gradient treats them as exact.
    """
    d = M.result_type(x1, x2)
    if d.kind != _dtype.FLOAT:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {d.c_name}")
    if x1.dtype is not d:
        x1 = S.to(x1, d)
    if x2.dtype is not d:
        x2 = S.to(x2, d)
    x1, x2 = _broadcast_pair(x1, x2)
    n1 = S.clone(M.norm(x1, 2, dim, keepdim=True))
    n2 = S.clone(M.norm(x2, 2, dim, keepdim=True))
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return M.sum((x1 / n1) * (x2 / n2), dim)
