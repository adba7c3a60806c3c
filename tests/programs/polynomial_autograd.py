# Corpus program modelled on pytorch/tutorials beginner_source/examples_autograd/polynomial_autograd.py
# (commit 92f11a171bb3f3f6bbd8dfb102c59d67c2385032, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import math

import torch

import _corpus

dtype = torch.float
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
torch.set_default_device(device)

x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)

a = _corpus.randn((), seed=0).requires_grad_()  # tensorgrad-corpus: seeded numpy data for torch.randn((), dtype=dtype, requires_grad=True)
b = _corpus.randn((), seed=1).requires_grad_()
c = _corpus.randn((), seed=2).requires_grad_()
d = _corpus.randn((), seed=3).requires_grad_()

learning_rate = 1e-6
for t in range(200):  # tensorgrad-corpus: 200 steps instead of 2000
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 50 == 49:  # tensorgrad-corpus: every 50 steps instead of 100
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
