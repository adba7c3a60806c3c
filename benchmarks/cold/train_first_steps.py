"""Cold start: a small CNN's first training steps, as every training script starts. Written for
PyTorch; ``benchmarks/run.py`` runs it with ``python`` and with ``python -m tensorgrad``."""

import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Flatten(), nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
start = time.perf_counter()
for step in range(5):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    value = loss.item()
    if step == 1:
        print(f"METRIC first_two_steps {time.perf_counter() - start:.6f}")
print(f"METRIC five_steps {time.perf_counter() - start:.6f}")
print("loss", round(value, 4))
