"""Rebuilding the saved object from a checked archive: the tensor table first (each storage
read once, each tensor a leaf over it), then the tagged JSON of the root."""

import math
from collections import Counter, OrderedDict

import jax
import numpy as np

from .. import _dtype
from .._storage.layout import contiguous_strides
from .._autograd.grad_mode import no_grad
from .._device import to_device
from .._storage.cell import VersionCounter
from .._tensor import Size, _wrap
from ..nn.parameter import Parameter
from ._layout import TENSOR_KEYS, fits, member_name


class Decoder:
    """Rebuilds the saved object: the tensors first (each storage read once), then the root."""

    def __init__(self, archive, manifest, target):
        self.archive = archive
        self.crcs = manifest["arrays"]
        self.target = target    # the jax device to put the tensors on, or None
        self.kinds = {}         # member index -> what it was read as ("storage", "ndarray", "npscalar")
        self.arrays = {}        # member index -> the array read (ndarrays and scalars are shared objects)
        self.tensors = Tensors(self, manifest["tensors"]).build()
        self.used = set()

    def fail(self, what):
        return self.archive.fail(what)

    def read(self, index, kind):
        """Array member ``index`` as a ``kind``, read once however often it is referenced."""
        if type(index) is not int or not 0 <= index < len(self.crcs):
            raise self.fail(f"array reference {index!r} is out of range")
        seen = self.kinds.setdefault(index, kind)
        if seen != kind:
            raise self.fail(f"{member_name(index)} is referenced both as a {seen} and as a {kind}")
        if index not in self.arrays:
            self.arrays[index] = self.archive.array(index, self.crcs[index])
        return self.arrays[index]

    def run(self, root):
        out = self.decode(root)
        self.check_arrays()
        self.check_tensors()
        return out

    def check_arrays(self):
        unused = sorted(set(range(len(self.crcs))) - set(self.kinds))
        if unused:
            raise self.fail(f"{member_name(unused[0])} is never referenced")

    def check_tensors(self):
        unused = sorted(set(range(len(self.tensors))) - self.used)
        if unused:
            raise self.fail(f"tensor {unused[0]} of the tensor table is never referenced")

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
        except (KeyError, TypeError, ValueError, OverflowError) as e:
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
        return self.read(node["id"], "ndarray")

    def tag_npscalar(self, node):
        arr = self.read(node["id"], "npscalar")
        if arr.ndim != 0:
            raise ValueError("a numpy scalar entry holds an array")
        return arr[()]

    def tag_tensor(self, node):
        index = node["id"]
        if type(index) is not int or not 0 <= index < len(self.tensors):
            raise self.fail(f"tensor reference {index!r} is out of range")
        self.used.add(index)
        return self.tensors[index]


class Tensors:
    """The tensor table, built as ``torch.load`` builds it: one storage per array member, each
    tensor a leaf over its storage with its own version counter (at 1, as PyTorch's are)."""

    def __init__(self, decoder, entries):
        self.decoder = decoder
        self.entries = entries

    def fail(self, what):
        return self.decoder.fail(what)

    def entry(self, k, entry):
        """``(storage, dtype, shape, stride, offset, requires_grad, parameter)`` of a checked entry."""
        if not isinstance(entry, dict) or set(entry) != TENSOR_KEYS:
            raise self.fail(f"tensor {k} of the tensor table does not have the keys {sorted(TENSOR_KEYS)}")
        name = entry["dtype"]
        if type(name) is not str or name not in _dtype._NAMES:
            raise self.fail(f"tensor {k} has an unknown dtype {name!r}")
        dtype = _dtype._by_name(name)
        shape, stride, offset = entry["shape"], entry["stride"], entry["offset"]
        if not (_naturals(shape) and _naturals(stride) and len(shape) == len(stride) and _naturals([offset])):
            raise self.fail(f"tensor {k} has a malformed layout (shape {shape!r}, stride {stride!r}, "
                            f"offset {offset!r})")
        requires_grad, parameter = entry["requires_grad"], entry["parameter"]
        if type(requires_grad) is not bool or type(parameter) is not bool:
            raise self.fail(f"tensor {k} has a non-boolean requires_grad or parameter flag")
        if requires_grad and dtype.kind < _dtype.FLOAT:
            raise self.fail(f"tensor {k} is a {name} tensor that requires grad")
        return entry["storage"], dtype, tuple(shape), tuple(stride), offset, requires_grad, parameter

    def build(self):
        entries = [self.entry(k, e) for k, e in enumerate(self.entries)]
        groups = {}
        for k, entry in enumerate(entries):
            groups.setdefault(entry[0], []).append(k)
        out = [None] * len(entries)
        for storage, members in groups.items():
            loaded = self.over_storage(storage, [entries[k] for k in members])
            for k, t in zip(members, loaded):
                out[k] = t
        return out

    def over_storage(self, storage, entries):
        """The tensors of the entries over one storage, which is read once."""
        arr = self.decoder.read(storage, "storage")
        dtype = entries[0][1]
        want = np.dtype(np.uint16 if dtype is _dtype.bfloat16 else dtype.np)
        if arr.ndim != 1 or arr.dtype != want:
            raise self.fail(f"{member_name(storage)} holds a {arr.dtype} array of shape {arr.shape}, not a "
                            f"{dtype.name} storage")
        for k, entry in enumerate(entries):
            if entry[1] is not dtype:
                raise self.fail(f"{member_name(storage)} is a storage of both {dtype.name} and {entry[1].name} tensors")
            if not fits(entry[2], entry[3], entry[4], arr.size):
                raise self.fail(f"a tensor of shape {list(entry[2])}, stride {list(entry[3])} and offset "
                                f"{entry[4]} does not lie inside its storage of {arr.size} elements")
        if dtype is _dtype.bfloat16:
            arr = arr.view(dtype.np)
        # the storage takes the shape of a tensor that is all of it, which then needs no view
        whole = [k for k, e in enumerate(entries) if _is_whole(e, arr.size)]
        # transferred, not ``jnp.asarray`` (which compiles a program per shape); the array is
        # this reader's own copy of the archive's bytes, so the device may keep it
        value = jax.device_put(arr if not whole else arr.reshape(entries[whole[0]][2]), self.decoder.target)
        del arr
        base = _wrap(value)
        out = []
        flat = None
        with no_grad():
            for k, (_, _, shape, stride, offset, requires_grad, parameter) in enumerate(entries):
                if whole and k == whole[0]:
                    t = base
                elif k in whole and shape == entries[whole[0]][2]:
                    t = base.detach()
                else:
                    if flat is None:
                        flat = base.view(-1)
                    t = _strided(flat, shape, stride, offset).detach()
                t._vc = VersionCounter()
                t._vc.version = 1
                if parameter:
                    t = Parameter(t, requires_grad)
                elif requires_grad:
                    t.requires_grad_(True)
                out.append(t)
        return out


def _naturals(values):
    return type(values) is list and all(type(v) is int and v >= 0 for v in values)


def _is_whole(entry, size):
    """Whether a tensor entry is its whole storage, contiguous."""
    _, _, shape, stride, offset, _, _ = entry
    return offset == 0 and math.prod(shape) == size and stride == contiguous_strides(shape)


def _strided(flat, shape, stride, offset):
    """The view of the 1-d tensor ``flat`` with PyTorch's layout ``(shape, stride, offset)``,
    made of view ops (``fits`` has checked that it lies inside ``flat``)."""
    if math.prod(shape) == 0:
        return flat[offset:offset].view(shape)
    moving = [d for d in range(len(shape)) if shape[d] > 1 and stride[d] > 0]
    order = sorted(moving, key=lambda d: -stride[d])
    span = 1 + sum((shape[d] - 1) * stride[d] for d in moving)
    x = flat.narrow(0, offset, span)
    dense = all(stride[a] == stride[b] * shape[b] for a, b in zip(order, order[1:])) and \
        (not order or stride[order[-1]] == 1)
    if dense:
        x = x.view([shape[d] for d in order])
    else:
        # each step cuts the last axis into ``shape[d]`` windows ``stride[d]`` apart
        for d in order:
            rest = span - (shape[d] - 1) * stride[d]
            x = x.unfold(-1, rest, stride[d])
            span = rest
        x = x.squeeze(-1)
    if len(order) > 1:
        x = x.permute(sorted(range(len(order)), key=lambda j: order[j]))
    for d in range(len(shape)):
        if d not in moving:
            x = x.unsqueeze(d)
    return x
