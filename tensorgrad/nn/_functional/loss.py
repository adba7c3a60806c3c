"""Regression, classification and likelihood losses.

Losses that PyTorch runs as one kernel (mse, smooth_l1, huber, nll, binary cross entropy) are
single ops; the others (cross entropy, kl_div, the Poisson and Gaussian likelihoods) are
composed the way PyTorch composes them, so their ``grad_fn`` chains match
(``cross_entropy`` is ``NllLossBackward0`` over ``LogSoftmaxBackward0``). The margin, ranking
and hinge losses are in ``margin_loss.py``.
"""

import math
import warnings

import numpy as np
import jax.numpy as jnp

from ... import _dtype
from ..._autocast import float32_function
from ..._autograd.grad_mode import no_grad
from ..._ops import elementwise as E
from ..._ops import nn_ctc as NL_CTC
from ..._ops import nn_loss as NL
from ..._tensor import Tensor, apply, _wrap
from ._util import (
    broadcast_pair, broadcast_shape, is_tracer, no_grad_argument, not_implemented, or_absent, reduce_loss,
    reduction_of, size_str,
)
from .activation import log_softmax
from ..._api import subscript as SUB
from ..._api import special as SPC
from ..._api import shape as S
from ..._api import reduction as RED
from ..._api import operands as OPD
from ..._api import elementwise as EL
from ..._api import creation as C
from ..._api import ranges as RG
from ..._api import conversion as CNV
from ..._api import comparison as CMP
from ..._api import binary as BIN
from ..._api import cumulative as CUM
from ..._api import indexing as IDX


# ---------------------------------------------------------------- helpers

def _warn_size(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({size_str(target.shape)}) that is different to the input size "
            f"({size_str(input.shape)}). This will likely lead to incorrect results due to broadcasting. Please "
            "ensure they have the same size.", UserWarning, stacklevel=3)


def _weighted(loss, weight, input, reduction, mean_by_weight=True):
    """The Python-level weighted reductions of mse/l1/huber (``weight`` is input-shaped)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return RED.sum(loss)
    return RED.sum(loss) / RED.sum(weight) if mean_by_weight else RED.mean(loss)


def _pointwise(op, kernel, input, target, reduction, *cfg):
    d = OPD.result_type(input, target)
    if d.kind != _dtype.FLOAT:
        raise not_implemented(kernel, d)
    input, target = broadcast_pair(input, target)
    return apply(op, (input, target), (reduction,) + cfg + (d.np,))


# ---------------------------------------------------------------- regression losses

@float32_function
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (``MseLossBackward0``); ``weight`` multiplies each squared error."""
    _warn_size(input, target)
    reduction = reduction_of(size_average, reduce, reduction)
    if weight is not None:
        x, t = broadcast_pair(input, target)
        return _weighted(EL.pow(x - t, 2), weight, input, reduction)
    return _pointwise(NL.mse_loss, "mse_cpu", input, target, reduction)


@float32_function
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error, composed as PyTorch does: ``(input - target).abs()`` then reduced."""
    _warn_size(input, target)
    reduction = reduction_of(size_average, reduce, reduction)
    x, t = broadcast_pair(input, target)
    diff = EL.abs(x - t)
    if weight is not None:
        return _weighted(diff, weight, input, reduction)
    return reduce_loss(diff, reduction)


@float32_function
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic below ``beta``, linear above (``beta=0`` is the L1 loss)."""
    _warn_size(input, target)
    reduction = reduction_of(size_average, reduce, reduction)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _pointwise(NL.smooth_l1_loss, "smooth_l1_cpu", input, target, reduction, float(beta))


@float32_function
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
        target = CNV.to(target, _dtype.int64)
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


@float32_function
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


@float32_function
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
    ignored = CMP.eq(target, ignore_index)
    if weight is not None:
        smooth = EL.neg(RED.sum(logp * _class_shape(input, weight), axis))
    else:
        smooth = EL.neg(RED.sum(logp, axis))
    smooth = SUB.masked_fill(smooth, ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            # the summed weights of the counted targets (a constant, as in PyTorch's formula)
            safe = jnp.where(ignored._data, 0, target._data)
            denom = _wrap(jnp.sum(jnp.where(ignored._data, 0, weight._data[safe])))
        else:
            denom = RED.sum(CMP.logical_not(ignored))
        smooth = RED.sum(smooth) / denom
    elif reduction == "sum":
        smooth = RED.sum(smooth)
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
        return apply(E.div_scalar, (EL.neg(RED.sum(prod)),), (float(n),))
    if reduction == "sum":
        return EL.neg(RED.sum(prod))
    return EL.neg(RED.sum(prod, axis))


@float32_function
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
    no_grad_argument("binary_cross_entropy", "weight", weight)
    if weight is not None:
        try:
            shape = broadcast_shape(target.shape, weight.shape)
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


@float32_function
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
    no_grad_argument("binary_cross_entropy_with_logits", "weight", weight)
    no_grad_argument("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    shape = tuple(input.shape)
    if weight is not None:
        weight = S.expand(weight, broadcast_shape(shape, weight.shape)) if tuple(weight.shape) != shape else weight
    if pos_weight is not None:
        broadcast_shape(pos_weight.shape, shape)
    d = input.dtype
    return apply(NL.binary_cross_entropy_with_logits, (input, target, or_absent(weight, d), or_absent(pos_weight, d)),
                 (reduction,))


@float32_function
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
        loss = EL.exp(target) * (target - input)
    else:
        loss = SPC.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = RED.sum(loss)
        return total / input.shape[0] if input.ndim else total
    return reduce_loss(loss, reduction)


# ---------------------------------------------------------------- likelihood losses

@float32_function
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Negative log likelihood of ``target`` under a Poisson distribution of rate ``input``
    (``exp(input)`` when ``log_input``); ``full`` adds Stirling's approximation of
    ``log(target!)`` for targets above 1."""
    reduction = reduction_of(size_average, reduce, reduction)
    if log_input:
        loss = EL.exp(input) - target * input
    else:
        loss = input - target * EL.log(input + eps)
    if full:
        stirling = target * EL.log(target) - target + 0.5 * EL.log(2 * math.pi * target)
        loss = loss + SUB.masked_fill(stirling, target <= 1, 0)
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log likelihood of ``target`` under a Gaussian of mean ``input`` and variance
    ``var`` (clamped below at ``eps`` without a gradient through the clamp)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * C.ones_like(input)
    elif bool(RED.any(var < 0)):
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
    var = CNV.clone(var)
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (EL.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


# ---------------------------------------------------------------- connectionist temporal classification

def _lengths(lengths, name, batch):
    """``input_lengths``/``target_lengths`` (a tensor or a sequence of ints) as an int64 tensor."""
    if not isinstance(lengths, Tensor):
        lengths = C.tensor([int(v) for v in lengths], dtype=_dtype.int64)
    elif lengths.dtype.kind == _dtype.FLOAT or lengths.dtype is _dtype.bool_:
        raise RuntimeError(f"{name} must be integral")
    lengths = S.reshape(lengths, (-1,))
    if lengths.shape[0] != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return CNV.to(lengths, _dtype.int64)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The connectionist temporal classification loss of ``log_probs`` ``(T, N, C)`` (or ``(T, C)``).

    ``targets`` is ``(N, S)`` padded or 1-D, the targets concatenated; the gradient is
    PyTorch's (``exp(log_probs) - posterior``, see ``_ops/nn_ctc.py``).
    """
    reduction = reduction_of(None, None, reduction)
    if log_probs.dtype.kind != _dtype.FLOAT:
        raise not_implemented("ctc_loss_cpu", log_probs.dtype)
    batched = log_probs.ndim == 3
    if not batched:
        log_probs = S.unsqueeze(log_probs, 1)
        targets = S.unsqueeze(targets, 0)
    steps, batch, classes = log_probs.shape
    input_lengths = _lengths(input_lengths, "input_lengths", batch)
    target_lengths = _lengths(target_lengths, "target_lengths", batch)
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    targets = CNV.to(targets, _dtype.int64)
    host = not (is_tracer(input_lengths) or is_tracer(target_lengths) or is_tracer(targets))
    if host:
        ins = np.asarray(input_lengths._data)
        outs = np.asarray(target_lengths._data)
        for name, values, high in (("input_lengths", ins, steps), ("target_lengths", outs, None)):
            if values.size and values.min() < 0:
                raise RuntimeError(f"Expected {name} to have value at least 0, but got value {values.min()} (while "
                                   "checking arguments for ctc_loss_allocate_outputs)")
            if high is not None and values.size and values.max() > high:
                raise RuntimeError(f"Expected {name} to have value at most {high}, but got value {values.max()} "
                                   "(while checking arguments for ctc_loss_allocate_outputs)")
        longest = int(outs.max()) if outs.size else 0
        if targets.ndim == 1 and targets.shape[0] != int(outs.sum()):
            raise RuntimeError(f"Expected tensor to have size {int(outs.sum())} at dimension 0, but got size "
                               f"{targets.shape[0]} for argument #2 'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")
        if targets.ndim == 2 and targets.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                               f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")
    if targets.ndim == 1:
        # concatenated targets: padded rows gathered from each target's start
        width = longest if host else targets.shape[0]
        starts = CUM.cumsum(target_lengths, 0) - target_lengths
        positions = S.unsqueeze(starts, 1) + RG.arange(width)
        positions = BIN.clamp_max(BIN.clamp_min(positions, 0), max(targets.shape[0] - 1, 0))
        targets = IDX.index_select(targets, 0, S.reshape(positions, (-1,))) if targets.shape[0] else (
            C.zeros(batch, width, dtype=_dtype.int64))
        targets = S.reshape(targets, (batch, width))
    loss = apply(NL_CTC.ctc_loss, (log_probs, targets, input_lengths, target_lengths), (int(blank), bool(zero_infinity)))
    if zero_infinity:
        loss = EL.where(CMP.eq(loss, math.inf), C.zeros((), dtype=loss.dtype), loss)
    if reduction == "mean":
        divisor = BIN.clamp_min(CNV.to(target_lengths, log_probs.dtype), 1)
        loss = RED.mean(loss / divisor)
    elif reduction == "sum":
        loss = RED.sum(loss)
    elif not batched:
        loss = S.squeeze(loss, 0)
    return loss
