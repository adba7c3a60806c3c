# Corpus program modelled on pytorch/tutorials beginner_source/basics/optimization_tutorial.py
# (commit 802d68671f544c32347a2f1e780b80fcc2d8c9e7, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import _corpus

# tensorgrad-corpus: FashionMNIST (a download) replaced by 256/128 seeded synthetic 28x28 images
# whose label is a function of the image, so that the model can learn something.
def synthetic_fashion(n, seed):
    images = _corpus.rand(n, 1, 28, 28, seed=seed)
    labels = (images.mean(dim=(1, 2, 3)) * 10 * 7).long() % 10
    return TensorDataset(images, labels)


training_data = synthetic_fashion(256, seed=0)
test_data = synthetic_fashion(128, seed=1)

train_dataloader = DataLoader(training_data, batch_size=64)
test_dataloader = DataLoader(test_data, batch_size=64)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
_corpus.init_(model)  # tensorgrad-corpus: the same initial weights under both libraries

learning_rate = 1e-3
batch_size = 64
epochs = 3  # tensorgrad-corpus: 3 epochs instead of 10

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)

        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if batch % 2 == 0:  # tensorgrad-corpus: every 2nd batch instead of every 100th
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0

    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()

    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")
