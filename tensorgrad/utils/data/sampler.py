"""Samplers: the order in which a DataLoader visits a map-style dataset's indices."""

import itertools
from typing import Generic, TypeVar

from ... import _dtype
from ..._api.creation import as_tensor
from ..._api.random import Generator, multinomial, randint, randperm, default_generator

_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class: an iterable of dataset indices (or of lists of indices, for batch samplers).

    Like PyTorch's (since 2.2) it takes no constructor arguments.
    """

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Indices ``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _draw_generator(generator):
    """The generator to draw an epoch's order from: the given one, or a fresh one seeded from
    the global generator (so ``manual_seed`` makes shuffling reproducible)."""
    if generator is not None:
        return generator
    seed = int(randint(0, 2 ** 62, (), generator=default_generator).item())
    return Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """A random permutation of the indices (or ``num_samples`` draws with replacement)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = _draw_generator(self.generator)
        if self.replacement:
            yield from randint(0, n, (self.num_samples,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    replacement by default), from ``generator`` or the global generator.

    >>> import tensorgrad as torch
    >>> from tensorgrad.utils.data import WeightedRandomSampler
    >>> list(WeightedRandomSampler([0.0, 1.0, 0.0], 3))
    [1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = as_tensor(weights, dtype=_dtype.float64)
        if len(weights.shape) != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from iter(multinomial(self.weights, self.num_samples, self.replacement,
                                    generator=self.generator).tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Group another sampler's indices into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        while True:
            batch = list(itertools.islice(indices, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
