"""The DataLoader: iterate over a dataset in (optionally shuffled) batches.

Batches are built in the calling process: ``num_workers`` is accepted for compatibility and
does not start worker processes (the order and the batches are the same as PyTorch's with
workers).
"""

from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler
from ._collate import default_collate, default_convert


class _InfiniteConstantSampler:
    """The sampler of an IterableDataset: the loader ignores the indices."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Batches of samples from ``dataset``.

    Arguments:
      dataset: a map-style Dataset (``__getitem__``/``__len__``) or an IterableDataset.
      batch_size: samples per batch (None turns batching off: samples are only converted).
      shuffle: a new random order each epoch (drawn from ``generator``, or from the global
        generator, so ``manual_seed`` makes it reproducible).
      sampler / batch_sampler: custom index orders (exclusive with ``shuffle``).
      drop_last: drop a last batch smaller than ``batch_size``.
      collate_fn: turns a list of samples into a batch (default: ``default_collate``).

    >>> import tensorgrad as torch
    >>> from tensorgrad.utils.data import DataLoader, TensorDataset
    >>> loader = DataLoader(TensorDataset(torch.arange(5)), batch_size=2)
    >>> [b[0].tolist() for b in loader]
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if isinstance(shuffle, bool) and shuffle:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self.batch_sampler if self._auto_collation else self.sampler)

    def __iter__(self):
        if self._iterable:
            return self._iter_iterable()
        return self._iter_map()

    def _fetch(self, indices):
        dataset = self.dataset
        if type(dataset) is TensorDataset and self.collate_fn is default_collate:
            # rows gathered at once give the same batch as stacking the samples one by one
            return [t[indices] for t in dataset.tensors]
        getitems = getattr(dataset, "__getitems__", None)
        samples = getitems(indices) if callable(getitems) else [dataset[i] for i in indices]
        return self.collate_fn(samples)

    def _iter_map(self):
        if self._auto_collation:
            for indices in self.batch_sampler:
                yield self._fetch(indices)
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def _iter_iterable(self):
        samples = iter(self.dataset)
        if not self._auto_collation:
            for sample in samples:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in samples:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)
