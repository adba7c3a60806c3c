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
try:
    d.backward()
except RuntimeError as e:
    print(type(e).__name__, e)


def g(x):
    if x < 1:
        return x + 1
    else:
        return 2 * x


x = torch.tensor(1., requires_grad=True)
g1 = g(x)
g1.backward()
print(x.grad)


def h(x):
    return abs(x)


x1 = torch.tensor(0., requires_grad=True)
x2 = torch.tensor(1., requires_grad=True)
h1 = h(x1)
h2 = h(x2)
h1.backward()
h2.backward()
print((x1.grad, x2.grad))

x = torch.arange(-6.5, 6.5, 0.1, requires_grad=True)
y = torch.sin(x)
y.sum().backward()
xs = x.detach().numpy()
ys = y.detach().numpy()
gs = x.grad.detach().numpy()
print(xs.shape, ys.shape, gs.shape, xs.dtype)
print(x[:5], y[-3:], x.grad[60:66])
