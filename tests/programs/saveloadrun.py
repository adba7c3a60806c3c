# Corpus program modelled on pytorch/tutorials beginner_source/basics/saveloadrun_tutorial.py
# (commit 71d9f09f5706a0980f6b673e7377a7e624f6edf5, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
from torch import nn

import _corpus


# tensorgrad-corpus: torchvision's pretrained vgg16 (a download) replaced by a small conv net
class SmallVGG(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        self.classifier = nn.Sequential(nn.Linear(16 * 2 * 2, 32), nn.ReLU(True), nn.Dropout(), nn.Linear(32, 10))

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


model = SmallVGG()
_corpus.init_(model)  # tensorgrad-corpus: stands in for the pretrained weights
torch.save(model.state_dict(), 'model_weights.pth')

model = SmallVGG()
model.load_state_dict(torch.load('model_weights.pth', weights_only=True))
model.eval()

x = _corpus.randn(2, 3, 16, 16, seed=1)  # tensorgrad-corpus: an input to show the loaded model works
print(model(x))

torch.save(model, 'model.pth')
model = torch.load('model.pth', weights_only=False)
print(model)
print(model(x))
