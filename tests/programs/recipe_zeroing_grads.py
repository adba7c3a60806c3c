# Corpus program modelled on pytorch/tutorials recipes_source/recipes/zeroing_out_gradients.py
# (commit ef26e61a99db1fc39331898a14e93beba8e3ab93, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

import _corpus

# tensorgrad-corpus: CIFAR10 (a download) replaced by 32 seeded synthetic images
images = _corpus.rand(32, 3, 32, 32, seed=0) * 2 - 1
labels = _corpus.randint(0, 10, (32,), seed=1)
trainloader = DataLoader(TensorDataset(images, labels), batch_size=4, shuffle=False, num_workers=0)  # tensorgrad-corpus: no shuffling, no workers


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
_corpus.init_(net)  # tensorgrad-corpus: the same initial weights under both libraries
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 4 == 3:  # tensorgrad-corpus: every 4 mini-batches instead of 2000
            print('[%d, %5d] loss: %.3f' % (epoch + 1, i + 1, running_loss / 4))  # tensorgrad-corpus: the mean of 4
            running_loss = 0.0

print('Finished Training')
print(net.conv1.weight.grad is None, net.fc3.bias.grad)  # tensorgrad-corpus: the last step's gradients
optimizer.zero_grad()
print(net.fc3.bias.grad)  # tensorgrad-corpus: zero_grad sets them to None
