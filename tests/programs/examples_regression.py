# Corpus program modelled on pytorch/examples regression/main.py
# (commit 77f55b912142e11fcfdf5b530231fb9c52f181e8, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
from itertools import count

import torch
import torch.nn.functional as F

import _corpus

POLY_DEGREE = 4
W_target = _corpus.randn(POLY_DEGREE, 1, seed=0) * 5  # tensorgrad-corpus: seeded numpy data for torch.randn(POLY_DEGREE, 1)
b_target = _corpus.randn(1, seed=1) * 5  # tensorgrad-corpus: seeded numpy data for torch.randn(1)


def make_features(x):
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    result = 'y = '
    for i, w in enumerate(W):
        result += '{:+.2f} x^{} '.format(w, i + 1)
    result += '{:+.2f}'.format(b[0])
    return result


def get_batch(batch_size=32, seed=0):
    random = _corpus.randn(batch_size, seed=seed)  # tensorgrad-corpus: seeded numpy data for torch.randn(batch_size), a new seed per batch
    x = make_features(random)
    y = f(x)
    return x, y


fc = torch.nn.Linear(W_target.size(0), 1)
_corpus.init_(fc, seed=2)  # tensorgrad-corpus: the same initial weights under both libraries

for batch_idx in count(1):
    batch_x, batch_y = get_batch(seed=100 + batch_idx)
    fc.zero_grad()
    output = F.smooth_l1_loss(fc(batch_x), batch_y)
    loss = output.item()
    output.backward()
    for param in fc.parameters():
        param.data.add_(-0.1 * param.grad)
    if loss < 1e-3 or batch_idx == 100:  # tensorgrad-corpus: at most 100 batches
        break

print('Loss: {:.6f} after {} batches'.format(loss, batch_idx))
print('==> Learned function:\t' + poly_desc(fc.weight.view(-1), fc.bias))
print('==> Actual function:\t' + poly_desc(W_target.view(-1), b_target))
