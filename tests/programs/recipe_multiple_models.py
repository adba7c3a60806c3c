# Corpus program modelled on pytorch/tutorials recipes_source/recipes/saving_multiple_models_in_one_file.py
# (commit 39784aabea64449d046263eb4de22c34c24b408b, BSD-3-Clause; see LICENSE-NOTICE.md):
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


netA = _corpus.init_(Net(), seed=0)  # tensorgrad-corpus: the same initial weights under both libraries
netB = _corpus.init_(Net(), seed=1)
optimizerA = optim.SGD(netA.parameters(), lr=0.001, momentum=0.9)
optimizerB = optim.Adam(netB.parameters(), lr=0.001)  # tensorgrad-corpus: Adam for B, so the file holds two optimizers' kinds of state

x = _corpus.randn(2, 3, 32, 32, seed=2)  # tensorgrad-corpus: one step each, so the optimizers have state
for net, opt in ((netA, optimizerA), (netB, optimizerB)):
    opt.zero_grad()
    net(x).pow(2).mean().backward()
    opt.step()

PATH = "model.pt"
torch.save({
    'modelA_state_dict': netA.state_dict(),
    'modelB_state_dict': netB.state_dict(),
    'optimizerA_state_dict': optimizerA.state_dict(),
    'optimizerB_state_dict': optimizerB.state_dict(),
}, PATH)

modelA = Net()
modelB = Net()
optimModelA = optim.SGD(modelA.parameters(), lr=0.001, momentum=0.9)
optimModelB = optim.Adam(modelB.parameters(), lr=0.001)

checkpoint = torch.load(PATH, weights_only=True)
modelA.load_state_dict(checkpoint['modelA_state_dict'])
modelB.load_state_dict(checkpoint['modelB_state_dict'])
optimModelA.load_state_dict(checkpoint['optimizerA_state_dict'])
optimModelB.load_state_dict(checkpoint['optimizerB_state_dict'])

modelA.eval()
modelB.eval()
print(modelA(x))
print(modelB(x))
print(optimModelB.state_dict()['state'][0]['step'], optimModelB.state_dict()['param_groups'][0]['betas'])
print(optimModelB.state_dict()['state'][9]['exp_avg_sq'])
