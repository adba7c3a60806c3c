"""Adafactor: Adam-like second moments kept in factored form (a row and a column factor for each
matrix), with a relative step size and update clipping, as PyTorch's ``torch.optim.Adafactor``."""

import jax.numpy as jnp

from .._api.creation import zeros_like
from .._api.elementwise import where
from .._tensor import Tensor
from .optimizer import Optimizer, axpy_, value_of
from .rprop_asgd import as_scalar, check_tensor_lr, scalar_tensor


def _larger(a, b, traced):
    """Python's ``max(a, b)`` (``a`` on a tie); while ``tensorgrad.compile`` traces the step
    (``traced``), chosen in the program from the float64 tensors the step then computes with."""
    return where(b > a, b, a) if traced else max(a, b)


def _smaller(a, b, traced):
    """Python's ``min(a, b)`` (``a`` on a tie), or in the program while traced."""
    return where(b < a, b, a) if traced else min(a, b)


class Adafactor(Optimizer):
    """Adafactor (Shazeer and Stern, 2018).

    For a parameter of two or more dimensions the second moment is estimated from running means of
    the squared gradient over its last dimension (``row_var``) and its next to last (``col_var``);
    a vector or a 0-d parameter keeps a full ``variance``. The decay rate of those averages is
    ``1 - step ** beta2_decay``; the step size is ``max(eps2, RMS(param)) * min(lr, 1 / sqrt(step))``
    and the update is clipped to an RMS of at most ``d``. ``weight_decay`` scales the parameter by
    ``1 - lr * weight_decay`` (decoupled). ``eps = (eps1, eps2)``; ``eps1=None`` takes the
    machine epsilon of the group's (first updated) parameter's dtype.
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        # ``foreach`` only picks PyTorch's implementation (the same update); there is no fused one
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = {"step": scalar_tensor(0.0)}
        if p.dim() > 1:
            shape = list(p.shape)
            state["row_var"] = p.new_zeros(shape[:-1] + [1])
            state["col_var"] = p.new_zeros(shape[:-2] + [1, shape[-1]])
        else:
            state["variance"] = zeros_like(p)
        return state

    def _update(self, group):
        pairs = []
        for p, grad in self._with_grads(group):
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            state = self.state[p]
            if not state:
                state.update(self._init_state(p, group))
            pairs.append((p, grad))
        eps1, eps2 = group["eps"]
        for p, grad in pairs:
            if eps1 is None:    # as in PyTorch, the first parameter's dtype decides for the group
                eps1 = float(jnp.finfo(p.dtype.np).eps)
            self._update_param(p, grad, self.state[p], group, eps1, eps2)

    def _update_param(self, p, grad, state, group, eps1, eps2):
        lr = as_scalar(group["lr"])
        step = value_of(state["step"].add_(1))
        traced = isinstance(step, Tensor)      # a float64 tensor while tensorgrad.compile traces the step
        one_minus_beta2 = step ** group["beta2_decay"]
        if traced:      # lerp's tensor weight must have the parameter's dtype (the number is rounded to it)
            one_minus_beta2 = one_minus_beta2.to(dtype=p.dtype)
        rho = _smaller(lr, 1 / step ** 0.5, traced)
        alpha = _larger(eps2, value_of(p.norm(2)) / p.numel() ** 0.5, traced) * rho
        if group["weight_decay"] != 0:
            p.mul_(1 - lr * group["weight_decay"])
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1)), one_minus_beta2)
            col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2)), one_minus_beta2)
            estimate = row_var.matmul(col_var)
            estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance = state["variance"].lerp_(grad.mul(grad), one_minus_beta2)
            estimate = variance.clone()
        # eps1 squared: the square root comes after
        update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
        denom = _larger(1.0, value_of(update.norm(2)) / (update.numel() ** 0.5 * group["d"]), traced)
        axpy_(p, update, -alpha / denom)
