"""Rprop (resilient backpropagation: per-coordinate step sizes driven by the gradient's sign) and
ASGD (averaged stochastic gradient descent).

Both follow PyTorch's single-tensor algorithms op by op; a complex parameter is updated through
its real view (``view_as_real``), its state too, as in PyTorch.
"""

from .. import _dtype
from .._api.complex import view_as_real
from .._api.creation import full_like, tensor as _tensor, zeros_like
from .._api.elementwise import where
from .._tensor import Tensor
from .optimizer import Optimizer, apply_weight_decay, axpy_, check_implementation_flags, check_nonnegative, value_of


def scalar_dtype():
    """The dtype of an optimizer's scalar state (``step``, ASGD's ``eta`` and ``mu``): float64 when
    the default dtype is float64, else float32, as PyTorch's ``_get_scalar_dtype``."""
    return _dtype.float64 if _dtype.get_default_dtype() is _dtype.float64 else _dtype.float32


def scalar_tensor(value):
    """A 0-d tensor of ``scalar_dtype()`` holding ``value`` (a number or a one-element tensor)."""
    if isinstance(value, Tensor):
        return value.detach().reshape(()).to(dtype=scalar_dtype()).clone()
    return _tensor(value, dtype=scalar_dtype())


def check_tensor_lr(lr):
    """PyTorch's error for a tensor learning rate of more than one element."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


def as_scalar(value):
    """A hyperparameter as PyTorch's ``_to_scalar`` gives it: a one-element tensor squeezed to 0-d."""
    if isinstance(value, Tensor) and value.dim() != 0:
        return value.squeeze()
    return value


def _set(t, value):
    """Write the number or 0-d tensor ``value`` into the 0-d state tensor ``t`` (rounded to its dtype)."""
    if isinstance(value, Tensor):
        t.copy_(value)
    else:
        t.fill_(value)


class Rprop(Optimizer):
    """Rprop: each coordinate keeps its own step size, multiplied by ``etaplus`` while the gradient
    keeps its sign and by ``etaminus`` when it flips (clamped to ``step_sizes``); the parameter
    moves by that step against the gradient's sign, and not at all on a flip."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_tensor_lr(lr)
        check_nonnegative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)
        check_implementation_flags(self)

    def _init_state(self, p, group):
        lr = group["lr"]
        lr = as_scalar(lr).item() if isinstance(lr, Tensor) else lr
        return {"step": scalar_tensor(0.0), "prev": zeros_like(p),
                "step_size": full_like(p, complex(lr, lr) if p.is_complex() else lr)}

    def _update_param(self, p, grad, state, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        state["step"].add_(1)
        prev = state["prev"]
        step_size = state["step_size"]
        if p.is_complex():
            p, grad, prev, step_size = (view_as_real(t) for t in (p, grad, prev, step_size))
        # the sign of grad * prev becomes the factor of the step size, in PyTorch's order (each
        # replacement sees the previous ones' results)
        factor = grad.mul(prev).sign()
        factor = where(factor.gt(0), etaplus, factor)
        factor = where(factor.lt(0), etaminus, factor)
        factor = where(factor.eq(0), 1.0, factor)
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        # where the sign flipped the parameter stays, and the next step sees a zero gradient
        grad = where(factor.eq(etaminus), 0.0, grad)
        p.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)


class ASGD(Optimizer):
    """Averaged SGD: SGD with a decaying step ``eta = lr / (1 + lambd * lr * step) ** alpha`` and
    a shrinking of the parameter by ``1 - lambd * eta``; ``ax`` keeps the running average of the
    parameter over the steps after ``t0`` (before it, the parameter itself)."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False):
        check_tensor_lr(lr)
        check_nonnegative(lr=lr, weight_decay=weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)
        check_implementation_flags(self)

    def _init_state(self, p, group):
        return {"step": scalar_tensor(0.0), "eta": scalar_tensor(as_scalar(group["lr"])),
                "mu": scalar_tensor(1.0), "ax": zeros_like(p)}

    def _update_param(self, p, grad, state, group):
        lr = as_scalar(group["lr"])
        lambd = group["lambd"]
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        if p.is_complex():
            p, grad, ax = (view_as_real(t) for t in (p, grad, ax))
        state["step"].add_(1)
        grad = apply_weight_decay(p, grad, group)
        eta_value = value_of(eta)
        p.mul_(1 - lambd * eta_value)
        axpy_(p, grad, -eta_value)
        mu_value = value_of(mu)
        if isinstance(mu_value, Tensor):        # traced by tensorgrad.compile: the branch in the program
            ax.copy_(where(mu_value != 1, ax.add(p.sub(ax).mul_(mu)), p))
        elif mu_value != 1:
            ax.add_(p.sub(ax).mul_(mu))
        else:
            ax.copy_(p)
        step = value_of(state["step"])
        _set(eta, lr / ((1 + lambd * lr * step) ** group["alpha"]))
        if isinstance(step, Tensor):
            _set(mu, (step - group["t0"]).clamp(min=1).reciprocal())
        else:
            _set(mu, 1 / max(1, step - group["t0"]))
