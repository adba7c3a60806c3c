"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""

from ._fused import FUSED_TYPES
from .optimizer import Optimizer, apply_weight_decay, axpy_, check_implementation_flags, check_nonnegative


class SGD(Optimizer):
    """Stochastic gradient descent (optionally with momentum).

    With momentum ``m``, each step keeps ``buf = m * buf + (1 - dampening) * g`` and moves the
    parameter by ``-lr * buf`` (or ``-lr * (g + m * buf)`` with ``nesterov=True``).

    >>> import tensorgrad as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0]))
    >>> opt = torch.optim.SGD([w], lr=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        check_nonnegative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_implementation_flags(self)

    def _update(self, group):
        # SGD keeps per-parameter state (the momentum buffer) only with momentum, as PyTorch does
        lr = group["lr"]
        momentum = group["momentum"]
        dampening = group["dampening"]
        for p, grad in self._with_grads(group):
            grad = apply_weight_decay(p, grad, group)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = grad.detach().clone()
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            axpy_(p, grad, -lr)


# a step runs as one program once each parameter's momentum buffer exists (or without momentum)
# (its first step with momentum only makes the buffers)
FUSED_TYPES[SGD] = (lambda group, state: group["momentum"] == 0 or "momentum_buffer" in state, False, "program")
