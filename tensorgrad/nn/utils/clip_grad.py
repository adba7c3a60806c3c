"""Gradient clipping: rescale gradients in place by their total norm, or clamp them."""

import math

from ..._autograd.grad_mode import no_grad
from ..._api.creation import tensor as _tensor
from ..._api.joining import stack
from ..._ops import reduction as R
from ..._tensor import Tensor, apply


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _norm(t, norm_type):
    if math.isinf(norm_type):
        return t.abs().amax() if norm_type > 0 else t.abs().amin()
    return t.norm(norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of all ``tensors`` together (as if concatenated)."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _tensor(0.0)
    with no_grad():
        if _fuses(tensors, norm_type):
            total = apply(R.total_norm, tuple(tensors), (norm_type, None))
        else:
            total = _norm(stack([_norm(t, norm_type) for t in tensors]), norm_type)
    _check_finite(total, norm_type, error_if_nonfinite)
    return total


def _fuses(tensors, norm_type):
    """Whether the total norm is one program (``R.total_norm``): a finite order, floating or
    complex tensors (the others raise PyTorch's error op by op)."""
    return not math.isinf(norm_type) and all(t.dtype.is_floating_point or t.dtype.is_complex for t in tensors)


def _check_finite(total, norm_type, error_if_nonfinite):
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`")


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by ``max_norm / (total_norm + 1e-6)`` when that is below 1."""
    grads = _grads(parameters)
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Rescale the gradients of ``parameters`` in place so their total norm is at most ``max_norm``.

    Returns the total norm before clipping (a tensor).

    >>> import tensorgrad as torch
    >>> w = torch.tensor([3.0, 4.0], requires_grad=True)
    >>> w.grad = torch.tensor([3.0, 4.0])
    >>> torch.nn.utils.clip_grad_norm_([w], 1.0)
    tensor(5.)
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    parameters = list(parameters)
    grads = _grads(parameters)
    norm_type = float(norm_type)
    if not grads or not _fuses(grads, norm_type):
        total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
        clip_grads_with_norm_(parameters, max_norm, total, foreach)
        return total
    with no_grad():     # the norms and the factor in one program, then one multiply per gradient
        total, coef = apply(R.total_norm, tuple(grads), (norm_type, float(max_norm)))
        _check_finite(total, norm_type, error_if_nonfinite)
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp the gradients of ``parameters`` in place to ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
