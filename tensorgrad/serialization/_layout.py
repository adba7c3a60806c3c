"""The checkpoint format's constants, and the layout facts that writing and reading share."""

import math

import numpy as np

from .. import _dtype

FORMAT = "tensorgrad.save"
VERSION = 2
MANIFEST = "tensorgrad.json"
PICKLE_MEMBER = "object.pkl"    # present only when the root is {"$": "pickle", "crc": <its CRC-32>}
MANIFEST_KEYS = {"format", "version", "arrays", "tensors", "root"}
TENSOR_KEYS = {"storage", "dtype", "shape", "stride", "offset", "requires_grad", "parameter"}


class Invalid(Exception):
    """A file that is not a valid checkpoint, with the whole message; ``load`` raises it as
    RuntimeError (a private type, so that no RuntimeError subclass from zipfile or numpy, such
    as NotImplementedError, passes through as if it were one of these)."""


def is_pickle_root(root):
    """Whether the manifest's root says that the object is the pickle member."""
    return isinstance(root, dict) and root.get("$") == "pickle"


def member_name(index):
    """The archive member of array ``index``."""
    return f"arrays/{index}.npy"


def bits(arr):
    """The array as numpy can write it (bfloat16 as its uint16 bits)."""
    return arr.view(np.uint16) if arr.dtype == _dtype.bfloat16.np else arr


def fits(shape, stride, offset, size):
    """Whether the layout lies inside a storage of ``size`` elements, no two elements overlapping
    (then it holds at most ``size`` elements, so loading it allocates no more than the storage).

    >>> fits((2, 3), (3, 1), 0, 6), fits((2, 3), (3, 1), 1, 6), fits((4,), (0,), 0, 6)
    (True, False, False)
    """
    if math.prod(shape) == 0:
        return offset <= size
    dims = sorted((s, n) for n, s in zip(shape, stride) if n > 1)
    reach = 0
    for s, n in dims:
        if s <= reach:
            return False
        reach += (n - 1) * s
    return offset + reach < size
