import torch


def f(a):
    b = a * 2
    while b.norm() < 1000:
        b *= 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
print((a, d, a.grad))
print(a.grad == d / a)

a = torch.randn(size=(1, 4), requires_grad=True)
d = f(a)
d.sum().backward()
print((a, d, a.grad, a.grad == d / a))

a = torch.randn(size=(3, 4), requires_grad=True)
d = f(a)
d.sum().backward()
print((a, d, a.grad, a.grad == d / a))
