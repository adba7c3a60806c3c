"""Per-coordinate adaptive learning rates: RMSprop, Adagrad, Adadelta."""

from .._api.creation import full_like, zeros_like
from .optimizer import Optimizer, addcdiv_, axpy_, check_nonnegative, step_tensor


class RMSprop(Optimizer):
    """RMSprop: divide the gradient by a running root mean square of recent gradients.

    ``centered=True`` subtracts the square of the running mean gradient (a variance
    estimate); ``momentum > 0`` accumulates the normalized steps in a buffer.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, group):
        lr = group["lr"]
        alpha = group["alpha"]
        eps = group["eps"]
        momentum = group["momentum"]
        weight_decay = group["weight_decay"]
        for p, grad in self._with_grads(group):
            state = self.state[p]
            if not state:
                state["step"] = step_tensor()
                state["square_avg"] = zeros_like(p)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(p)
            state["step"].add_(1)
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            square_avg = state["square_avg"].mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"].lerp_(grad, 1 - alpha)
                avg = square_avg.sub(grad_avg.mul(grad_avg)).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"].mul_(momentum).addcdiv_(grad, avg)
                axpy_(p, buf, -lr)
            else:
                addcdiv_(p, grad, avg, -lr)


class Adagrad(Optimizer):
    """Adagrad: divide by the root of the sum of all squared gradients so far.

    The learning rate decays as ``lr / (1 + (step - 1) * lr_decay)``. Its state (``step`` and
    ``sum``) exists from construction, as in PyTorch.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_nonnegative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                          initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = step_tensor()
                state["sum"] = full_like(p, initial_accumulator_value)

    def _update(self, group):
        lr = group["lr"]
        weight_decay = group["weight_decay"]
        for p, grad in self._with_grads(group):
            state = self.state[p]
            if not state:
                state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])
            step_t = state["step"].add_(1)
            step = step_t.item()
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            clr = lr / (1 + (step - 1) * group["lr_decay"])
            state_sum = state["sum"].addcmul_(grad, grad, value=1)
            std = state_sum.sqrt().add_(group["eps"])
            addcdiv_(p, grad, std, -clr)


class Adadelta(Optimizer):
    """Adadelta: step sizes from running averages of squared gradients and squared updates."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_nonnegative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative(eps=eps, weight_decay=weight_decay)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, group):
        lr = group["lr"]
        rho = group["rho"]
        eps = group["eps"]
        weight_decay = group["weight_decay"]
        for p, grad in self._with_grads(group):
            state = self.state[p]
            if not state:
                state["step"] = step_tensor()
                state["square_avg"] = zeros_like(p)
                state["acc_delta"] = zeros_like(p)
            state["step"].add_(1)
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            square_avg = state["square_avg"].mul_(rho).addcmul_(grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = state["acc_delta"].add(eps).sqrt_()
            delta.div_(std).mul_(grad)
            state["acc_delta"].mul_(rho).addcmul_(delta, delta, value=1 - rho)
            axpy_(p, delta, -lr)
