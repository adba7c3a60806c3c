"""Adam and AdamW (Adam with decoupled weight decay), both with the AMSGrad variant.

A complex parameter moves through its real view, as its gradient and moments (``real_views``)."""

from .._api.elementwise import maximum
from ._fused import FUSED_TYPES
from .optimizer import (
    Optimizer, addcdiv_, apply_weight_decay, check_implementation_flags, check_nonnegative, new_state, real_views,
    value_of,
)


def check_adam_args(lr, betas, eps, weight_decay):
    """PyTorch's ValueError for the first invalid hyperparameter of the Adam family."""
    check_nonnegative(lr=lr, eps=eps)
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    check_nonnegative(weight_decay=weight_decay)


def update_moments(exp_avg, exp_avg_sq, grad, beta1, beta2):
    """Adam's moving averages, updated in place and returned: ``exp_avg`` of the gradient (weight
    ``1 - beta1``) and ``exp_avg_sq`` of its square (weight ``1 - beta2``). For a complex
    parameter all three are real views (``real_views``): the square is per part."""
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    return exp_avg, exp_avg_sq


class Adam(Optimizer):
    """Adam: moving averages of the gradient and its square, bias-corrected.

    ``weight_decay`` adds ``weight_decay * param`` to the gradient (L2), unless
    ``decoupled_weight_decay=True`` (AdamW), which shrinks the parameter directly.
    ``amsgrad=True`` divides by the running maximum of the second moment.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        check_adam_args(lr, betas, eps, weight_decay)
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        check_implementation_flags(self)

    def _init_state(self, p, group):
        if group["amsgrad"]:
            return new_state(p, "exp_avg", "exp_avg_sq", "max_exp_avg_sq")
        return new_state(p, "exp_avg", "exp_avg_sq")

    def _update_param(self, p, grad, state, group):
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        step = value_of(state["step"].add_(1))
        grad = apply_weight_decay(p, grad, group, decoupled=group["decoupled_weight_decay"])
        amsgrad = group["amsgrad"]
        p, grad, exp_avg, exp_avg_sq, *max_exp_avg_sq = real_views(
            p, grad, state["exp_avg"], state["exp_avg_sq"], *([state["max_exp_avg_sq"]] if amsgrad else []))
        update_moments(exp_avg, exp_avg_sq, grad, beta1, beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if amsgrad:
            second = max_exp_avg_sq[0]
            second.copy_(maximum(second, exp_avg_sq))
        else:
            second = exp_avg_sq
        denom = second.sqrt().div(bias_correction2_sqrt).add_(group["eps"])
        addcdiv_(p, exp_avg, denom, -step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay: each step first scales the parameter by
    ``1 - lr * weight_decay`` (default ``weight_decay=0.01``)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


# a step runs as one program, the first too: it makes each parameter's moments (zeros) first
FUSED_TYPES[Adam] = FUSED_TYPES[AdamW] = (lambda group, state: bool(state), True, "init")
