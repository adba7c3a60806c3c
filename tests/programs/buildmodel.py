# Corpus program modelled on pytorch/tutorials beginner_source/basics/buildmodel_tutorial.py
# (commit c53e7d4efc0e39e455c531d21ec7db28ba220214, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
from torch import nn

import _corpus

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")


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


model = NeuralNetwork().to(device)
_corpus.init_(model)  # tensorgrad-corpus: the same initial weights under both libraries
print(model)

X = _corpus.rand(1, 28, 28, seed=1)  # tensorgrad-corpus: seeded numpy data for torch.rand(1, 28, 28)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")

input_image = _corpus.rand(3, 28, 28, seed=2)  # tensorgrad-corpus: seeded numpy data for torch.rand(3, 28, 28)
print(input_image.size())

flatten = nn.Flatten()
flat_image = flatten(input_image)
print(flat_image.size())

layer1 = nn.Linear(in_features=28 * 28, out_features=20)
_corpus.init_(layer1, seed=3)  # tensorgrad-corpus: the same initial weights under both libraries
hidden1 = layer1(flat_image)
print(hidden1.size())

print(f"Before ReLU: {hidden1}\n\n")
hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {hidden1}")

seq_modules = nn.Sequential(flatten, layer1, nn.ReLU(), nn.Linear(20, 10))
_corpus.init_(seq_modules[3], seed=4)  # tensorgrad-corpus: the same initial weights under both libraries
input_image = _corpus.rand(3, 28, 28, seed=5)  # tensorgrad-corpus: seeded numpy data for torch.rand(3, 28, 28)
logits = seq_modules(input_image)

softmax = nn.Softmax(dim=1)
pred_probab = softmax(logits)
print(pred_probab)

print(f"Model structure: {model}\n\n")
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
