"""The DataLoader: iterate over a dataset in (optionally shuffled) batches.

Batches are built in the calling process. ``num_workers > 0`` runs PyTorch's worker protocol
there (``_worker.py``): batch ``i`` of a map-style dataset is fetched by worker
``i % num_workers``; each worker of an IterableDataset iterates its own copy of the dataset and
the loader takes one batch from each worker in turn, skipping the exhausted ones. So the
batches, their order and what ``get_worker_info()`` and ``worker_init_fn`` see are PyTorch's.
"""

import multiprocessing
import warnings

import jax
import numpy as np

from ..._api.creation import tensor
from ..._api.random import randint
from ..._storage.host import live_array
from ._collate import default_collate, default_convert
from ._worker import Worker
from .dataset import IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler


class _InfiniteConstantSampler:
    """The sampler of an IterableDataset: the loader ignores the indices."""

    def __iter__(self):
        while True:
            yield None


# attributes PyTorch refuses to change once a loader is built
_FIXED = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class DataLoader:
    """Batches of samples from ``dataset``.

    Arguments:
      dataset: a map-style Dataset (``__getitem__``/``__len__``) or an IterableDataset.
      batch_size: samples per batch (None turns batching off: samples are only converted).
      shuffle: a new random order each epoch (drawn from ``generator``, or from the global
        generator, so ``manual_seed`` makes it reproducible).
      sampler / batch_sampler: custom index orders (exclusive with ``shuffle``).
      num_workers: how many workers fetch the batches. They run in the calling process, one
        batch at a time, with PyTorch's assignment of batches to workers, ``worker_init_fn``
        calls, ``get_worker_info()``, per-worker random streams (seeded ``base_seed + id``,
        ``base_seed`` drawn from ``generator`` once per epoch, or once with
        ``persistent_workers``) and, for an IterableDataset, one copy of the dataset per
        worker (``copy.deepcopy``, so it must be copyable, as PyTorch's spawn start method
        needs it picklable). A map-style dataset is shared by the workers, not copied.
      collate_fn: turns a list of samples into a batch (default: ``default_collate``).
      pin_memory: tensorgrad has no pinned host memory, so the batches are the same tensors;
        on a CPU-only backend it warns as PyTorch does without an accelerator.
      drop_last: drop a last batch smaller than ``batch_size``.
      timeout, prefetch_factor, multiprocessing_context, in_order: checked as PyTorch checks
        them; with in-process workers nothing waits, prefetches or starts processes, and the
        batches always come in order (one of the orders ``in_order=False`` allows).
      persistent_workers: the workers (their datasets, random streams and ``worker_init_fn``
        effects) live across epochs, as in PyTorch.

    >>> import tensorgrad as torch
    >>> from tensorgrad.utils.data import DataLoader, TensorDataset
    >>> loader = DataLoader(TensorDataset(torch.arange(5)), batch_size=2)
    >>> [b[0].tolist() for b in loader]
    [[0, 1], [2, 3], [4]]
    """

    __initialized = False

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
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
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
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        """PyTorch's checks; the context is kept but starts nothing (the workers are in process)."""
        if context is not None:
            if self.num_workers == 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers "
                                 f"> 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self.__multiprocessing_context = context

    def __setattr__(self, attr, value):
        if self.__initialized and attr in _FIXED:
            raise ValueError(f"{attr} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(attr, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._iterable:
            n = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = _LoaderIterator(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _LoaderIterator(self)

    def _fetch(self, index):
        """The batch of a map-style dataset at ``index`` (a list of indices when batching)."""
        if not self._auto_collation:
            return self.collate_fn(self.dataset[index])
        dataset = self.dataset
        if self.collate_fn is default_collate:
            batch = _tensor_rows(dataset, index)
            if batch is not None:
                return batch
        getitems = getattr(dataset, "__getitems__", None)
        samples = getitems(index) if callable(getitems) else [dataset[i] for i in index]
        return self.collate_fn(samples)


def _tensor_rows(dataset, index):
    """The default-collated batch at ``index`` of a TensorDataset, or of Subsets of one, as one
    gather of rows per tensor (the same batch as stacking the samples one by one); None for any
    other dataset, or indices that are not Python or NumPy integers. The rows of a tensor over
    memory shared with numpy (``torch.from_numpy(data)``) are read from that memory, at the
    rows' cost."""
    while type(dataset) is Subset:
        indices = dataset.indices
        if not isinstance(indices, (list, tuple, range, np.ndarray)):
            return None
        index = [indices[i] for i in index]
        dataset = dataset.dataset
    if type(dataset) is not TensorDataset or not all(type(i) is int or isinstance(i, np.integer) for i in index):
        return None
    index = [int(i) for i in index]
    batch = []
    for t in dataset.tensors:
        array = live_array(t)
        batch.append(t[index] if array is None or t.requires_grad else tensor(np.take(array, index, axis=0)))
    return batch


class _IterableFetcher:
    """Batches from one pass over an IterableDataset (PyTorch's ``_IterableDatasetFetcher``):
    ``fetch`` raises StopIteration once the stream is spent, or when only a short last batch is
    left under ``drop_last``."""

    def __init__(self, dataset, loader):
        self.iterator = iter(dataset)
        self.batch_size = loader.batch_size if loader._auto_collation else None
        self.collate_fn = loader.collate_fn
        self.drop_last = loader.drop_last
        self.ended = False

    def fetch(self):
        if self.ended:
            raise StopIteration
        if self.batch_size is None:
            return self.collate_fn(next(self.iterator))
        samples = []
        for _ in range(self.batch_size):
            try:
                samples.append(next(self.iterator))
            except StopIteration:
                self.ended = True
                break
        if not samples or (self.drop_last and len(samples) < self.batch_size):
            raise StopIteration
        return self.collate_fn(samples)


def _warn_pin_memory(loader):
    if not loader.pin_memory:
        return
    if loader.pin_memory_device:
        warnings.warn(f"pin_memory_device is deprecated, the current accelerator will be used as the device,ignore "
                      f"pin_memory_device='{loader.pin_memory_device}'.", UserWarning, stacklevel=3)
    if jax.default_backend() == "cpu":
        warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned memory "
                      "won't be used.", UserWarning, stacklevel=3)


class _LoaderIterator:
    """One epoch over a DataLoader (the same object every epoch with persistent workers)."""

    def __init__(self, loader):
        _warn_pin_memory(loader)
        self._loader = loader
        self._sampler_iter = iter(loader._index_sampler)
        self._workers = None
        if loader.num_workers == 0:
            if loader.timeout != 0:
                raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        else:
            base_seed = int(randint(0, 2 ** 63 - 1, (), generator=loader.generator).item())
            self._workers = [Worker(i, loader.num_workers, base_seed, loader.dataset, loader.worker_init_fn,
                                    loader._iterable) for i in range(loader.num_workers)]
        self._start(loader)

    def _reset(self, loader):
        self._sampler_iter = iter(loader._index_sampler)
        self._start(loader)

    def _start(self, loader):
        self._num_yielded = 0
        self._len_called = loader._IterableDataset_len_called
        if not loader._iterable:
            self._batches = self._map_batches(loader)
        elif self._workers is None:
            self._batches = self._stream_batches(_IterableFetcher(loader.dataset, loader))
        else:
            self._batches = self._worker_stream_batches(loader)

    def _map_batches(self, loader):
        for i, index in enumerate(self._sampler_iter):
            if self._workers is None:
                yield loader._fetch(index)
            else:
                yield self._workers[i % len(self._workers)].run(loader._fetch, index)

    @staticmethod
    def _stream_batches(fetcher):
        while True:
            try:
                batch = fetcher.fetch()
            except StopIteration:
                return
            yield batch

    def _worker_stream_batches(self, loader):
        """One batch from each worker in turn, skipping the exhausted ones (PyTorch's order)."""
        fetchers = {}
        active = list(self._workers)
        while active:
            for worker in list(active):
                try:
                    if worker.id not in fetchers:
                        fetchers[worker.id] = worker.run(_IterableFetcher, worker.info.dataset, loader)
                    batch = worker.run(fetchers[worker.id].fetch)
                except StopIteration:
                    active.remove(worker)
                    continue
                yield batch

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader._index_sampler)

    def __next__(self):
        batch = next(self._batches)
        self._num_yielded += 1
        if self._loader._iterable and self._len_called is not None and self._num_yielded > self._len_called:
            message = (f"Length of IterableDataset {self._loader.dataset} was reported to be {self._len_called}"
                       f"(when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._loader.num_workers > 0:
                message += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                            "IterableDataset replica at each worker. Please see "
                            "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warnings.warn(message, UserWarning, stacklevel=2)
        return batch
