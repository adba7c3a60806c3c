"""Writing a checkpoint: the object as tagged JSON, its tensors as a table of layouts over
storages, and one ``.npy`` member per array, streamed into the zip archive."""

import json
import math
import zipfile
from collections import Counter, OrderedDict

import numpy as np
from numpy.lib import format as npy

from .. import _dtype
from .._storage.layout import contiguous_strides, geometry
from .._device import device as _device_cls
from .._tensor import Size, Tensor
from ._layout import FORMAT, MANIFEST, PICKLE_MEMBER, VERSION, bits, fits, member_name


class Unsupported(TypeError):
    """An object outside the JSON vocabulary: ``save`` then pickles the whole object."""


class Encoder:
    """Turns an object into JSON-able data, collecting its arrays and tensors."""

    def __init__(self):
        self.arrays = []        # one archive member each
        self.array_ids = {}
        self.tensors = []       # one table entry per Tensor object
        self.tensor_ids = {}

    def array(self, key, arr):
        """The member index of the array saved under ``key`` (saved once however often it is met)."""
        if key not in self.array_ids:
            self.array_ids[key] = len(self.arrays)
            self.arrays.append(arr)
        return self.array_ids[key]

    def encode(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int) and type(obj) is int:
            return obj
        if type(obj) is float:
            if math.isfinite(obj):
                return obj
            return {"$": "float", "value": repr(obj)}
        if isinstance(obj, Tensor):
            return {"$": "tensor", "id": self.tensor(obj)}
        if isinstance(obj, np.ndarray):
            if obj.dtype.hasobject or obj.dtype.fields is not None:
                raise Unsupported("tensorgrad.save cannot store numpy arrays of Python objects or with fields "
                                f"(dtype {obj.dtype})")
            return {"$": "ndarray", "id": self.array(id(obj), np.require(obj, requirements="C"))}
        if isinstance(obj, np.generic):
            if isinstance(obj, (np.str_, np.bytes_, np.object_)):
                return self.encode(obj.item())
            return {"$": "npscalar", "id": self.array(id(obj), np.asarray(obj))}
        if isinstance(obj, complex):
            return {"$": "complex", "real": self.encode(obj.real), "imag": self.encode(obj.imag)}
        if isinstance(obj, bytes):
            return {"$": "bytes", "hex": obj.hex()}
        if isinstance(obj, _dtype.dtype):
            return {"$": "dtype", "name": obj.name}
        if isinstance(obj, _device_cls):
            return {"$": "device", "name": str(obj)}
        if isinstance(obj, Size):
            return {"$": "size", "items": list(obj)}
        if isinstance(obj, Counter):
            return {"$": "counter", "items": self.pairs(obj)}
        if isinstance(obj, OrderedDict):
            out = {"$": "odict", "items": self.pairs(obj)}
            metadata = getattr(obj, "_metadata", None)
            if metadata is not None:
                out["metadata"] = self.encode(metadata)
            return out
        if type(obj) is dict:
            return {"$": "dict", "items": self.pairs(obj)}
        if type(obj) is list:
            return {"$": "list", "items": [self.encode(v) for v in obj]}
        if type(obj) is tuple:
            return {"$": "tuple", "items": [self.encode(v) for v in obj]}
        raise Unsupported(
            f"tensorgrad.save cannot store an object of type {type(obj).__module__}.{type(obj).__qualname__}: "
            "it stores tensors, numpy arrays, numbers, strings, bytes, None, dtypes, devices, and lists, tuples "
            "and dicts of them (save a module's or an optimizer's state_dict(), not the object itself)")

    def pairs(self, mapping):
        return [[self.encode(k), self.encode(v)] for k, v in mapping.items()]

    def tensor(self, t):
        """The table index of Tensor ``t`` (its storage is saved once, whoever shares it)."""
        index = self.tensor_ids.get(id(t))
        if index is not None:
            return index
        storage = bits(np.asarray(t._cell.value)).reshape(-1)
        layout = _layout_in(storage, t)
        if layout is None:
            # elements that overlap in memory (or a layout not found in the storage): a copy
            storage = bits(np.asarray(t.detach()._data)).reshape(-1)
            shape = tuple(t.shape)
            layout = (shape, contiguous_strides(shape), 0)
            key = ("copy", id(t))
        else:
            key = ("storage", id(t._cell))
        shape, stride, offset = layout
        index = self.tensor_ids[id(t)] = len(self.tensors)
        self.tensors.append({"storage": self.array(key, storage), "dtype": t.dtype.name, "shape": list(shape),
                             "stride": list(stride), "offset": offset, "requires_grad": t.requires_grad,
                             "parameter": getattr(t, "_is_param", False)})
        return index


def _layout_in(storage, t):
    """``(shape, stride, offset)`` of ``t`` in the 1-d ``storage``, or None when its elements
    overlap or are not where its view chain says (checked element by element)."""
    if t._view is None:
        shape = tuple(t._cell.value.shape)
        return shape, contiguous_strides(shape), 0
    shape, stride, offset = geometry(t)
    if not fits(shape, stride, offset, storage.size):
        return None
    seen = np.lib.stride_tricks.as_strided(storage[offset:], shape, [s * storage.itemsize for s in stride],
                                           writeable=False)
    value = bits(np.asarray(t.detach()._data))
    if not np.array_equal(_raw(seen), _raw(value)):
        return None
    return shape, stride, offset


def _raw(arr):
    """The bytes of ``arr`` as a uint8 array (a bitwise comparison: nan equals nan)."""
    return np.ascontiguousarray(arr).reshape(-1).view(np.uint8)


def write_zip(handle, encoder, root, data=None):
    """The checkpoint: the arrays, the pickle ``data`` if any (then ``root`` is its tag), the manifest."""
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED) as archive:
        crcs = []
        for i, arr in enumerate(encoder.arrays):
            # streamed: a large array is never copied whole into memory
            with archive.open(member_name(i), "w", force_zip64=arr.nbytes >= zipfile.ZIP64_LIMIT // 2) as member:
                npy.write_array(member, arr, allow_pickle=False)
            crcs.append(archive.getinfo(member_name(i)).CRC)
        if data is not None:
            archive.writestr(PICKLE_MEMBER, data)
        manifest = {"format": FORMAT, "version": VERSION, "arrays": crcs, "tensors": encoder.tensors,
                    "root": root}
        archive.writestr(MANIFEST, json.dumps(manifest, allow_nan=False))
