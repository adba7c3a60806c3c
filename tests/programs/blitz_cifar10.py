# Corpus program modelled on pytorch/tutorials beginner_source/blitz/cifar10_tutorial.py
# (commit c53e7d4efc0e39e455c531d21ec7db28ba220214, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

import _corpus

# tensorgrad-corpus: CIFAR10 (a download) replaced by seeded synthetic 32x32 images whose class
# is a function of the image; 32 training and 16 test images instead of 50000/10000
def synthetic_cifar(n, seed):
    images = _corpus.rand(n, 3, 32, 32, seed=seed) * 2 - 1       # normalised to [-1, 1] like the transform
    labels = (images[:, 0].mean(dim=(1, 2)) * 1000).long() % 10
    return TensorDataset(images, labels)


batch_size = 4
trainset = synthetic_cifar(32, seed=0)
trainloader = DataLoader(trainset, batch_size=batch_size, shuffle=False, num_workers=0)  # tensorgrad-corpus: no shuffling (its streams differ), no workers
testset = synthetic_cifar(16, seed=1)
testloader = DataLoader(testset, batch_size=batch_size, shuffle=False, num_workers=0)  # tensorgrad-corpus: no workers

classes = ('plane', 'car', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck')

dataiter = iter(trainloader)
images, labels = next(dataiter)
print(' '.join(f'{classes[labels[j]]:5s}' for j in range(batch_size)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
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
            print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 4:.3f}')  # tensorgrad-corpus: the mean of 4
            running_loss = 0.0
print('Finished Training')

PATH = './cifar_net.pth'
torch.save(net.state_dict(), PATH)

dataiter = iter(testloader)
images, labels = next(dataiter)
print('GroundTruth: ', ' '.join(f'{classes[labels[j]]:5s}' for j in range(4)))
net = Net()
net.load_state_dict(torch.load(PATH, weights_only=True))
outputs = net(images)
_, predicted = torch.max(outputs, 1)
print('Predicted: ', ' '.join(f'{classes[predicted[j]]:5s}' for j in range(4)))

correct = 0
total = 0
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
print(f'Accuracy of the network on the {total} test images: {100 * correct // total} %')

correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predictions = torch.max(outputs, 1)
        for label, prediction in zip(labels, predictions):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1
for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / max(total_pred[classname], 1)  # tensorgrad-corpus: a class may be absent from the small test set
    print(f'Accuracy for class: {classname:5s} is {accuracy:.1f} %')
