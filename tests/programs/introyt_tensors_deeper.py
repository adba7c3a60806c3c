# Corpus program modelled on pytorch/tutorials beginner_source/introyt/tensors_deeper_tutorial.py
# (commit ef26e61a99db1fc39331898a14e93beba8e3ab93, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import math

import torch

import _corpus

x = torch.empty(3, 4)
print(type(x), x.shape)  # tensorgrad-corpus: not the uninitialised values
zeros = torch.zeros(2, 3)
print(zeros)
ones = torch.ones(2, 3)
print(ones)
random = _corpus.rand(2, 3, seed=1729)  # tensorgrad-corpus: seeded numpy data for torch.rand(2, 3) after torch.manual_seed(1729)
print(random)

x = torch.empty(2, 2, 3)
print(x.shape)
empty_like_x = torch.empty_like(x)
print(empty_like_x.shape)
zeros_like_x = torch.zeros_like(x)
print(zeros_like_x.shape)
print(zeros_like_x)
ones_like_x = torch.ones_like(x)
print(ones_like_x)
rand_like_x = torch.rand_like(x)
print(rand_like_x.shape)

some_constants = torch.tensor([[3.1415926, 2.71828], [1.61803, 0.0072897]])
print(some_constants)
some_integers = torch.tensor((2, 3, 5, 7, 11, 13, 17, 19))
print(some_integers)
more_integers = torch.tensor(((2, 4, 6), [3, 6, 9]))
print(more_integers)

a = torch.ones((2, 3), dtype=torch.int16)
print(a)
b = _corpus.rand((2, 3), seed=2, dtype=torch.float64) * 20.  # tensorgrad-corpus: seeded numpy data for torch.rand((2, 3), dtype=torch.float64)
print(b)
c = b.to(torch.int32)
print(c)

ones = torch.zeros(2, 2) + 1
twos = torch.ones(2, 2) * 2
threes = (torch.ones(2, 2) * 7 - 1) / 2
fours = twos ** 2
sqrt2s = twos ** 0.5
print(ones, twos, threes, fours, sqrt2s, sep="\n")

powers2 = twos ** torch.tensor([[1, 2], [3, 4]])
print(powers2)
fives = ones + fours
print(fives)
dozens = threes * fours
print(dozens)

a = torch.rand(2, 3)
b = torch.rand(3, 2)
try:
    print(a * b)
except RuntimeError as error:  # tensorgrad-corpus: the tutorial shows this error; print its type and message
    print(type(error).__name__, error)

rand = _corpus.rand(2, 4, seed=3)  # tensorgrad-corpus: seeded numpy data for torch.rand(2, 4)
doubled = rand * (torch.ones(1, 4) * 2)
print(rand)
print(doubled)

a = torch.ones(4, 3, 2)
b = a * _corpus.rand(3, 2, seed=4)
print(b)
c = a * _corpus.rand(3, 1, seed=5)
print(c)
d = a * _corpus.rand(1, 2, seed=6)
print(d)

a = torch.rand(4, 3, 2)
for other in (torch.rand(4, 3), torch.rand(2, 3), torch.rand((0, ))):  # tensorgrad-corpus: the three broadcasting failures, each caught
    try:
        b = a * other
    except RuntimeError as error:
        print(type(error).__name__, error)

a = _corpus.rand(2, 4, seed=7) * 2 - 1
print('Common functions:')
print(torch.abs(a))
print(torch.ceil(a))
print(torch.floor(a))
print(torch.clamp(a, -0.5, 0.5))

angles = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
sines = torch.sin(angles)
inverses = torch.asin(sines)
print('\nSine and arcsine:')
print(angles)
print(sines)
print(inverses)

print('\nBitwise XOR:')
b = torch.tensor([1, 5, 11])
c = torch.tensor([2, 7, 10])
print(torch.bitwise_xor(b, c))

print('\nBroadcasted, element-wise equality comparison:')
d = torch.tensor([[1., 2.], [3., 4.]])
e = torch.ones(1, 2)
print(torch.eq(d, e))

print('\nReduction ops:')
print(torch.max(d))
print(torch.max(d).item())
print(torch.mean(d))
print(torch.std(d))
print(torch.prod(d))
print(torch.unique(torch.tensor([1, 2, 1, 2, 1, 2])))

v1 = torch.tensor([1., 0., 0.])
v2 = torch.tensor([0., 1., 0.])
m1 = _corpus.rand(2, 2, seed=8)
m2 = torch.tensor([[3., 0.], [0., 3.]])

print('\nVectors & Matrices:')
print(torch.linalg.cross(v2, v1))
print(m1)
m3 = torch.linalg.matmul(m1, m2)
print(m3)
print(torch.linalg.svd(m3).S)  # tensorgrad-corpus: the singular values only (the vectors' signs are arbitrary)

a = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print('a:')
print(a)
print(torch.sin(a))
print(a)

b = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print('\nb:')
print(b)
print(torch.sin_(b))
print(b)

a = torch.ones(2, 2)
b = _corpus.rand(2, 2, seed=9)
print('Before:')
print(a)
print(b)
print('\nAfter adding:')
print(a.add_(b))
print(a)
print(b)
print('\nAfter multiplying')
print(b.mul_(b))
print(b)

a = _corpus.rand(2, 2, seed=10)
b = _corpus.rand(2, 2, seed=11)
c = torch.zeros(2, 2)
old_id = id(c)
print(c)
d = torch.matmul(a, b, out=c)
print(c)
assert c is d
assert id(c) == old_id
torch.rand(2, 2, out=c)
print(c.shape)  # tensorgrad-corpus: rand's values differ between the libraries
assert id(c) == old_id

a = torch.ones(2, 2)
b = a
a[0][1] = 561
print(b)

a = torch.ones(2, 2)
b = a.clone()
assert b is not a
print(torch.eq(a, b))
a[0][1] = 561
print(b)

a = _corpus.rand(2, 2, seed=12).requires_grad_()
print(a)
b = a.clone()
print(b)
c = a.detach().clone()
print(c)
print(a)

a = torch.ones(2, 2)
print(a)
b = torch.zeros_like(a)
print(b)
print(b.copy_(_corpus.rand(2, 2, seed=13)))

a = torch.rand(3, 226, 226)
b = a.unsqueeze(0)
print(a.shape)
print(b.shape)
c = torch.rand(1, 1, 1, 1, 1)
print(c.shape)  # tensorgrad-corpus: not rand's values
a = torch.rand(1, 20)
print(a.shape)
b = a.squeeze(0)
print(b.shape)
c = torch.rand(2, 2)
print(c.shape)
d = c.squeeze(0)
print(d.shape)

a = torch.ones(4, 3, 2)
c = a * torch.rand(3, 1)
print(c.shape)
a = torch.ones(4, 3, 2)
b = torch.rand(3)
c = b.unsqueeze(1)
print(c.shape)
print((a * c).shape)  # tensorgrad-corpus: the shape, not rand's values

batch_me = torch.rand(3, 226, 226)
print(batch_me.shape)
batch_me.unsqueeze_(0)
print(batch_me.shape)

output3d = torch.rand(6, 20, 20)
print(output3d.shape)
input1d = output3d.reshape(6 * 20 * 20)
print(input1d.shape)
print(torch.reshape(output3d, (6 * 20 * 20,)).shape)

import numpy as np  # noqa: E402

numpy_array = np.ones((2, 3))
print(numpy_array)
pytorch_tensor = torch.from_numpy(numpy_array)
print(pytorch_tensor)
pytorch_rand = _corpus.rand(2, 3, seed=14)
numpy_rand = pytorch_rand.numpy()
print(pytorch_rand)
print(numpy_rand)
numpy_array[1, 1] = 23
print(pytorch_tensor)
pytorch_rand[1, 1] = 17
print(numpy_rand)
