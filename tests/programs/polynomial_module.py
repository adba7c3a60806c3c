# Corpus program modelled on pytorch/tutorials beginner_source/examples_nn/polynomial_module.py
# (commit c53e7d4efc0e39e455c531d21ec7db28ba220214, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import math

import torch

import _corpus


class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(_corpus.randn((), seed=0))  # tensorgrad-corpus: seeded numpy data for torch.randn(())
        self.b = torch.nn.Parameter(_corpus.randn((), seed=1))
        self.c = torch.nn.Parameter(_corpus.randn((), seed=2))
        self.d = torch.nn.Parameter(_corpus.randn((), seed=3))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3'


x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

model = Polynomial3()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(200):  # tensorgrad-corpus: 200 steps instead of 2000
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 50 == 49:  # tensorgrad-corpus: every 50 steps instead of 100
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f'Result: {model.string()}')
