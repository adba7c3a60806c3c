"""``tensorgrad.save`` / ``tensorgrad.load``: checkpoints that loading can never run code from.

A checkpoint is a zip archive holding ``tensorgrad.json`` and one ``.npy`` member per array,
read back without ``numpy.load`` and never unpickled. The JSON has four parts:

- ``arrays``: the CRC-32 of each member ``arrays/<i>.npy``, which ties every member to its
  place (two members swapped, or one replaced, are refused);
- ``tensors``: one entry per Tensor object, as PyTorch lays it out: the storage (a 1-d array
  member), dtype, shape, stride and storage offset, ``requires_grad`` and whether it is a
  Parameter. Tensors that share storage when saved (a tensor and its views, ``.detach()``
  aliases) share it after loading, as ``torch.load``'s do: each is a leaf with its own
  version counter over the one storage, which is stored and read once. A tensor whose
  elements overlap in memory (an ``expand``) is stored as a copy;
- ``root``: the saved object as tagged JSON (dicts, lists, tuples, numbers, strings, and
  references into the tables; an object referenced twice is loaded as one object);
- ``format`` and ``version``.

What can be saved: Tensors (and Parameters), numpy arrays (not of objects or with fields) and
scalars, None, bools, ints, floats (including nan and inf), complex numbers, strings, bytes,
dtypes, devices, Sizes, and lists, tuples, dicts (any of these as keys), OrderedDicts (with a
state dict's ``_metadata``), Counters and nestings of them. Anything else raises a TypeError
before the file is written.

Loading raises RuntimeError, and only RuntimeError, for every file that is not a valid
checkpoint (a pickle, a PyTorch checkpoint, a truncated, corrupted or crafted archive), having
run nothing from it. It never allocates far beyond the file: each array is read once, straight
into an array of the size its header declares, and only after that size is checked against
the size the archive records for the member and against what the member's compressed bytes
can hold (members may be stored, as ``save`` writes them, or deflated).

The package: ``_encode`` writes, ``_archive`` reads members with their sizes checked,
``_decode`` rebuilds the object, ``_layout`` holds what both sides share.
"""

import io
import os
import zipfile

from .._device import to_device
from ._archive import Archive
from ._decode import Decoder
from ._encode import Encoder, write_zip
from ._layout import MANIFEST, Invalid

__all__ = ["save", "load"]


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
    encoder = Encoder()
    root = encoder.encode(obj)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:
            write_zip(handle, encoder, root)
    else:
        write_zip(f, encoder, root)


_PICKLE_HINT = (
    "tensorgrad.load reads only tensorgrad.save checkpoints (JSON plus .npy arrays) and never unpickles, "
    "because unpickling can run arbitrary code.")


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
    checkpoint (a pickle, a PyTorch checkpoint, a corrupted, truncated or crafted archive).
    """
    # a bad device is the caller's error, not the file's: checked before reading
    target = None if map_location is None else to_device(map_location).jax_device()
    if isinstance(f, (str, os.PathLike)):
        where = repr(os.fspath(f))
        with open(f, "rb") as handle:
            return _load(handle, where, target)
    return _load(f, "the file", target)


def _load(handle, where, target):
    """``_read``, every failure raised as RuntimeError."""
    try:
        return _read(handle, where, target)
    except Invalid as e:
        raise RuntimeError(str(e)) from None
    except RecursionError:
        raise RuntimeError(f"{where} is not a valid tensorgrad checkpoint: its structure is nested too deeply") from None
    except MemoryError:
        raise
    except Exception as e:  # noqa: BLE001 - zipfile, zlib and numpy report damage with many types
        raise RuntimeError(f"{where} is not a valid tensorgrad checkpoint ({type(e).__name__}: {e})") from e


def _read(handle, where, target):
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
        return Decoder(reader, manifest, target).run(manifest["root"])
