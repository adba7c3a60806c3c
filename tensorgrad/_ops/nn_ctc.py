"""The connectionist temporal classification loss (``ctc_loss``), one PyTorch kernel.

The loss is the negative log of the summed probability of every alignment, computed by the
forward (alpha) recursion over time in log space. PyTorch's backward is not the derivative of
that loss in ``log_probs`` alone: it is ``exp(log_probs) - posterior``, the gradient through a
log_softmax that PyTorch assumes produced ``log_probs`` (the two agree after that log_softmax's
backward). The op reproduces it with a custom VJP.
"""

import jax
import jax.numpy as jnp
from jax import lax

from .registry import op


def _logsumexp(*terms):
    # a log-sum-exp whose gradient is 0, not NaN, where every term is -inf
    m = lax.stop_gradient(terms[0])
    for t in terms[1:]:
        m = jnp.maximum(m, lax.stop_gradient(t))
    finite = jnp.isfinite(m)
    m = jnp.where(finite, m, 0)
    total = sum(jnp.exp(t - m) for t in terms)
    return jnp.where(finite, m + jnp.log(jnp.where(finite, total, 1)), -jnp.inf)


def _nll(log_probs, targets, input_lengths, target_lengths, blank):
    """Per-sequence ``-log p(target | input)`` for ``log_probs (T, N, C)`` and padded ``targets (N, S)``."""
    steps, batch = log_probs.shape[:2]
    width = 2 * targets.shape[1] + 1
    s = jnp.arange(width)
    labels = jnp.where(s % 2 == 1, targets[:, jnp.clip((s - 1) // 2, 0, max(targets.shape[1] - 1, 0))], blank)
    labels = labels.astype(jnp.int32).reshape(batch, width)
    # a label may skip the blank before it when it differs from the label two back
    before = jnp.concatenate([jnp.full((batch, 2), -1, jnp.int32), labels[:, :-2]], axis=1)
    skip = (labels != blank) & (labels != before)
    ninf = jnp.asarray(-jnp.inf, log_probs.dtype)
    emit = jnp.take_along_axis(log_probs, jnp.broadcast_to(labels[None], (steps, batch, width)), axis=2)
    start = jnp.where((s[None] == 0) | ((s[None] == 1) & (target_lengths[:, None] > 0)), emit[0], ninf)

    def step(alpha, t):
        prev1 = jnp.concatenate([jnp.full((batch, 1), ninf), alpha[:, :-1]], axis=1)
        prev2 = jnp.concatenate([jnp.full((batch, 2), ninf), alpha[:, :-2]], axis=1)
        prev2 = jnp.where(skip, prev2, ninf)
        new = _logsumexp(alpha, prev1, prev2) + emit[t]
        # a sequence past its input length keeps its last alphas
        return jnp.where((t < input_lengths)[:, None], new, alpha), None

    alpha, _ = lax.scan(step, start, jnp.arange(1, steps))
    last = 2 * target_lengths
    end = jnp.take_along_axis(alpha, last[:, None], axis=1)[:, 0]
    before_end = jnp.take_along_axis(alpha, jnp.maximum(last - 1, 0)[:, None], axis=1)[:, 0]
    before_end = jnp.where(target_lengths > 0, before_end, ninf)
    return -_logsumexp(end, before_end)


def _ctc(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    return _nll(log_probs, targets, input_lengths, target_lengths, blank)


_ctc_vjp = jax.custom_vjp(_ctc, nondiff_argnums=(4, 5))


def _ctc_fwd(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    nll = _nll(log_probs, targets, input_lengths, target_lengths, blank)
    return nll, (log_probs, targets, input_lengths, target_lengths, nll)


def _ctc_bwd(blank, zero_infinity, residuals, g):
    log_probs, targets, input_lengths, target_lengths, nll = residuals
    dead = zero_infinity & jnp.isinf(nll)
    g = jnp.where(dead, jnp.zeros((), g.dtype), g)
    _, vjp_fn = jax.vjp(lambda lp: _nll(lp, targets, input_lengths, target_lengths, blank), log_probs)
    (posterior,) = vjp_fn(g)
    live = jnp.arange(log_probs.shape[0])[:, None] < input_lengths[None, :]
    grad = posterior + jnp.where(live[..., None], jnp.exp(log_probs), 0) * g[None, :, None]
    grad = jnp.where(dead[None, :, None], jnp.zeros((), grad.dtype), grad)
    return grad, None, None, None


_ctc_vjp.defvjp(_ctc_fwd, _ctc_bwd)


@op("ctc_loss", grad_fn="CtcLossBackward0", no_slot=(1, 2, 3),
    saves={"log_probs": "any", "targets": "any", "input_lengths": "any", "target_lengths": "any", "out": "any"})
def ctc_loss(log_probs, targets, input_lengths, target_lengths, *, blank, zero_infinity):
    """Per-sequence CTC losses ``(N,)`` of ``log_probs (T, N, C)`` and padded ``targets (N, S)``.

    ``zero_infinity`` zeroes the gradient of infinite losses; the caller zeroes the losses
    (PyTorch's ``where`` after the kernel).
    """
    return _ctc_vjp(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)
