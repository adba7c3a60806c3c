import torch as t

with t.no_grad():
    x = t.ones(1)
    w = t.rand(1, requires_grad=True)
    y = x * w
    print(x.requires_grad, w.requires_grad, y.requires_grad)
t.set_grad_enabled(False)
print(t.is_grad_enabled())
t.set_grad_enabled(True)
print(t.is_grad_enabled())
