"""The remaining losses of ``torch.nn.functional`` and alpha dropout.

``soft_margin_loss``, ``multilabel_margin_loss`` and ``multi_margin_loss`` are single kernels
in PyTorch (one node each); the Poisson, Gaussian, hinge-embedding and multilabel soft-margin
losses and alpha dropout are composed from ordinary ops, here as in PyTorch, so the recorded
``grad_fn`` chains are PyTorch's.
"""

import math

import jax.numpy as jnp
import numpy as np

from ... import _dtype
from ..._api import creation as C
from ..._api import math as M
from ..._api import shape as S
from ..._autograd.grad_mode import no_grad
from ..._ops import nn_loss as NL
from ..._tensor import apply, _wrap
from ._util import is_tracer, not_implemented, or_absent, reduction_of
from .activation import _check_p, keep_mask, logsigmoid, nothing_to_drop
from .loss import _broadcast_shape, _no_grad_argument, _reduce


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Negative log likelihood of ``target`` under a Poisson distribution of rate ``input``
    (``exp(input)`` when ``log_input``); ``full`` adds Stirling's approximation of
    ``log(target!)`` for targets above 1."""
    reduction = reduction_of(size_average, reduce, reduction)
    if log_input:
        loss = M.exp(input) - target * input
    else:
        loss = input - target * M.log(input + eps)
    if full:
        stirling = target * M.log(target) - target + 0.5 * M.log(2 * math.pi * target)
        loss = loss + S.masked_fill(stirling, target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log likelihood of ``target`` under a Gaussian of mean ``input`` and variance
    ``var`` (clamped below at ``eps`` without a gradient through the clamp)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * C.ones_like(input)
    elif bool(M.any(var < 0)):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = S.unsqueeze(var, -1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass  # heteroscedastic: one dimension of size 1
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = S.clone(var)
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (M.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``input`` where ``target`` is 1 and ``max(0, margin - input)`` where it is -1."""
    reduction = reduction_of(size_average, reduce, reduction)
    zeros = C.zeros_like(input)
    margin_clamp = M.clamp_min(C.full_like(input, margin) - input, 0)
    output_margin = M.where(M.ne(target, 1), margin_clamp, zeros)
    output_self = M.where(M.ne(target, -1), input, zeros)
    return _reduce(output_margin + output_self, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of ``sigmoid(input)`` against 0/1 ``target``, averaged over classes."""
    if size_average is not None or reduce is not None:
        reduction = reduction_of(size_average, reduce, reduction)
    loss = M.neg(target * logsigmoid(input) + (1 - target) * logsigmoid(M.neg(input)))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = M.sum(loss, class_dim) / input.shape[class_dim]
    if reduction == "none":
        return loss
    if reduction == "mean":
        return M.mean(loss)
    if reduction == "sum":
        return M.sum(loss)
    raise ValueError(reduction + " is not valid")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))``, in the input's dtype (``SoftMarginLossBackward0``)."""
    reduction = reduction_of(size_average, reduce, reduction)
    if input.dtype is _dtype.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    if input.dtype.kind != _dtype.FLOAT:
        # PyTorch computes into an input-typed output, which cannot hold the float result
        d = M.result_type(input, target)
        name = d.c_name if d.kind == _dtype.FLOAT else "Float"
        raise RuntimeError(f"result type {name} can't be cast to the desired output type {input.dtype.c_name}")
    if _broadcast_shape(input.shape, target.shape) != tuple(input.shape):
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape "
                           f"{list(_broadcast_shape(input.shape, target.shape))}")
    _no_grad_argument("soft_margin_loss", "target", target)
    return apply(NL.soft_margin_loss, (input, target), (reduction,))


def _check_margin_input(input):
    if input.ndim > 2 or (input.ndim == 2 and input.shape[1] == 0) or (input.ndim == 1 and input.shape[0] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")


def _host_values(t):
    return None if is_tracer(t) else np.asarray(t._data)


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
    _no_grad_argument("multi_margin_loss", "weight", weight)
    values = _host_values(target)
    if values is not None and np.any((values < 0) | (values >= c)):
        raise RuntimeError("target out of range")
    out_shape = (n,) if input.ndim == 2 else tuple(target.shape)
    return apply(NL.multi_margin_loss, (input, target, or_absent(weight, input.dtype)),
                 (reduction, int(p), float(margin), out_shape))


# ---------------------------------------------------------------- alpha dropout

_ALPHA = 1.7580993408473766


def _alpha_dropout(input, p, training, inplace, feature):
    """SELU-preserving dropout: dropped entries go to the negative saturation value and an
    affine map keeps the mean and variance (``input * a*mask + b``, as PyTorch composes it)."""
    if nothing_to_drop(input, p, training, feature):
        return input
    d = input._data.dtype
    if p == 1.0:
        zero = _wrap(jnp.zeros((), d))
        return input.mul_(zero) if inplace else M.mul(input, zero)
    keep = keep_mask(input, p, feature).astype(d)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = _wrap((keep - 1) * jnp.asarray(_ALPHA * a, d) + jnp.asarray(_ALPHA * a * p, d))
    noise = _wrap(keep * jnp.asarray(a, d))
    if inplace:
        return input.mul_(noise).add_(b)
    return M.mul(input, noise).add_(b)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: keeps zero mean and unit variance of its input."""
    _check_p(p)
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (one draw per sample and channel)."""
    _check_p(p)
    return _alpha_dropout(input, p, training, inplace, feature=True)


__all__ = ["poisson_nll_loss", "gaussian_nll_loss", "hinge_embedding_loss", "multilabel_soft_margin_loss",
           "soft_margin_loss", "multilabel_margin_loss", "multi_margin_loss", "alpha_dropout",
           "feature_alpha_dropout"]
