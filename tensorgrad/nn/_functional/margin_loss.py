"""Margin, ranking and hinge losses.

``soft_margin_loss``, ``multilabel_margin_loss`` and ``multi_margin_loss`` are single kernels
in PyTorch (one node each); the cosine-embedding, margin-ranking, triplet, hinge-embedding and
multilabel soft-margin losses are composed from ordinary ops, here as in PyTorch, so the
recorded ``grad_fn`` chains are PyTorch's.
"""

import jax.numpy as jnp
import numpy as np

from ... import _dtype
from ..._autocast import float32_function
from ..._ops import elementwise as E
from ..._ops import nn_loss as NL
from ..._tensor import apply, _wrap
from ._util import (
    broadcast_shape, is_tracer, no_grad_argument, not_implemented, or_absent, reduce_loss, reduction_of, scalar_op,
    size_str,
)
from .activation import logsigmoid
from .distance import pairwise_distance
from ..._api import reduction as RED
from ..._api import operands as OPD
from ..._api import elementwise as EL
from ..._api import creation as C
from ..._api import comparison as CMP
from ..._api import binary as BIN


# ---------------------------------------------------------------- embedding and ranking losses

@float32_function
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
    broadcast_shape(input1.shape, input2.shape)
    dim = target.ndim
    eps = 1e-12
    prod = RED.sum(input1 * input2, dim)
    mag1 = scalar_op(E.add_scalar, RED.sum(input1 * input1, dim), eps)
    mag2 = scalar_op(E.add_scalar, RED.sum(input2 * input2, dim), eps)
    cos = prod / EL.sqrt(mag1 * mag2)
    zeros = _wrap(jnp.zeros(cos._data.shape, cos._data.dtype))
    pos = _wrap(jnp.ones(cos._data.shape, cos._data.dtype)) - cos
    neg = BIN.clamp_min(scalar_op(E.sub_scalar, cos, margin), 0.0)
    out = EL.where(CMP.eq(target, 1), pos, zeros) + EL.where(CMP.eq(target, -1), neg, zeros)
    return reduce_loss(out, reduction)


@float32_function
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    reduction = reduction_of(size_average, reduce, reduction)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{size_str(input1.shape)}, input2: {size_str(input2.shape)}, target: {size_str(target.shape)} ")
    broadcast_shape(broadcast_shape(input1.shape, input2.shape), target.shape)
    out = scalar_op(E.add_scalar, EL.neg(target) * (input1 - input2), margin)
    return reduce_loss(BIN.clamp_min(out, 0.0), reduction)


def _check_triplet(margin, anchor, positive, negative):
    """The triplet losses' checks, with PyTorch's messages."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs")


@float32_function
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``pairwise_distance``."""
    reduction = reduction_of(size_average, reduce, reduction)
    _check_triplet(margin, anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = EL.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    out = scalar_op(E.add_scalar, dist_pos, margin) - dist_neg
    return reduce_loss(BIN.clamp_min(out, 0.0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """The triplet margin loss with any ``distance_function`` (default ``pairwise_distance``)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_triplet(margin, anchor, positive, negative)
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = EL.minimum(dist_neg, distance_function(positive, negative))
    loss = BIN.clamp_min(margin + dist_pos - dist_neg, 0)
    return reduce_loss(loss, reduction)


# ---------------------------------------------------------------- hinge and multi-class margin losses

@float32_function
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``input`` where ``target`` is 1 and ``max(0, margin - input)`` where it is -1."""
    reduction = reduction_of(size_average, reduce, reduction)
    zeros = C.zeros_like(input)
    margin_clamp = EL.clamp_min(C.full_like(input, margin) - input, 0)
    output_margin = EL.where(CMP.ne(target, 1), margin_clamp, zeros)
    output_self = EL.where(CMP.ne(target, -1), input, zeros)
    return reduce_loss(output_margin + output_self, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of ``sigmoid(input)`` against 0/1 ``target``, averaged over classes."""
    if size_average is not None or reduce is not None:
        reduction = reduction_of(size_average, reduce, reduction)
    loss = EL.neg(target * logsigmoid(input) + (1 - target) * logsigmoid(EL.neg(input)))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = RED.sum(loss, class_dim) / input.shape[class_dim]
    if reduction == "none":
        return loss
    if reduction == "mean":
        return RED.mean(loss)
    if reduction == "sum":
        return RED.sum(loss)
    raise ValueError(reduction + " is not valid")


@float32_function
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))``, in the input's dtype (``SoftMarginLossBackward0``)."""
    reduction = reduction_of(size_average, reduce, reduction)
    if input.dtype is _dtype.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    if input.dtype.kind != _dtype.FLOAT:
        # PyTorch computes into an input-typed output, which cannot hold the float result
        d = OPD.result_type(input, target)
        name = d.c_name if d.kind == _dtype.FLOAT else "Float"
        raise RuntimeError(f"result type {name} can't be cast to the desired output type {input.dtype.c_name}")
    if broadcast_shape(input.shape, target.shape) != tuple(input.shape):
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape "
                           f"{list(broadcast_shape(input.shape, target.shape))}")
    no_grad_argument("soft_margin_loss", "target", target)
    return apply(NL.soft_margin_loss, (input, target), (reduction,))


def _check_margin_input(input):
    if input.ndim > 2 or (input.ndim == 2 and input.shape[1] == 0) or (input.ndim == 1 and input.shape[0] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")


def _host_values(t):
    return None if is_tracer(t) else np.asarray(t._data)


@float32_function
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Hinge loss between each target class (the entries of ``target`` before its first
    negative one) and each non-target class, averaged over classes."""
    reduction = reduction_of(size_average, reduce, reduction)
    _check_margin_input(input)
    if tuple(target.shape) != tuple(input.shape) and not (input.ndim == 0 and target.numel() == 1):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("multilabel_margin_loss_forward_out_frame", input.dtype)
    if target.dtype is not _dtype.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.c_name}")
    c = 1 if input.ndim == 0 else input.shape[-1]
    values = _host_values(target)
    if values is not None:
        values = values.reshape(-1, c)
        valid = np.cumprod(values >= 0, axis=-1).astype(bool)
        if np.any(valid & (values >= c)):
            raise RuntimeError("argument #2 'target' is out of range")
    out_shape = tuple(input.shape[:1]) if input.ndim == 2 else ()
    return apply(NL.multilabel_margin_loss, (input, target), (reduction, out_shape))


@float32_function
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Hinge loss (``p`` = 1 or 2) of the target class's score against every other class's,
    averaged over classes; ``weight`` scales a sample's loss by its target class's weight."""
    reduction = reduction_of(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _check_margin_input(input)
    n = 1 if input.ndim < 2 else input.shape[0]
    c = 1 if input.ndim == 0 else input.shape[-1]
    if not (target.ndim <= 1 and target.numel() == n):
        raise RuntimeError(
            f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{n}], but got {list(target.shape)}. Input has shape "
            f"{list(input.shape)}.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("multi_margin_loss_cpu_kernel", input.dtype)
    if target.dtype is not _dtype.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.c_name}")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.c_name} but found {weight.dtype.c_name}")
    no_grad_argument("multi_margin_loss", "weight", weight)
    values = _host_values(target)
    if values is not None and np.any((values < 0) | (values >= c)):
        raise RuntimeError("target out of range")
    out_shape = (n,) if input.ndim == 2 else tuple(target.shape)
    return apply(NL.multi_margin_loss, (input, target, or_absent(weight, input.dtype)),
                 (reduction, int(p), float(margin), out_shape))
