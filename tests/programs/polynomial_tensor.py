# Corpus program modelled on pytorch/tutorials beginner_source/examples_tensor/polynomial_tensor.py
# (commit 4fe88118795089fb1d5d4b1e91834ea6e31f67e4, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import math

import torch

import _corpus

dtype = torch.float
device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

a = _corpus.randn((), seed=0)  # tensorgrad-corpus: seeded numpy data for torch.randn((), device=device, dtype=dtype)
b = _corpus.randn((), seed=1)
c = _corpus.randn((), seed=2)
d = _corpus.randn((), seed=3)

learning_rate = 1e-6
for t in range(200):  # tensorgrad-corpus: 200 steps instead of 2000
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 50 == 49:  # tensorgrad-corpus: every 50 steps instead of 100
        print(t, loss)

    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()

    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d

print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
