# Corpus program modelled on pytorch/tutorials beginner_source/blitz/tensor_tutorial.py
# (commit 1dc0de7f777e3aac6c073db3f710f6f735923762, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import numpy as np
import torch

import _corpus

x = torch.empty(5, 3)
print(x.shape, x.dtype)  # tensorgrad-corpus: print the shape of an uninitialised tensor, not its values
x = _corpus.rand(5, 3, seed=0)  # tensorgrad-corpus: seeded numpy data for torch.rand(5, 3)
print(x)
x = torch.zeros(5, 3, dtype=torch.long)
print(x)
x = torch.tensor([5.5, 3])
print(x)
x = x.new_ones(5, 3, dtype=torch.double)
print(x)
x = torch.randn_like(x, dtype=torch.float)
print(x.size(), x.dtype)  # tensorgrad-corpus: randn_like's values differ between the libraries
x = _corpus.randn(5, 3, seed=1)  # tensorgrad-corpus: seeded numpy data in its place
print(x)
print(x.size())

y = _corpus.rand(5, 3, seed=2)  # tensorgrad-corpus: seeded numpy data for torch.rand(5, 3)
print(x + y)
print(torch.add(x, y))
result = torch.empty(5, 3)
torch.add(x, y, out=result)
print(result)
y.add_(x)
print(y)
print(x[:, 1])

x = _corpus.randn(4, 4, seed=3)  # tensorgrad-corpus: seeded numpy data for torch.randn(4, 4)
y = x.view(16)
z = x.view(-1, 8)
print(x.size(), y.size(), z.size())

x = _corpus.randn(1, seed=4)  # tensorgrad-corpus: seeded numpy data for torch.randn(1)
print(x)
print(x.item())

a = torch.ones(5)
print(a)
b = a.numpy()
print(b)
a.add_(1)
print(a)
print(b)

a = np.ones(5)
b = torch.from_numpy(a)
np.add(a, 1, out=a)
print(a)
print(b)

if torch.cuda.is_available():
    device = torch.device("cuda")
    y = torch.ones_like(x, device=device)
    x = x.to(device)
    z = x + y
    print(z)
    print(z.to("cpu", torch.double))
