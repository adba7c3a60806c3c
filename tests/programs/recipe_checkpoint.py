# Corpus program modelled on pytorch/tutorials recipes_source/recipes/saving_and_loading_a_general_checkpoint.py
# (commit 68067f2f60ec60ae243dde00d68164cdea53c755, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

import _corpus


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
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

# tensorgrad-corpus: a few training steps on seeded data so the checkpoint holds momentum buffers
inputs, labels = _corpus.randn(4, 3, 32, 32, seed=1), _corpus.randint(0, 10, (4,), seed=2)
for _ in range(3):
    optimizer.zero_grad()
    loss = F.cross_entropy(net(inputs), labels)
    loss.backward()
    optimizer.step()

EPOCH = 5
PATH = "model.pt"
LOSS = 0.4

torch.save({
    'epoch': EPOCH,
    'model_state_dict': net.state_dict(),
    'optimizer_state_dict': optimizer.state_dict(),
    'loss': LOSS,
}, PATH)

model = Net()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)

checkpoint = torch.load(PATH, weights_only=True)
model.load_state_dict(checkpoint['model_state_dict'])
optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
epoch = checkpoint['epoch']
loss = checkpoint['loss']
print(epoch, loss, sorted(checkpoint))

model.eval()
print(model(inputs))
model.train()
optimizer.zero_grad()  # tensorgrad-corpus: one resumed step, so the loaded momentum shows
F.cross_entropy(model(inputs), labels).backward()
optimizer.step()
print(optimizer.state_dict()['state'][0]['momentum_buffer'][0, 0, 0])
print(model(inputs))
