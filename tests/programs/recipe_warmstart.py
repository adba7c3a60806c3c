# Corpus program modelled on pytorch/tutorials recipes_source/recipes/warmstarting_model_using_parameters_from_a_different_model.py
# (commit 1291d4b5471ed9ba38dbd4cf61a3bf0a8c0cb4c3, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
import torch.nn as nn
import torch.nn.functional as F

import _corpus


class NetA(nn.Module):
    def __init__(self):
        super(NetA, self).__init__()
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


netA = NetA()
_corpus.init_(netA)  # tensorgrad-corpus: the same initial weights under both libraries


class NetB(nn.Module):
    def __init__(self):
        super(NetB, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
        self.fc4 = nn.Linear(10, 2)  # tensorgrad-corpus: an extra layer so that strict=False has a missing key to report

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


netB = NetB()

PATH = "model.pt"
torch.save(netA.state_dict(), PATH)
result = netB.load_state_dict(torch.load(PATH, weights_only=True), strict=False)
print(result)  # tensorgrad-corpus: print what strict=False left out
print(result.missing_keys, result.unexpected_keys)

x = _corpus.randn(2, 3, 32, 32, seed=1)  # tensorgrad-corpus: show that netB now computes what netA does
print(torch.equal(netA(x), netB(x)), netB(x))
try:
    netB.load_state_dict(netA.state_dict())
except RuntimeError as error:  # tensorgrad-corpus: and what strict loading says
    print(type(error).__name__, str(error).splitlines()[0])
