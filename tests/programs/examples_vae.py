# Corpus program modelled on pytorch/examples vae/main.py
# (commit 77f55b912142e11fcfdf5b530231fb9c52f181e8, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

import _corpus

torch.manual_seed(1)
device = torch.device("cpu")

# tensorgrad-corpus: MNIST (a download) replaced by 64 seeded synthetic images in [0, 1]
train_loader = DataLoader(TensorDataset(_corpus.rand(64, 1, 28, 28, seed=0), torch.zeros(64)), batch_size=16, shuffle=False)  # tensorgrad-corpus: no shuffling
test_loader = DataLoader(TensorDataset(_corpus.rand(32, 1, 28, 28, seed=1), torch.zeros(32)), batch_size=16, shuffle=False)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)
        self.noise_seed = 0  # tensorgrad-corpus: the reparameterisation noise comes from numpy

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        self.noise_seed += 1
        eps = _corpus.randn(*std.shape, seed=self.noise_seed)  # tensorgrad-corpus: seeded numpy data for torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE().to(device)
_corpus.init_(model)  # tensorgrad-corpus: the same initial weights under both libraries
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % 2 == 0:  # tensorgrad-corpus: every 2 batches instead of 10
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader),
                loss.item() / len(data)))
    print('====> Epoch: {} Average loss: {:.4f}'.format(epoch, train_loss / len(train_loader.dataset)))


def test(epoch):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            data = data.to(device)
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
            if i == 0:
                n = min(data.size(0), 8)
                comparison = torch.cat([data[:n], recon_batch.view(16, 1, 28, 28)[:n]])
                print(comparison.shape, f"{comparison.mean().item():.5f}")  # tensorgrad-corpus: instead of save_image
    test_loss /= len(test_loader.dataset)
    print('====> Test set loss: {:.4f}'.format(test_loss))


if __name__ == "__main__":
    for epoch in range(1, 3):  # tensorgrad-corpus: 2 epochs instead of 10
        train(epoch)
        test(epoch)
        with torch.no_grad():
            sample = _corpus.randn(64, 20, seed=1000 + epoch).to(device)  # tensorgrad-corpus: seeded numpy data for torch.randn(64, 20)
            sample = model.decode(sample).cpu()
            print(sample.view(64, 1, 28, 28).shape, f"{sample.mean().item():.5f}")  # tensorgrad-corpus: instead of save_image
