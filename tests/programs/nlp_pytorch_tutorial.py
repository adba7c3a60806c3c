# Corpus program modelled on pytorch/tutorials beginner_source/nlp/pytorch_tutorial.py
# (commit cb7cc08cd2e436ace74fa66ae823382abd39fc6d, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch

import _corpus

torch.manual_seed(1)

V_data = [1., 2., 3.]
V = torch.tensor(V_data)
print(V)
M_data = [[1., 2., 3.], [4., 5., 6]]
M = torch.tensor(M_data)
print(M)
T_data = [[[1., 2.], [3., 4.]], [[5., 6.], [7., 8.]]]
T = torch.tensor(T_data)
print(T)
print(V[0])
print(V[0].item())
print(M[0])
print(T[0])

x = _corpus.randn(3, 4, 5, seed=0)  # tensorgrad-corpus: seeded numpy data for torch.randn(3, 4, 5)
print(x)

x = torch.tensor([1., 2., 3.])
y = torch.tensor([4., 5., 6.])
z = x + y
print(z)

x_1 = _corpus.randn(2, 5, seed=1)  # tensorgrad-corpus: seeded numpy data for torch.randn(2, 5)
y_1 = _corpus.randn(3, 5, seed=2)
z_1 = torch.cat([x_1, y_1])
print(z_1)
x_2 = _corpus.randn(2, 3, seed=3)
y_2 = _corpus.randn(2, 5, seed=4)
z_2 = torch.cat([x_2, y_2], 1)
print(z_2)

x = _corpus.randn(2, 3, 4, seed=5)  # tensorgrad-corpus: seeded numpy data for torch.randn(2, 3, 4)
print(x)
print(x.view(2, 12))
print(x.view(2, -1))

x = torch.tensor([1., 2., 3], requires_grad=True)
y = torch.tensor([4., 5., 6], requires_grad=True)
z = x + y
print(z)
print(z.grad_fn)
s = z.sum()
print(s)
print(s.grad_fn)
s.backward()
print(x.grad)

x = _corpus.randn(2, 2, seed=6)  # tensorgrad-corpus: seeded numpy data for torch.randn(2, 2)
y = _corpus.randn(2, 2, seed=7)
print(x.requires_grad, y.requires_grad)
z = x + y
print(z.grad_fn)
x = x.requires_grad_()
y = y.requires_grad_()
z = x + y
print(z.grad_fn)
print(z.requires_grad)
new_z = z.detach()
print(new_z.grad_fn)

print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
