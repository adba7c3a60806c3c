# Corpus program modelled on pytorch/tutorials beginner_source/examples_nn/polynomial_nn.py
# (commit 90fb0068a1941e996b100fd9b4e05dbaa497076e, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import math

import torch

import _corpus

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)

model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
_corpus.init_(model)  # tensorgrad-corpus: the same initial weights under both libraries

loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-6
for t in range(200):  # tensorgrad-corpus: 200 steps instead of 2000
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 50 == 49:  # tensorgrad-corpus: every 50 steps instead of 100
        print(t, loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + '
      f'{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')
