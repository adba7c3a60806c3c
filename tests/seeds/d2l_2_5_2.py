import torch

x = torch.arange(4.0, requires_grad=True)
x.grad = torch.zeros(4)
x.grad.zero_()
y = x * x
y.sum().backward()
print((y, y.sum(), x.grad))

m = torch.tensor([[2., 3.], [6., 7.], [4., 1.]], requires_grad=True)
n = torch.zeros(m.shape[0], m.shape[1])
for i in range(m.shape[0]):
    n[i][0] = m[i][0] ** 2 + 3 * m[i][1]
    n[i][1] = 2 * m[i][0] + m[i][1] ** 2
print(n)
n.backward(torch.Tensor([[1, 0], [1, 0], [1, 0]]), retain_graph=True)
grad1 = m.grad.clone()
m.grad.zero_()
n.backward(torch.Tensor([[0, 1], [0, 1], [0, 1]]), retain_graph=True)
print(torch.stack((grad1, m.grad)))

m = torch.tensor([[2., 6., 4.], [3., 7., 1.]], requires_grad=True)
n = torch.zeros(m.shape[0], m.shape[1])
n[0] = m[0] ** 2 + 3 * m[1]
n[1] = 2 * m[0] + m[1] ** 2
print(n)
n.backward(torch.Tensor([[1, 1, 1], [0, 0, 0]]), retain_graph=True)
grad1 = m.grad.clone()
m.grad.zero_()
n.backward(torch.Tensor([[0, 0, 0], [1, 1, 1]]), retain_graph=True)
print(torch.stack((grad1, m.grad), dim=0))
