"""Per-coordinate adaptive learning rates: RMSprop, Adagrad, Adadelta.

A complex parameter moves through its real view, as its gradient and state (``real_views``): each
real and imaginary part has its own rate; Adagrad's ``sum`` of a complex parameter starts at
``initial_accumulator_value`` in both parts, as PyTorch's."""

from .._api.creation import full_like, zeros_like
from .optimizer import (
    Optimizer, addcdiv_, apply_weight_decay, axpy_, check_implementation_flags, check_nonnegative, new_state,
    real_views, step_tensor, value_of,
)


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
        check_implementation_flags(self)

    def _init_state(self, p, group):
        state = new_state(p, "square_avg")
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = zeros_like(p)
        return state

    def _update_param(self, p, grad, state, group):
        lr = group["lr"]
        alpha = group["alpha"]
        momentum = group["momentum"]
        state["step"].add_(1)
        grad = apply_weight_decay(p, grad, group)
        p, grad, square_avg = real_views(p, grad, state["square_avg"])
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            (grad_avg,) = real_views(state["grad_avg"])      # the buffer is complex as the parameter is
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.sub(grad_avg.mul(grad_avg)).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(group["eps"])
        if momentum > 0:
            (buf,) = real_views(state["momentum_buffer"])
            buf.mul_(momentum).addcdiv_(grad, avg)
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
        check_implementation_flags(self)
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p] = self._init_state(p, group)

    def _init_state(self, p, group):
        # the constructor's initial value, also for a parameter added or loaded later, as in PyTorch
        value = self.defaults["initial_accumulator_value"]
        return {"step": step_tensor(), "sum": full_like(p, complex(value, value) if p.is_complex() else value)}

    def _update_param(self, p, grad, state, group):
        step = value_of(state["step"].add_(1))
        grad = apply_weight_decay(p, grad, group)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        p, grad, state_sum = real_views(p, grad, state["sum"])
        state_sum.addcmul_(grad, grad, value=1)
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
        check_implementation_flags(self)

    def _init_state(self, p, group):
        return new_state(p, "square_avg", "acc_delta")

    def _update_param(self, p, grad, state, group):
        rho = group["rho"]
        eps = group["eps"]
        state["step"].add_(1)
        grad = apply_weight_decay(p, grad, group)
        # PyTorch adds the complex view of ``delta`` to the complex parameter: the same sums
        p, grad, square_avg, acc_delta = real_views(p, grad, state["square_avg"], state["acc_delta"])
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        axpy_(p, delta, -group["lr"])
