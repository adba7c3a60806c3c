"""``tensorgrad.utils.data``: datasets, samplers and the DataLoader."""

from .dataset import (
    Dataset as Dataset, IterableDataset as IterableDataset, TensorDataset as TensorDataset,
    StackDataset as StackDataset, ConcatDataset as ConcatDataset, ChainDataset as ChainDataset,
    Subset as Subset, random_split as random_split,
)
from .sampler import (
    Sampler as Sampler, SequentialSampler as SequentialSampler, RandomSampler as RandomSampler,
    SubsetRandomSampler as SubsetRandomSampler, BatchSampler as BatchSampler,
    WeightedRandomSampler as WeightedRandomSampler,
)
from .dataloader import DataLoader as DataLoader
from ._worker import get_worker_info as get_worker_info
from ._collate import default_collate as default_collate, default_convert as default_convert

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler", "DataLoader", "get_worker_info", "default_collate", "default_convert"]
