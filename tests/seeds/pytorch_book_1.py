import torch as t

a = t.randn(3, 4, requires_grad=True)
a = t.randn(3, 4).requires_grad_()
a = t.randn(3, 4)
a.requires_grad = True
b = t.zeros(3, 4).requires_grad_()
c = a.add(b)
d = c.sum()
d.backward()
print(d.requires_grad)
print(a.requires_grad, b.requires_grad, c.requires_grad)
print(a.is_leaf, b.is_leaf, c.is_leaf)
print(c.grad is None)
