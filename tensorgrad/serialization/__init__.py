"""``tensorgrad.save`` / ``tensorgrad.load``: checkpoints that loading runs no code from, unless
asked to with ``weights_only=False``.

A checkpoint is a zip archive holding ``tensorgrad.json`` and one ``.npy`` member per array,
read back without ``numpy.load``. The JSON has four parts:

- ``arrays``: the CRC-32 of each member ``arrays/<i>.npy``, which ties every member to its
  place (two members swapped, or one replaced, are refused);
- ``tensors``: one entry per Tensor object, as PyTorch lays it out: the storage (a 1-d array
  member), dtype, shape, stride and storage offset, ``requires_grad`` and whether it is a
  Parameter. Tensors that share storage when saved (a tensor and its views, ``.detach()``
  aliases) share it after loading, as ``torch.load``'s do: each is a leaf with its own
  version counter over the one storage, which is stored and read once. A tensor whose
  elements overlap in memory (an ``expand``) is stored as a copy;
- ``root``: the saved object as tagged JSON (dicts, lists, tuples, numbers, strings, and
  references into the tables; an object referenced twice is loaded as one object), or
  ``{"$": "pickle", "crc": ...}`` for a pickled object (below);
- ``format`` and ``version``.

What is saved as JSON: Tensors (and Parameters), numpy arrays (not of objects or with fields)
and scalars, None, bools, ints, floats (including nan and inf), complex numbers, strings,
bytes, dtypes, devices, Sizes, and lists, tuples, dicts (any of these as keys), OrderedDicts
(with a state dict's ``_metadata``), Counters and nestings of them: tensors, state dicts of
modules, optimizers and schedulers. Any other object (a whole ``nn.Module``, an optimizer, a
user's class) is pickled, as ``torch.save`` pickles it (with ``pickle_module`` at
``pickle_protocol``, 2 by default, as PyTorch's), into the member ``object.pkl``; every Tensor
in it is a persistent id naming its entry in the tensor table, so that storage sharing,
``requires_grad`` and Parameters come back exactly as from a JSON checkpoint. An object that
cannot be pickled raises pickle's error before the file is written.

Loading: a JSON checkpoint loads whatever ``weights_only`` says. A pickled one is refused by
default, as PyTorch 2.13 refuses it (``weights_only`` defaults to True, or to False when a
``pickle_module`` is given): ``pickle.UnpicklingError`` "Weights only load failed", raised
having run nothing from the file. With ``weights_only=False`` (only for a file from a trusted
source: unpickling can run arbitrary code) it is unpickled by ``pickle_module`` (default
``pickle``) with ``pickle_load_args``, its tensors rebuilt from the table (on
``map_location``); errors raised by the unpickling itself (a class that no longer exists)
propagate as from ``torch.load``.

Loading raises RuntimeError, and only RuntimeError, for every file that is not a valid
checkpoint (a bare pickle, a PyTorch checkpoint, a truncated, corrupted or crafted archive),
having run nothing from it: such files are never unpickled, whatever ``weights_only`` says. It
never allocates far beyond the file: each array is read once, straight into an array of the
size its header declares, and only after that size is checked against the size the archive
records for the member and against what the member's compressed bytes can hold (members may
be stored, as ``save`` writes them, or deflated).

The package: ``_encode`` writes, ``_archive`` reads members with their sizes checked,
``_decode`` rebuilds the object, ``_pickled`` pickles and unpickles, ``_layout`` holds what
both sides share.
"""

import io
import os
import pickle
import warnings
import zipfile
import zlib

from .._device import to_device
from ._archive import Archive
from ._decode import Decoder
from ._encode import Encoder, Unsupported, write_zip
from ._layout import MANIFEST, Invalid, is_pickle_root
from ._pickled import first_global, pickled, unpickled

__all__ = ["save", "load"]


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save ``obj`` (a tensor, a state dict, a whole module, any picklable object) to ``f``.

    Arguments:
      obj: what to save: as JSON when it is made of the types the module docstring lists,
        otherwise pickled (loading it then needs ``weights_only=False``).
      f: a path (str or os.PathLike) or a writable binary file object.
      pickle_module, pickle_protocol: the module whose ``Pickler`` pickles the object, and
        the protocol, as ``torch.save``'s (checked even when the object is saved as JSON).

    >>> import io, tensorgrad as torch
    >>> buf = io.BytesIO()
    >>> torch.save({"w": torch.tensor([1., 2.]), "step": 3}, buf)
    >>> _ = buf.seek(0)
    >>> torch.load(buf)
    {'w': tensor([1., 2.]), 'step': 3}
    """
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("tensorgrad.save writes only the zip format: PyTorch's legacy "
                                  "(_use_new_zipfile_serialization=False) format is not supported")
    pickle_module.Pickler(io.BytesIO(), protocol=pickle_protocol)  # a bad module or protocol raises here
    encoder = Encoder()
    data = None
    try:
        root = encoder.encode(obj)
    except Unsupported:
        # pickled whole, before the file is opened: an unpicklable object writes nothing
        encoder = Encoder()
        data = pickled(encoder, obj, pickle_module, pickle_protocol)
        root = {"$": "pickle", "crc": zlib.crc32(data)}
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:
            write_zip(handle, encoder, root, data)
    else:
        write_zip(f, encoder, root, data)


_PICKLE_HINT = (
    "tensorgrad.load reads only tensorgrad.save checkpoints (JSON plus .npy arrays, and their pickled objects "
    "with weights_only=False) and never unpickles other files, because unpickling can run arbitrary code.")


def _describe(head):
    """What a file that is not a tensorgrad checkpoint most likely is, from its first bytes."""
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}", b"c"):
        return "it is a Python pickle. " + _PICKLE_HINT
    if head[:6] == b"\x93NUMPY":
        return "it is a bare .npy array; read it with numpy.load(path, allow_pickle=False)."
    return "it is not a zip archive. " + _PICKLE_HINT


class _WeightsOnly(Exception):
    """A pickled checkpoint loaded with ``weights_only``: raised as ``pickle.UnpicklingError``."""


class _Pickled:
    """A pickled checkpoint read and checked, its tensors built: unpickled outside ``_load``, so
    that the unpickling's own errors propagate as they are (as from ``torch.load``)."""

    def __init__(self, decoder, data):
        self.decoder = decoder
        self.data = data


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved by ``tensorgrad.save``.

    Arguments:
      f: a path or a readable binary file object.
      map_location: a device to put the tensors on (default: as JAX places new arrays).
      pickle_module: the module whose ``Unpickler`` unpickles a pickled object (default
        ``pickle``); given, ``weights_only`` defaults to False, and True raises, as in PyTorch.
      weights_only: whether to refuse a pickled object (default True, as PyTorch 2.13's). Set
        it to False only for a file from a trusted source: unpickling can run arbitrary code.
      mmap: accepted for PyTorch compatibility: a hint about memory, not about values (the
        arrays are read into memory either way; what is loaded is the same).
      pickle_load_args: passed to the ``Unpickler`` (only ``encoding`` when ``weights_only``).

    Raises RuntimeError, having run nothing from the file, when ``f`` is not a tensorgrad
    checkpoint (a pickle, a PyTorch checkpoint, a corrupted, truncated or crafted archive), and
    ``pickle.UnpicklingError``, having run nothing, for a pickled object when ``weights_only``.
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.")
            for key in pickle_load_args:
                if key != "encoding":   # the only argument of PyTorch's weights-only unpickler
                    raise TypeError(f"Unpickler.__init__() got an unexpected keyword argument '{key}'")
    else:
        if pickle_module is None:
            pickle_module = pickle
        pickle_module.Unpickler(io.BytesIO(), **pickle_load_args)  # bad arguments raise before reading
    # a bad device is the caller's error, not the file's: checked before reading
    target = None if map_location is None else to_device(map_location).jax_device()
    if isinstance(f, (str, os.PathLike)):
        where = repr(os.fspath(f))
        with open(f, "rb") as handle:
            out = _load(handle, where, target, weights_only)
    else:
        out = _load(f, "the file", target, weights_only)
    if not isinstance(out, _Pickled):
        return out
    decoder = out.decoder
    obj = unpickled(out.data, decoder.tensors, decoder.used, pickle_module, pickle_load_args)
    try:
        decoder.check_tensors()
    except Invalid as e:
        raise RuntimeError(str(e)) from None
    return obj


def _load(handle, where, target, weights_only):
    """``_read``, every failure raised as RuntimeError (a refused pickle as UnpicklingError)."""
    try:
        return _read(handle, where, target, weights_only)
    except Invalid as e:
        raise RuntimeError(str(e)) from None
    except _WeightsOnly as e:
        raise pickle.UnpicklingError(str(e)) from None
    except RecursionError:
        raise RuntimeError(f"{where} is not a valid tensorgrad checkpoint: its structure is nested too deeply") from None
    except MemoryError:
        raise
    except Exception as e:  # noqa: BLE001 - zipfile, zlib and numpy report damage with many types
        raise RuntimeError(f"{where} is not a valid tensorgrad checkpoint ({type(e).__name__}: {e})") from e


def _refusal(where, data):
    """PyTorch's "Weights only load failed", for tensorgrad's pickled checkpoints."""
    name = first_global(data)
    first = f" (the first global it would import is {name})" if name else ""
    return (f"Weights only load failed. {where} holds pickled Python objects{first}, which tensorgrad.save "
            "writes for a whole module, an optimizer or any object other than tensors, numbers, strings and "
            "containers of them; unpickling can run arbitrary code, and nothing was unpickled. Re-running "
            "tensorgrad.load with weights_only=False will load it, but do it only if you got the file from a "
            "trusted source. (A state_dict() saved instead loads with weights_only=True.)")


def _read(handle, where, target, weights_only):
    start = handle.tell()
    head = handle.read(8)
    if head[:2] != b"PK":
        raise Invalid(f"{where} is not a tensorgrad checkpoint: {_describe(head)}")
    length = handle.seek(0, io.SEEK_END) - start
    handle.seek(start)
    try:
        archive = zipfile.ZipFile(handle)
    except MemoryError:
        raise
    except Exception as e:  # noqa: BLE001 - zipfile reports damage with many types
        raise Invalid(f"{where} is not a valid tensorgrad checkpoint: a damaged zip archive "
                      f"({type(e).__name__}: {e})") from None
    with archive:
        names = archive.namelist()
        if len(set(names)) != len(names):
            raise Invalid(f"{where} is not a valid tensorgrad checkpoint: the zip archive names a member twice")
        if MANIFEST not in names:
            if any(n.endswith("data.pkl") for n in names):
                raise Invalid(
                    f"{where} is a PyTorch checkpoint (a pickle inside a zip archive). " + _PICKLE_HINT +
                    " Load it with torch.load(path, weights_only=True) and pass its tensors' .numpy() values to "
                    "tensorgrad (load_state_dict accepts numpy arrays).")
            raise Invalid(f"{where} is not a tensorgrad checkpoint: the zip archive has no {MANIFEST}")
        reader = Archive(archive, where, length)
        manifest = reader.manifest()
        root = manifest["root"]
        if not is_pickle_root(root):
            return Decoder(reader, manifest, target).run(root)
        if weights_only:
            raise _WeightsOnly(_refusal(where, reader.pickle_bytes(root["crc"])))
        decoder = Decoder(reader, manifest, target)
        decoder.check_arrays()
        return _Pickled(decoder, reader.pickle_bytes(root["crc"]))
