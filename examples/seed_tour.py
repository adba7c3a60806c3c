"""Both seed tutorials of autograd, every snippet, run by tensorgrad as ``torch``.

The two tutorials (notes on ``torch.autograd`` from "pytorch-book", in five parts; and section
2.5 of "Dive into Deep Learning" (PyTorch edition), automatic differentiation, with its
exercises) are split into runnable snippets in
``tests/seeds/``; ``tests/test_seeds.py`` checks that each prints under tensorgrad exactly what it
prints under PyTorch (the same random draws replayed). Here each snippet runs in turn, labelled,
with tensorgrad standing in for ``torch`` (its own random numbers, so the drawn values differ
from a PyTorch run; everything else prints as PyTorch prints it). Then exercise 5 of d2l 2.5:
f(x) = sin(x) and its derivative, computed by autograd (not as cos(x)), drawn into
``seed_tour_sin.png``.

Run: python examples/seed_tour.py [--device cuda] [--out FOLDER]
"""

import pathlib
import runpy
import sys

import _common

import tensorgrad as torch

SEEDS = pathlib.Path(__file__).resolve().parent.parent / "tests" / "seeds"
SNIPPETS = {
    "pytorch_book_1": "pytorch-book, autograd (1): requires_grad, leaves, backward through an add",
    "pytorch_book_2": "pytorch-book, autograd (2): autograd's derivative of x^2 e^x against the formula",
    "pytorch_book_3": "pytorch-book, autograd (3): grad_fn, next_functions, retain_graph, accumulating gradients",
    "pytorch_book_4": "pytorch-book, autograd (4): a dynamic graph: Python control flow in the forward",
    "pytorch_book_5": "pytorch-book, autograd (5): turning autograd off: no_grad, set_grad_enabled",
    "d2l_2_5_1": "d2l 2.5.1: a simple example, y = 2 x.x",
    "d2l_2_5_2": "d2l 2.5.2: backward of a non-scalar, gradients add up",
    "d2l_2_5_3": "d2l 2.5.3: detaching a computation",
    "d2l_2_5_4": "d2l 2.5.4 and exercise 3: gradients through Python control flow, of a scalar, a vector, a matrix",
    "d2l_exercises": "d2l 2.5 exercises 2, 4, 5: a second backward, piecewise functions at their kinks, sin's derivative",
}


def run_snippets():
    torch.install_as_torch()     # the snippets say ``import torch``
    for name, title in SNIPPETS.items():
        print(f"\n=== {name}: {title} ===")
        sys.stdout.flush()
        runpy.run_path(str(SEEDS / f"{name}.py"), run_name="__main__")


def plot_sin(path):
    """d2l 2.5, exercise 5: sin(x) and its derivative by autograd, on one plot."""
    x = torch.arange(-6.5, 6.5, 0.1, requires_grad=True)
    y = torch.sin(x)
    y.sum().backward()
    xs, ys, gs = x.detach().numpy(), y.detach().numpy(), x.grad.numpy()
    err = abs(gs - torch.cos(x.detach()).numpy()).max()
    print(f"\n=== exercise 5: d sin(x)/dx by autograd; largest difference from cos(x): {err:.2e} ===")
    plt = _common.pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(xs, ys, label="f(x) = sin(x)")
    ax.plot(xs, gs, "--", label="f'(x), by autograd")
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    _common.save(fig, path)
    return err


def main(argv=None):
    args = _common.parser(__doc__).parse_args(argv)
    _common.setup(args)
    run_snippets()
    assert plot_sin(args.out / "seed_tour_sin.png") < 1e-6


if __name__ == "__main__":
    main()
