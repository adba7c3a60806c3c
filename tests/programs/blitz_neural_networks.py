# Corpus program modelled on pytorch/tutorials beginner_source/blitz/neural_networks_tutorial.py
# (commit 7a017bba463ba73cfd9d48aabc7e05827a680906, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

import _corpus


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        output = self.fc3(f6)
        return output


net = Net()
_corpus.init_(net)  # tensorgrad-corpus: the same initial weights under both libraries
print(net)

params = list(net.parameters())
print(len(params))
print(params[0].size())

input = _corpus.randn(1, 1, 32, 32, seed=1)  # tensorgrad-corpus: seeded numpy data for torch.randn(1, 1, 32, 32)
out = net(input)
print(out)

net.zero_grad()
out.backward(_corpus.randn(1, 10, seed=2))  # tensorgrad-corpus: seeded numpy data for torch.randn(1, 10)

output = net(input)
target = _corpus.randn(10, seed=3)  # tensorgrad-corpus: seeded numpy data for torch.randn(10)
target = target.view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss)

print(loss.grad_fn)
print(loss.grad_fn.next_functions[0][0])
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])

net.zero_grad()
print('conv1.bias.grad before backward')
print(net.conv1.bias.grad)
loss.backward()
print('conv1.bias.grad after backward')
print(net.conv1.bias.grad)

learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)

optimizer = optim.SGD(net.parameters(), lr=0.01)
optimizer.zero_grad()
output = net(input)
loss = criterion(output, target)
loss.backward()
optimizer.step()
print(loss, net(input))
