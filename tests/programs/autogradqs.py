# Corpus program modelled on pytorch/tutorials beginner_source/basics/autogradqs_tutorial.py
# (commit db77dcf6e3637924f43852c014f2af9978b0f891, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch

import _corpus

x = torch.ones(5)
y = torch.zeros(3)
w = _corpus.randn(5, 3, seed=0).requires_grad_()  # tensorgrad-corpus: seeded numpy data for torch.randn(5, 3, requires_grad=True)
b = _corpus.randn(3, seed=1).requires_grad_()  # tensorgrad-corpus: seeded numpy data for torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

print(f"Gradient function for z = {z.grad_fn}".split(" at ")[0])  # tensorgrad-corpus: drop the object address
print(f"Gradient function for loss = {loss.grad_fn}".split(" at ")[0])  # tensorgrad-corpus: drop the object address

loss.backward()
print(w.grad)
print(b.grad)

z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)

z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")
