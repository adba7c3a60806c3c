"""``tensorgrad.save`` / ``tensorgrad.load``: checkpoints that loading can never run code from.

A checkpoint is a zip archive holding ``tensorgrad.json`` (the object's structure as JSON:
dicts, lists, tuples, numbers, strings and references to arrays) and one ``.npy`` file per
tensor or numpy array, read back with ``numpy.load(allow_pickle=False)``. Nothing is ever
unpickled: a pickle file, a PyTorch checkpoint or a crafted archive is refused with a
``RuntimeError`` that says what the file is, and nothing in it runs.

What can be saved: Tensors (and Parameters), numpy arrays and scalars, None, bools, ints,
floats (including nan and inf), complex numbers, strings, bytes, dtypes, devices, Sizes, and
lists, tuples, dicts (any of these as keys), OrderedDicts (with a state dict's
``_metadata``), Counters and named-tuple-free nesting of them. Anything else raises a
TypeError before the file is written.
"""

import io
import json
import math
import os
import zipfile
from collections import Counter, OrderedDict

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtype
from ._device import device as _device_cls, to_device
from ._tensor import Size, Tensor, _wrap
from .nn.parameter import Parameter

__all__ = ["save", "load"]

FORMAT = "tensorgrad.save"
VERSION = 1
MANIFEST = "tensorgrad.json"


# ---------------------------------------------------------------------------- encoding

def _contiguous(arr):
    # np.ascontiguousarray would turn a 0-d array into a 1-d one
    return np.require(arr, requirements="C")


class _Encoder:
    """Turns an object into JSON-able data, collecting its arrays."""

    def __init__(self):
        self.arrays = []
        self.ids = {}

    def array(self, obj, arr):
        """The index of ``obj``'s array (an object saved twice is stored once)."""
        key = id(obj)
        if key not in self.ids:
            self.ids[key] = len(self.arrays)
            self.arrays.append(arr)
        return self.ids[key]

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
            return self.tensor(obj)
        if isinstance(obj, np.ndarray):
            if obj.dtype.hasobject:
                raise TypeError("tensorgrad.save cannot store numpy arrays of Python objects")
            return {"$": "ndarray", "id": self.array(obj, _contiguous(obj))}
        if isinstance(obj, np.generic):
            if isinstance(obj, (np.str_, np.bytes_, np.object_)):
                return self.encode(obj.item())
            return {"$": "npscalar", "id": self.array(obj, np.asarray(obj))}
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
        raise TypeError(
            f"tensorgrad.save cannot store an object of type {type(obj).__module__}.{type(obj).__qualname__}: "
            "it stores tensors, numpy arrays, numbers, strings, bytes, None, dtypes, devices, and lists, tuples "
            "and dicts of them (save a module's or an optimizer's state_dict(), not the object itself)")

    def pairs(self, mapping):
        return [[self.encode(k), self.encode(v)] for k, v in mapping.items()]

    def tensor(self, t):
        arr = np.asarray(t.detach()._data)
        dtype = t.dtype
        if dtype is _dtype.bfloat16:
            arr = arr.view(np.uint16)
        out = {"$": "tensor", "id": self.array(t, _contiguous(arr)), "dtype": dtype.name}
        if t.requires_grad:
            out["requires_grad"] = True
        if getattr(t, "_is_param", False):
            out["parameter"] = True
        return out


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save ``obj`` (a tensor, a state dict, nested containers of them...) to ``f``.

    Arguments:
      obj: what to save (see the module docstring for the supported types).
      f: a path (str or os.PathLike) or a writable binary file object.

    >>> import io, tensorgrad as torch
    >>> buf = io.BytesIO()
    >>> torch.save({"w": torch.tensor([1., 2.]), "step": 3}, buf)
    >>> _ = buf.seek(0)
    >>> torch.load(buf)
    {'w': tensor([1., 2.]), 'step': 3}
    """
    encoder = _Encoder()
    root = encoder.encode(obj)
    manifest = {"format": FORMAT, "version": VERSION, "arrays": len(encoder.arrays), "root": root}
    text = json.dumps(manifest, allow_nan=False)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:
            _write_zip(handle, text, encoder.arrays)
    else:
        _write_zip(f, text, encoder.arrays)


def _write_zip(handle, text, arrays):
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, text)
        for i, arr in enumerate(arrays):
            buf = io.BytesIO()
            np.save(buf, arr, allow_pickle=False)
            archive.writestr(f"arrays/{i}.npy", buf.getvalue())


# ---------------------------------------------------------------------------- decoding

_PICKLE_HINT = (
    "tensorgrad.load reads only tensorgrad.save checkpoints (JSON plus .npy arrays) and never unpickles, "
    "because unpickling can run arbitrary code.")


class _Decoder:
    """Rebuilds an object from the manifest, reading arrays from the archive on demand."""

    def __init__(self, archive, count, where, map_location):
        self.archive = archive
        self.count = count
        self.where = where
        self.map_location = map_location
        self.loaded = {}

    def fail(self, what):
        return RuntimeError(f"{self.where} is not a valid tensorgrad checkpoint: {what}")

    def read_array(self, index):
        if type(index) is not int or not 0 <= index < self.count:
            raise self.fail(f"array reference {index!r} is out of range")
        name = f"arrays/{index}.npy"
        try:
            data = self.archive.read(name)
        except KeyError:
            raise self.fail(f"the archive has no member {name!r}") from None
        if not data.startswith(b"\x93NUMPY"):
            raise self.fail(f"{name} is not a readable .npy array (no .npy header)")
        try:
            return np.load(io.BytesIO(data), allow_pickle=False)
        except ValueError as e:
            raise self.fail(f"{name} holds Python objects, which would need unpickling ({e})") from None
        except Exception as e:  # noqa: BLE001 - any malformed .npy is reported the same way
            raise self.fail(f"{name} is not a readable .npy array ({e})") from None

    def decode(self, node):
        if node is None or isinstance(node, (bool, str, int, float)):
            return node
        if isinstance(node, list):
            raise self.fail("a bare JSON list where a tagged value was expected")
        if not isinstance(node, dict) or "$" not in node:
            raise self.fail(f"unexpected JSON value {str(node)[:80]!r}")
        tag = node["$"]
        handler = getattr(self, "tag_" + str(tag), None)
        if handler is None:
            raise self.fail(f"unknown value kind {tag!r}")
        try:
            return handler(node)
        except (KeyError, TypeError, ValueError) as e:
            raise self.fail(f"malformed {tag!r} entry ({type(e).__name__}: {e})") from None

    def pairs(self, node):
        out = []
        for pair in node["items"]:
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.fail("a dict entry is not a [key, value] pair")
            key = self.decode(pair[0])
            try:
                hash(key)
            except TypeError:
                raise self.fail(f"a dict key of type {type(key).__name__} is not hashable") from None
            out.append((key, self.decode(pair[1])))
        return out

    def tag_float(self, node):
        value = node["value"]
        if value not in ("nan", "inf", "-inf"):
            raise ValueError(f"not a special float: {value!r}")
        return float(value)

    def tag_complex(self, node):
        return complex(self.decode(node["real"]), self.decode(node["imag"]))

    def tag_bytes(self, node):
        return bytes.fromhex(node["hex"])

    def tag_dtype(self, node):
        return _dtype._by_name(node["name"])

    def tag_device(self, node):
        return to_device(node["name"])

    def tag_size(self, node):
        items = node["items"]
        if not all(type(i) is int for i in items):
            raise ValueError("a Size holds non-integers")
        return Size(items)

    def tag_list(self, node):
        return [self.decode(v) for v in node["items"]]

    def tag_tuple(self, node):
        return tuple(self.decode(v) for v in node["items"])

    def tag_dict(self, node):
        return dict(self.pairs(node))

    def tag_counter(self, node):
        return Counter(dict(self.pairs(node)))

    def tag_odict(self, node):
        out = OrderedDict(self.pairs(node))
        if "metadata" in node:
            out._metadata = self.decode(node["metadata"])
        return out

    def tag_ndarray(self, node):
        return self.read_array(node["id"])

    def tag_npscalar(self, node):
        arr = self.read_array(node["id"])
        if arr.ndim != 0:
            raise ValueError("a numpy scalar entry holds an array")
        return arr[()]

    def tag_tensor(self, node):
        index = node["id"]
        cached = self.loaded.get(index)
        if cached is not None:
            return cached
        arr = self.read_array(index)
        name = node["dtype"]
        if name not in _dtype._NAMES:
            raise ValueError(f"unknown dtype {name!r}")
        dtype = _dtype._by_name(name)
        if dtype is _dtype.bfloat16:
            if arr.dtype != np.uint16:
                raise ValueError(f"a bfloat16 tensor stored as {arr.dtype}")
            arr = arr.view(dtype.np)
        elif arr.dtype != np.dtype(dtype.np):
            raise ValueError(f"a {name} tensor stored as a {arr.dtype} array")
        value = jnp.asarray(arr)
        if self.map_location is not None:
            value = jax.device_put(value, to_device(self.map_location).jax_device())
        requires_grad = node.get("requires_grad", False) is True
        if node.get("parameter", False) is True:
            out = Parameter(_wrap(value), requires_grad)
        else:
            out = _wrap(value, requires_grad and dtype.kind >= _dtype.FLOAT)
        self.loaded[index] = out
        return out


def _describe(head):
    """What a file that is not a tensorgrad checkpoint most likely is, from its first bytes."""
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}", b"c"):
        return "it is a Python pickle. " + _PICKLE_HINT
    if head[:6] == b"\x93NUMPY":
        return "it is a bare .npy array; read it with numpy.load(path, allow_pickle=False)."
    return "it is not a zip archive. " + _PICKLE_HINT


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved by ``tensorgrad.save``.

    Arguments:
      f: a path or a readable binary file object.
      map_location: a device to put the tensors on (default: as JAX places new arrays).
      weights_only, mmap, pickle_module: accepted for PyTorch compatibility; loading never
        unpickles, so it is always "weights only".

    Raises RuntimeError, having run nothing from the file, when ``f`` is not a tensorgrad
    checkpoint (a pickle, a PyTorch checkpoint, a crafted or truncated archive).
    """
    if isinstance(f, (str, os.PathLike)):
        where = repr(os.fspath(f))
        with open(f, "rb") as handle:
            return _load(handle, where, map_location)
    return _load(f, "the file", map_location)


def _load(handle, where, map_location):
    start = handle.tell() if hasattr(handle, "tell") else 0
    head = handle.read(8)
    if hasattr(handle, "seek"):
        handle.seek(start)
    if head[:2] != b"PK":
        raise RuntimeError(f"{where} is not a tensorgrad checkpoint: {_describe(head)}")
    try:
        archive = zipfile.ZipFile(handle)
    except zipfile.BadZipFile as e:
        raise RuntimeError(f"{where} is not a valid tensorgrad checkpoint: a damaged zip archive ({e})") from None
    with archive:
        names = set(archive.namelist())
        if MANIFEST not in names:
            if any(n.endswith("data.pkl") for n in names):
                raise RuntimeError(
                    f"{where} is a PyTorch checkpoint (a pickle inside a zip archive). " + _PICKLE_HINT +
                    " Load it with torch.load(path, weights_only=True) and pass its tensors' .numpy() values to "
                    "tensorgrad (load_state_dict accepts numpy arrays).")
            raise RuntimeError(f"{where} is not a tensorgrad checkpoint: the zip archive has no {MANIFEST}")
        try:
            manifest = json.loads(archive.read(MANIFEST).decode("utf-8"), parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError, RecursionError) as e:
            raise RuntimeError(f"{where} is not a valid tensorgrad checkpoint: {MANIFEST} is not JSON ({e})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise RuntimeError(f"{where} is not a tensorgrad checkpoint: {MANIFEST} does not name the format")
        if manifest.get("version") != VERSION:
            raise RuntimeError(f"{where} has checkpoint format version {manifest.get('version')!r}; this "
                               f"tensorgrad reads version {VERSION}")
        count = manifest.get("arrays")
        if type(count) is not int or count < 0:
            raise RuntimeError(f"{where} is not a valid tensorgrad checkpoint: a bad array count")
        if "root" not in manifest:
            raise RuntimeError(f"{where} is not a valid tensorgrad checkpoint: no saved object")
        try:
            return _Decoder(archive, count, where, map_location).decode(manifest["root"])
        except RecursionError:
            raise RuntimeError(f"{where} is not a valid tensorgrad checkpoint: its structure is nested too deeply") from None


def _reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")
