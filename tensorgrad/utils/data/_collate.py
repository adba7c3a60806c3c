"""``default_collate`` and ``default_convert``: how a DataLoader turns samples into batches."""

import collections.abc
import re

import numpy as np

from ..._api.creation import as_tensor, tensor as _tensor
from ..._api.joining import stack
from ..._dtype import float64
from ..._tensor import Tensor

_STRING_DTYPE = re.compile(r"[SaUO]")
COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def _like(original, converted):
    """``converted`` (a dict or a list) as the container type of ``original`` where that type can
    be built from it, else as it is."""
    try:
        return type(original)(converted)
    except TypeError:
        return converted


def default_convert(data):
    """Convert numpy arrays in a sample (recursively) to tensors; used when batching is off."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        if isinstance(data, np.ndarray) and _STRING_DTYPE.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {k: default_convert(v) for k, v in data.items()}
        if type(data) is dict:
            return converted
        return _like(data, converted)
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """Stack a list of samples into a batch, keeping the samples' structure.

    Tensors and numpy arrays are stacked along a new first dimension; Python floats become a
    float64 tensor and ints an int64 tensor; strings stay a list; dicts, named tuples and
    sequences are collated field by field (a tuple of fields becomes a list).

    >>> default_collate([(1, 2.0), (3, 4.0)])
    [tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray) or (isinstance(elem, np.generic) and not isinstance(elem, (np.str_, np.bytes_))):
        if isinstance(elem, np.ndarray) and _STRING_DTYPE.search(elem.dtype.str) is not None:
            raise TypeError(COLLATE_ERROR.format(elem.dtype))
        if isinstance(elem, np.ndarray):
            return stack([as_tensor(b) for b in batch], 0)
        return as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return _tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return _tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        if type(elem) is dict:
            return collated
        return _like(elem, collated)
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(b) != size for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _like(elem, columns)
    raise TypeError(COLLATE_ERROR.format(type(elem)))
