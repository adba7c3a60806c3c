"""Cold start: build, save and load models, as a script that never trains does. Written for
PyTorch; ``benchmarks/run.py`` runs it with ``python`` and with ``python -m tensorgrad``."""

import os
import tempfile
import time

import torch
import torch.nn as nn

start = time.perf_counter()
layer = nn.Linear(400, 120)
print(f"METRIC linear_400_120 {time.perf_counter() - start:.6f}")

models = [
    nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)),
    nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                  nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                  nn.Linear(32, 10)),
    nn.LSTM(32, 64, num_layers=2, batch_first=True),
    nn.Embedding(1000, 64),
    nn.TransformerEncoderLayer(64, 4, 128, batch_first=True),
]
print(f"METRIC build_models {time.perf_counter() - start:.6f}")
with tempfile.TemporaryDirectory() as folder:
    for i, model in enumerate(models):
        path = os.path.join(folder, f"model{i}.pt")
        torch.save(model.state_dict(), path)
        model.load_state_dict(torch.load(path))
print(sum(p.numel() for m in models for p in m.parameters()), "parameters")
