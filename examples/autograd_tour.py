"""A tour of tensorgrad's autograd, written exactly as PyTorch code.

Run: python examples/autograd_tour.py [--device cuda]
"""

import _common

import tensorgrad as torch

_common.select_device(_common.parser(__doc__, out=False).parse_args().device)

# Gradients of y = 2 x.x (d2l 2.5.1)
x = torch.arange(4.0, requires_grad=True)
y = 2 * torch.dot(x, x)
y.backward()
print("y =", y)
print("dy/dx =", x.grad)

# The graph: grad_fn and next_functions
w = torch.tensor([0.5], requires_grad=True)
b = torch.tensor([0.1], requires_grad=True)
z = w * torch.ones(1) + b
print(z.grad_fn, z.grad_fn.next_functions)

# Writing grad-requiring values into a plain tensor records CopySlices (d2l 2.5.2)
m = torch.tensor([[2., 3.], [6., 7.], [4., 1.]], requires_grad=True)
n = torch.zeros(3, 2)
for i in range(3):
    n[i][0] = m[i][0] ** 2 + 3 * m[i][1]
    n[i][1] = 2 * m[i][0] + m[i][1] ** 2
print(n)
n.backward(torch.ones_like(n))
print("dn/dm =", m.grad)

# detach and no_grad cut the graph
u = (x * x).detach()
with torch.no_grad():
    v = x * 2
print(u.requires_grad, v.requires_grad)

# Control flow: the graph is rebuilt on every call (d2l 2.5.4)
torch.manual_seed(0)
a = torch.randn(size=(), requires_grad=True)
d = a * 2
while d.norm() < 1000:
    d *= 2
d.backward()
print("a.grad == d / a:", a.grad == d / a)
