# Corpus program modelled on pytorch/tutorials beginner_source/blitz/autograd_tutorial.py
# (commit 56d1da96ef0e5acf5187d89c27d6ca6178170bc5, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
from torch import nn, optim

import _corpus


# tensorgrad-corpus: torchvision's pretrained resnet18 (a download) replaced by a small conv net
# with a resnet-like `fc` head
class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, 1000)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        return self.fc(torch.flatten(self.avgpool(x), 1))


model = _corpus.init_(TinyResNet())  # tensorgrad-corpus: the same initial weights under both libraries
data = _corpus.rand(1, 3, 64, 64, seed=1)  # tensorgrad-corpus: seeded numpy data for torch.rand(1, 3, 64, 64)
labels = _corpus.rand(1, 1000, seed=2)  # tensorgrad-corpus: seeded numpy data for torch.rand(1, 1000)

prediction = model(data)
loss = (prediction - labels).sum()
loss.backward()
optim_ = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
optim_.step()
print(f"{loss.item():.4f}", model.fc.weight[0, :4])

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9 * a ** 2 == a.grad)
print(-2 * b == b.grad)

x = _corpus.rand(5, 5, seed=3)  # tensorgrad-corpus: seeded numpy data for torch.rand(5, 5)
y = _corpus.rand(5, 5, seed=4)
z = _corpus.rand(5, 5, seed=5).requires_grad_()
a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")

model = _corpus.init_(TinyResNet())  # tensorgrad-corpus: the same initial weights under both libraries
for param in model.parameters():
    param.requires_grad = False
model.fc = nn.Linear(8, 10)
_corpus.init_(model.fc, seed=6)  # tensorgrad-corpus: the same initial weights under both libraries
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
out = model(data).sum()
out.backward()
optimizer.step()
print([name for name, p in model.named_parameters() if p.grad is not None])
print(model.conv1.weight.grad, model.fc.bias)
