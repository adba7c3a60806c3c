"""A custom ``autograd.Function`` with its own backward, checked by ``gradcheck``, then used.

``LegendreP3`` computes P3(x) = (5 x^3 - 3 x) / 2 in ``forward`` and its derivative
1.5 (5 x^2 - 1) in ``backward`` (PyTorch's "defining new autograd functions" tutorial), saving
its input with ``ctx.save_for_backward``. ``tensorgrad.autograd.gradcheck`` compares that
backward with finite differences in float64 and passes; a deliberately wrong backward
(``BrokenP3``) is caught by it. Then y = a + b P3(c + d x) is fitted to sin(x) by gradient
descent through the custom node (``LegendreP3Backward`` in the graph), and the fit is drawn
into ``custom_function.png``.

Run: python examples/custom_function.py [--steps N] [--device cuda] [--out FOLDER]
"""

import math

import _common

import tensorgrad as torch
from tensorgrad.autograd import Function, gradcheck


class LegendreP3(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 0.5 * (5 * x ** 3 - 3 * x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * x ** 2 - 1)


class BrokenP3(LegendreP3):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * x ** 2)       # the "- 1" is missing


def check(device):
    x = torch.randn(6, dtype=torch.float64, device=device, requires_grad=True)
    good = gradcheck(LegendreP3.apply, (x,), eps=1e-6, atol=1e-4)
    broken = gradcheck(BrokenP3.apply, (x,), eps=1e-6, atol=1e-4, raise_exception=False)
    print(f"gradcheck(LegendreP3.apply): {good}; gradcheck(BrokenP3.apply): {broken}")
    assert good and not broken
    return good, broken


def fit(device, steps, lr=5e-6):
    x = torch.linspace(-math.pi, math.pi, 2000, device=device)
    y = torch.sin(x)
    a, b, c, d = (torch.full((), v, device=device, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3))
    for t in range(steps):
        pred = a + b * LegendreP3.apply(c + d * x)
        loss = (pred - y).pow(2).sum()
        if t == 0:
            print(f"the graph: {pred.grad_fn} <- {pred.grad_fn.next_functions[1][0]} <- "
                  f"{pred.grad_fn.next_functions[1][0].next_functions[1][0]}")
        if t % (steps // 5) == 0 or t == steps - 1:
            print(f"  step {t:4d}: loss {loss.item():.4f}")
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= lr * p.grad
                p.grad = None
    print(f"fit: y = {a.item():.4f} + {b.item():.4f} * P3({c.item():.4f} + {d.item():.4f} x)")
    return x, y, pred.detach(), loss.item()


def main(argv=None):
    p = _common.parser(__doc__)
    p.add_argument("--steps", type=int, default=2000)
    args = p.parse_args(argv)
    device = _common.setup(args)
    check(device)
    x, y, pred, loss = fit(device, args.steps)
    plt = _common.pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(x.cpu().numpy(), y.cpu().numpy(), label="sin(x)")
    ax.plot(x.cpu().numpy(), pred.cpu().numpy(), "--", label="a + b P3(c + d x), P3 a custom Function")
    ax.set(xlabel="x", title=f"fitted through a custom autograd.Function (loss {loss:.2f})")
    ax.legend()
    ax.grid(True, alpha=0.3)
    _common.save(fig, args.out / "custom_function.png")
    return loss


if __name__ == "__main__":
    main()
