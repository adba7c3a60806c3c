# Corpus program modelled on pytorch/examples dcgan/main.py
# (commit 77f55b912142e11fcfdf5b530231fb9c52f181e8, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data
from torch.utils.data import DataLoader, TensorDataset

import _corpus

# tensorgrad-corpus: the image dataset (a download) replaced by 16 seeded 16x16 images in [-1, 1],
# and the networks shrunk from 64x64 images (ngf=ndf=64, nz=100) to 16x16 (ngf=ndf=8, nz=10)
nz, ngf, ndf, nc = 10, 8, 8, 3
batchSize, niter, lr, beta1 = 4, 1, 0.0002, 0.5
dataset = TensorDataset(_corpus.rand(16, nc, 16, 16, seed=0) * 2 - 1, torch.zeros(16))
dataloader = DataLoader(dataset, batch_size=batchSize, shuffle=False)  # tensorgrad-corpus: no shuffling
device = torch.device("cpu")


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        m.weight.data.copy_(_corpus.randn(*m.weight.shape, seed=1) * 0.02)  # tensorgrad-corpus: seeded numpy data for normal_(0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        m.weight.data.copy_(1.0 + _corpus.randn(*m.weight.shape, seed=2) * 0.02)  # tensorgrad-corpus: seeded numpy data for normal_(1.0, 0.02)
        m.bias.data.fill_(0)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh()
        )

    def forward(self, input):
        return self.main(input)


netG = Generator().to(device)
netG.apply(weights_init)
print(netG)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid()
        )

    def forward(self, input):
        output = self.main(input)
        return output.view(-1, 1).squeeze(1)


netD = Discriminator().to(device)
netD.apply(weights_init)
print(netD)

criterion = nn.BCELoss()
fixed_noise = _corpus.randn(batchSize, nz, 1, 1, seed=3)  # tensorgrad-corpus: seeded numpy data for torch.randn(batchSize, nz, 1, 1)
real_label = 1
fake_label = 0

optimizerD = optim.Adam(netD.parameters(), lr=lr, betas=(beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=lr, betas=(beta1, 0.999))

for epoch in range(niter):
    for i, data in enumerate(dataloader, 0):
        netD.zero_grad()
        real_cpu = data[0].to(device)
        batch_size = real_cpu.size(0)
        label = torch.full((batch_size,), real_label, dtype=real_cpu.dtype, device=device)
        output = netD(real_cpu)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()

        noise = _corpus.randn(batch_size, nz, 1, 1, seed=10 + i)  # tensorgrad-corpus: seeded numpy data for torch.randn(batch_size, nz, 1, 1)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()

        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()

        print('[%d/%d][%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f'
              % (epoch, niter, i, len(dataloader), errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
    fake = netG(fixed_noise)
    print(fake.shape, f"{fake.detach().mean().item():.5f}")  # tensorgrad-corpus: instead of save_image
