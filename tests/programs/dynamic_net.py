# Corpus program modelled on pytorch/tutorials beginner_source/examples_nn/dynamic_net.py
# (commit e13beed18d7cc24f9ed01746a6d03325ce622800, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import math
import random

import torch

import _corpus

random.seed(0)  # tensorgrad-corpus: Python's own generator seeded, so both runs take the same branches


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(_corpus.randn((), seed=0))  # tensorgrad-corpus: seeded numpy data for torch.randn(())
        self.b = torch.nn.Parameter(_corpus.randn((), seed=1))
        self.c = torch.nn.Parameter(_corpus.randn((), seed=2))
        self.d = torch.nn.Parameter(_corpus.randn((), seed=3))
        self.e = torch.nn.Parameter(_corpus.randn((), seed=4))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?'


x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

model = DynamicNet()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(100):  # tensorgrad-corpus: 100 steps instead of 30000
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 25 == 24:  # tensorgrad-corpus: every 25 steps instead of 2000
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f'Result: {model.string()}')
