"""Hessian-vector products, three ways, checked against the full Hessian and finite differences.

For a small network's loss L(w) (a two-layer tanh regression, its parameters flattened into
one vector w), the product H v of its Hessian with a vector v is computed without forming H:

1. **double backward** on the tape: ``g = autograd.grad(L, w, create_graph=True)``, then
   ``autograd.grad(g @ v, w)`` (reverse over reverse);
2. **forward over reverse** with ``tensorgrad.func``: ``func.jvp(func.grad(L), (w,), (v,))``;
3. ``tensorgrad.autograd.functional.hvp``.

Each is compared with ``tensorgrad.func.hessian(L)(w) @ v`` and with a central finite
difference of the gradient, (g(w + h v) - g(w - h v)) / 2h, all in float64.

Run: python examples/higher_order.py [--device cuda]
"""

import _common

import tensorgrad as torch
from tensorgrad import autograd, func

HIDDEN = 8


def make_problem(device):
    torch.manual_seed(0)
    x = torch.linspace(-2, 2, 64, dtype=torch.float64, device=device)[:, None]
    y = torch.sin(2 * x) + 0.05 * torch.randn(64, 1, dtype=torch.float64, device=device)
    n = 3 * HIDDEN + 1                       # w1 (H), b1 (H), w2 (H), b2 (1)
    w = 0.5 * torch.randn(n, dtype=torch.float64, device=device)

    def loss(w):
        w1, b1, w2, b2 = w[:HIDDEN], w[HIDDEN:2 * HIDDEN], w[2 * HIDDEN:3 * HIDDEN], w[-1]
        pred = torch.tanh(x * w1 + b1) @ w2[:, None] + b2
        return ((pred - y) ** 2).mean()
    return loss, w


def hvp_double_backward(loss, w, v):
    w = w.detach().requires_grad_()
    (g,) = autograd.grad(loss(w), w, create_graph=True)
    (hv,) = autograd.grad(g @ v, w)
    return hv


def hvp_forward_over_reverse(loss, w, v):
    return func.jvp(func.grad(loss), (w,), (v,))[1]


def hvp_functional(loss, w, v):
    return autograd.functional.hvp(loss, w, v)[1]


def finite_difference(loss, w, v, h=1e-5):
    g = func.grad(loss)
    return (g(w + h * v) - g(w - h * v)) / (2 * h)


def main(argv=None):
    args = _common.parser(__doc__, out=False).parse_args(argv)
    device = _common.select_device(args.device)
    loss, w = make_problem(device)
    v = torch.randn(w.shape, dtype=torch.float64, device=device)
    exact = func.hessian(loss)(w) @ v
    fd = finite_difference(loss, w, v)
    print(f"H v for a loss of {w.numel()} parameters; |H v| = {exact.norm().item():.4f}")
    print(f"{'method':>28} | max |. - hessian(L) @ v| | max |. - finite difference|")
    worst = 0.0
    for name, fn in {"double backward (tape)": hvp_double_backward,
                     "func.jvp of func.grad": hvp_forward_over_reverse,
                     "autograd.functional.hvp": hvp_functional}.items():
        hv = fn(loss, w, v)
        e1, e2 = (hv - exact).abs().max().item(), (hv - fd).abs().max().item()
        worst = max(worst, e1)
        print(f"{name:>28} | {e1:23.2e} | {e2:.2e}")
        assert e1 < 1e-10 and e2 < 1e-6, name
    print(f"{'finite difference':>28} | {(fd - exact).abs().max().item():23.2e} |")

    return worst


if __name__ == "__main__":
    main()
