"""Adam's variants: Adamax (infinity norm), NAdam (Nesterov momentum), RAdam (rectified)."""

from .. import _dtype
from .._api.creation import tensor as _tensor, zeros_like
from .._api.math import maximum
from .adam import _check_adam_args
from .optimizer import Optimizer, addcdiv_, check_nonnegative, step_tensor


class Adamax(Optimizer):
    """Adamax: Adam with the second moment replaced by an exponentially weighted infinity norm."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, group):
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        eps = group["eps"]
        weight_decay = group["weight_decay"]
        for p, grad in self._with_grads(group):
            state = self.state[p]
            if not state:
                state["step"] = step_tensor()
                state["exp_avg"] = zeros_like(p)
                state["exp_inf"] = zeros_like(p)
            step = state["step"].add_(1).item()
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            exp_avg = state["exp_avg"].lerp_(grad, 1 - beta1)
            exp_inf = state["exp_inf"]
            exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
            clr = lr / (1 - beta1 ** step)
            addcdiv_(p, exp_avg, exp_inf, -clr)


class NAdam(Optimizer):
    """NAdam: Adam with Nesterov momentum and a momentum schedule (``momentum_decay``)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        check_nonnegative(momentum_decay=momentum_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, group):
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        weight_decay = group["weight_decay"]
        momentum_decay = group["momentum_decay"]
        for p, grad in self._with_grads(group):
            state = self.state[p]
            if not state:
                state["step"] = step_tensor()
                state["mu_product"] = _tensor(1.0, dtype=_dtype.float32)
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            step = state["step"].add_(1).item()
            bias_correction2 = 1 - beta2 ** step
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
            mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
            # the running product is a float32 tensor, rounded at every step as in PyTorch
            mu_product = state["mu_product"].mul_(mu).item()
            exp_avg = state["exp_avg"].lerp_(grad, 1 - beta1)
            exp_avg_sq = state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(bias_correction2).sqrt().add_(group["eps"])
            mu_product_next = mu_product * mu_next
            addcdiv_(p, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
            addcdiv_(p, exp_avg, denom, -lr * mu_next / (1.0 - mu_product_next))


class RAdam(Optimizer):
    """RAdam: Adam whose adaptive step is rectified by the variance of its estimate, falling back
    to momentum SGD for the first steps."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, group):
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        weight_decay = group["weight_decay"]
        for p, grad in self._with_grads(group):
            state = self.state[p]
            if not state:
                state["step"] = step_tensor()
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            step = state["step"].add_(1).item()
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            exp_avg = state["exp_avg"].lerp_(grad, 1 - beta1)
            exp_avg_sq = state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            corrected = exp_avg.div(bias_correction1)
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                # PyTorch's ``number / tensor`` is ``tensor.reciprocal() * number``
                adaptive = exp_avg_sq.sqrt().add_(group["eps"]).reciprocal().mul(bias_correction2 ** 0.5)
                update = corrected.mul(lr).mul(adaptive).mul(rect)
            else:
                update = corrected.mul(lr)
            p.sub_(update)
