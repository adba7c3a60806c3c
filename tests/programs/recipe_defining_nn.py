# Corpus program modelled on pytorch/tutorials recipes_source/recipes/defining_a_neural_network.py
# (commit 1fba4578a1d9396b06ef21f53d96ec38a19447b9, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
import torch.nn as nn
import torch.nn.functional as F

import _corpus


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.softmax(x, dim=1)
        return output


my_nn = Net()
_corpus.init_(my_nn)  # tensorgrad-corpus: the same initial weights under both libraries
print(my_nn)

random_data = _corpus.rand(1, 1, 28, 28, seed=1)  # tensorgrad-corpus: seeded numpy data for torch.rand((1, 1, 28, 28))
result = my_nn(random_data)
print(result.shape, f"{result.sum().item():.4f}")  # tensorgrad-corpus: dropout masks differ, so only the shape and the softmax sum
my_nn.eval()  # tensorgrad-corpus: and the values with dropout off
print(my_nn(random_data))
