# Corpus program modelled on pytorch/tutorials beginner_source/basics/data_tutorial.py
# (commit f3392fc931972547d1fb231693e5809667346a5e, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

labels_map = {
    0: "T-Shirt", 1: "Trouser", 2: "Pullover", 3: "Dress", 4: "Coat",
    5: "Sandal", 6: "Shirt", 7: "Sneaker", 8: "Bag", 9: "Ankle Boot",
}


# tensorgrad-corpus: the image files and annotations CSV (a download) replaced by seeded arrays
class CustomImageDataset(Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        rng = np.random.default_rng(0)
        self.images = rng.integers(0, 256, size=(n, 1, 28, 28)).astype(np.uint8)
        self.img_labels = rng.integers(0, 10, size=n)
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.img_labels)

    def __getitem__(self, idx):
        image = torch.from_numpy(self.images[idx])
        label = int(self.img_labels[idx])
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


def to_float(image):          # stands in for torchvision's ToTensor
    return image.float() / 255


def one_hot(y):               # the tutorial's Lambda target transform
    return torch.zeros(10, dtype=torch.float).scatter_(0, torch.tensor(y), value=1)


training_data = CustomImageDataset(100, transform=to_float)
test_data = CustomImageDataset(40, transform=to_float, target_transform=one_hot)

for i in range(3):
    img, label = training_data[i]
    print(labels_map[label], img.shape, img.dtype, f"{img.sum().item():.4f}")

train_dataloader = DataLoader(training_data, batch_size=64, shuffle=False)  # tensorgrad-corpus: shuffle=False (the shuffling streams differ)
test_dataloader = DataLoader(test_data, batch_size=16, shuffle=False)  # tensorgrad-corpus: shuffle=False

train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")
img = train_features[0].squeeze()
label = train_labels[0]
print(img.shape, f"Label: {label}", labels_map[label.item()])

for features, targets in test_dataloader:
    print(features.shape, targets.shape, targets.sum(0))
print(len(train_dataloader), len(test_dataloader), len(test_dataloader.dataset))
