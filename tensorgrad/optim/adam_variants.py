"""Adam's variants: Adamax (infinity norm), NAdam (Nesterov momentum), RAdam (rectified).

A complex parameter moves through its real view, as its gradient and state (``real_views``):
Adamax's infinity norm is of each real and imaginary part, not of the complex modulus."""

from .. import _dtype
from .._api.creation import tensor as _tensor, zeros_like
from .._api.elementwise import maximum, where
from .adam import check_adam_args, update_moments
from .._tensor import Tensor
from .optimizer import (
    Optimizer, addcdiv_, apply_weight_decay, check_implementation_flags, check_nonnegative, new_state, real_views,
    step_tensor, value_of,
)


class Adamax(Optimizer):
    """Adamax: Adam with the second moment replaced by an exponentially weighted infinity norm."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)
        check_implementation_flags(self)

    def _init_state(self, p, group):
        return new_state(p, "exp_avg", "exp_inf")

    def _update_param(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        step = value_of(state["step"].add_(1))
        grad = apply_weight_decay(p, grad, group)
        p, grad, exp_avg, exp_inf = real_views(p, grad, state["exp_avg"], state["exp_inf"])
        exp_avg.lerp_(grad, 1 - beta1)
        exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"])))
        clr = group["lr"] / (1 - beta1 ** step)
        addcdiv_(p, exp_avg, exp_inf, -clr)


class NAdam(Optimizer):
    """NAdam: Adam with Nesterov momentum and a momentum schedule (``momentum_decay``)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        check_nonnegative(momentum_decay=momentum_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)
        check_implementation_flags(self)

    def _init_state(self, p, group):
        return {"step": step_tensor(), "mu_product": _tensor(1.0, dtype=_dtype.float32),
                "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)}

    def _update_param(self, p, grad, state, group):
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        momentum_decay = group["momentum_decay"]
        p, grad, exp_avg, exp_avg_sq = real_views(p, grad, state["exp_avg"], state["exp_avg_sq"])
        step = value_of(state["step"].add_(1))
        bias_correction2 = 1 - beta2 ** step
        grad = apply_weight_decay(p, grad, group, decoupled=group["decoupled_weight_decay"])
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        # the running product is a float32 tensor, rounded at every step as in PyTorch
        mu_product = value_of(state["mu_product"].mul_(mu))
        update_moments(exp_avg, exp_avg_sq, grad, beta1, beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add_(group["eps"])
        mu_product_next = mu_product * mu_next
        addcdiv_(p, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
        addcdiv_(p, exp_avg, denom, -lr * mu_next / (1.0 - mu_product_next))


class RAdam(Optimizer):
    """RAdam: Adam whose adaptive step is rectified by the variance of its estimate, falling back
    to momentum SGD for the first steps."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable}
        super().__init__(params, defaults)
        check_implementation_flags(self)

    def _init_state(self, p, group):
        return new_state(p, "exp_avg", "exp_avg_sq")

    def _update_param(self, p, grad, state, group):
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        p, grad, exp_avg, exp_avg_sq = real_views(p, grad, state["exp_avg"], state["exp_avg_sq"])
        step = value_of(state["step"].add_(1))
        grad = apply_weight_decay(p, grad, group, decoupled=group["decoupled_weight_decay"])
        update_moments(exp_avg, exp_avg_sq, grad, beta1, beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg.div(bias_correction1)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2

        def rectified():
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            # PyTorch's ``number / tensor`` is ``tensor.reciprocal() * number``
            adaptive = exp_avg_sq.sqrt().add_(group["eps"]).reciprocal().mul(bias_correction2 ** 0.5)
            return corrected.mul(lr).mul(adaptive).mul(rect)

        if isinstance(rho_t, Tensor):     # compiled: both branches, chosen in the program
            p.sub_(where(rho_t > 5.0, rectified(), corrected.mul(lr)))
        elif rho_t > 5.0:
            p.sub_(rectified())
        else:
            p.sub_(corrected.mul(lr))
