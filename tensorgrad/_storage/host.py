"""Storage shared with a numpy array: what ``torch.from_numpy``, ``torch.as_tensor`` of an array
and ``Tensor.numpy()`` return share memory both ways, as in PyTorch.

In PyTorch ``t = torch.from_numpy(a)`` is a tensor over ``a``'s memory and ``n = t.numpy()`` an
array over ``t``'s: a write through either is seen by the other. A tensorgrad cell holds an
immutable jax array, so a ``HostCell`` holds both: the numpy array (``cell.host.array``, the
user's for ``from_numpy``, one made by ``numpy()`` otherwise) and, in the cell's own slot, the
jax array last made from it. Precisely:

* **numpy writes reach the tensor at its next read.** Every read of the cell's ``value``
  compares the array's bytes with those the jax array was made from (``host.seen``) and,
  when they differ, copies the array into a new jax array and bumps ``gen`` (views of the tensor
  read it again). The version counter (``t._version``) does not move, as in PyTorch, where a
  numpy write is not an in-place op either.
* **tensor writes reach the array at once.** Every write of the cell (``t[i] = v``, ``add_``,
  ``copy_``, ``out=``, a compiled step's state update, an optimizer step) copies the new value
  into the array. A write that would change the shape (``out=`` of another size) raises
  PyTorch's ``Trying to resize storage that is not resizable``. A write of a tracer (a user's
  ``jax.jit`` closing over the tensor) stays in the cell, as for any cell.
* **views.** A view of a shared tensor reads and writes through the same cell. ``numpy()`` of a
  view is a numpy view of the storage array at the view's shape, strides and offset
  (``layout.geometry``), so ``t[1].numpy()`` and ``t.t().numpy()`` share with ``t``.
* **autograd.** A graph node keeps the jax arrays its op read, so a numpy write after the
  forward does not change a gradient (PyTorch's saved tensor would read the changed memory, and
  its version check would not notice either).
* **traces** (``tensorgrad.compile``, ``tensorgrad.func``) read and write cells through ``value``:
  a compiled step reads the array's current contents at each call and writes its state back into
  it. An overlaid host cell (``overlay.py``) gives the tracing thread its overlay and every other
  thread the host cell's own properties.
* **the cost.** An ordinary cell pays nothing. A host cell pays a compare of its bytes at each
  read and a copy at each write and at each read after a numpy write. A cell shared by
  ``from_numpy`` pays it for as long as it lives (the user's array may be written through any
  view of it). A cell shared by ``numpy()`` pays it only while an array it gave lives: those
  arrays are views of an ``_Owner`` the cell holds by a weak reference, so once the last of them
  (and every view of them) is gone, the cell's next read or write takes in any last numpy write
  and the cell is an ordinary one again (``w.detach().numpy().copy()`` of a weight, a logged
  value, costs the training loop nothing after). A ``DataLoader`` batch of a ``TensorDataset``
  (or of Subsets of one) over such a tensor reads its rows from the array (``live_array``), so it
  costs the rows, not a compare of the whole dataset.
* **what a read compares.** Not all of it, where less will do: a view (``t[i]``, ``t[:, 1]``,
  ``t.t()``) compares the bytes it covers (``sync_view``, at ``layout.geometry``'s shape,
  strides and offset) before it trusts its cached value or is made, and takes in the whole array
  when they changed; reading ``gen`` compares nothing; the shape and dtype (``cell.meta``) need
  no compare. So a sample ``X[i]`` of a shared dataset costs a compare of its row.
* **numpy arrays.** A read-only array is shared with PyTorch's warning (once per process); a
  tensor write cannot reach it, so the tensor keeps its written value until the array itself
  changes. An array with a negative stride raises PyTorch's ``ValueError``. A non-contiguous
  array with positive strides is shared, but the tensor is laid out contiguously (``stride()``
  and ``is_contiguous()`` differ from PyTorch's), and ``numpy()`` of a view of it raises.
  ``numpy()`` of a CPU tensor shares; a tensor on another device, or a tracer, gives a copy (or
  JAX's error), as before.
"""

import warnings
import weakref

import jax
import numpy as np

from .._device import put
from .cell import Cell
from .._meta import is_meta
from .layout import conj_bits, geometry
from .overlay import overlaid_here, set_class

__all__ = ["HostCell", "share_array", "array_of", "check_array", "live_array", "sync_view"]

_VALUE, _GEN = Cell.value, Cell.gen        # the slots themselves
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_WARNED = [False]

NOT_WRITABLE = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means writing to "
    "this tensor will result in undefined behavior. You may want to copy the array to protect its data or make it "
    "writable before converting it to a tensor. This type of warning will be suppressed for the rest of this program. "
    "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:213.)")
NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative strides are not currently "
    "supported. (You can probably work around this by making a copy of your array  with array.copy().) ")
BYTE_ORDER = ("given numpy array has byte order different from the native byte order. Conversion between byte "
              "orders is currently not supported.")
NOT_RESIZABLE = "Trying to resize storage that is not resizable"
STRIDED_VIEW = ("tensorgrad: numpy() of a view of a tensor made from a non-contiguous numpy array is not supported "
                "(tensorgrad lays the tensor out contiguously); call numpy() on the tensor itself, or .clone() the view")


class _Host:
    __slots__ = ("array", "seen", "owner")

    def __init__(self, array, seen, owner=None):
        self.array = array      # the numpy array shared with the user
        self.seen = seen        # an array of the contents the cell's jax array was made from (never written)
        self.owner = owner      # numpy()'s cells: a weak reference to the _Owner of the arrays given out


class _Owner:
    """The base of the arrays ``numpy()`` gives: an object exporting the storage array's memory
    (``__array_interface__``), so every view of those arrays keeps it alive and the cell can tell,
    by its weak reference, when none is left. It keeps the memory alive after the cell too."""

    __slots__ = ("__array_interface__", "array", "__weakref__")

    def __init__(self, array):
        self.array = array
        self.__array_interface__ = array.__array_interface__


def _NO_OWNER():
    return None


def _given(host):
    """Whether an array shared by this host may still be written by the user."""
    return host.owner is None or host.owner() is not None


def _unshare(cell):
    """Make ``cell`` (whose arrays are all gone, its last write taken in) an ordinary cell."""
    del cell.host
    set_class(cell, Cell)


def _same(a, seen):
    kind = _UINT.get(a.dtype.itemsize)
    if kind is not None:
        return np.array_equal(a.view(kind), seen.view(kind))
    return a.tobytes() == seen.tobytes()


def _sync(cell):
    host = cell.host
    array = host.array
    if not _same(array, host.seen):
        copy = np.array(array)
        host.seen = copy
        _VALUE.__set__(cell, put(copy))
        _GEN.__set__(cell, _GEN.__get__(cell) + 1)
    if not _given(host):
        _unshare(cell)


class HostCell(Cell):
    """A cell whose storage is a numpy array shared with the user (see the module docstring)."""

    __slots__ = ()

    @property
    def value(self):
        _sync(self)
        return _VALUE.__get__(self)

    @value.setter
    def value(self, new):
        host = self.host
        if isinstance(new, jax.core.Tracer) or not hasattr(new, "__array__"):
            _VALUE.__set__(self, new)
            return
        if not _given(host):        # no array left to write: this write replaces any numpy write
            _unshare(self)
            _VALUE.__set__(self, new)
            return
        array = host.array
        if tuple(new.shape) != array.shape:
            raise RuntimeError(NOT_RESIZABLE)
        seen = np.asarray(new)
        if array.flags.writeable:
            np.copyto(array, seen, casting="unsafe")
            host.seen = seen
        _VALUE.__set__(self, new)

    @property
    def meta(self):
        return _VALUE.__get__(self)

    @property
    def gen(self):
        # not compared here: a view compares the bytes it covers (``sync_view``) before it
        # trusts its cached value, and every read of ``value`` compares them all
        return _GEN.__get__(self)

    @gen.setter
    def gen(self, value):
        _GEN.__set__(self, value)


# the view steps whose region of the storage ``layout.geometry`` gives in the storage's own dtype
_LAYOUT_STEPS = {"select", "slice", "unsqueeze", "squeeze", "squeeze_dim", "squeeze_dims", "transpose", "t", "permute",
                 "expand", "view", "reshape_alias", "diagonal", "alias", "unbind", "split", "split_with_sizes",
                 "unfold", "as_strided_gather"}


def sync_view(t):
    """Before the view ``t`` of a host cell trusts its cached value or is computed from the cell's
    array: compare the bytes it covers and, when they changed (or no array ``numpy()`` gave is
    left), take in the whole numpy array (``gen`` moves). A row of a large shared dataset then
    costs a compare of the row. Nothing to do in this thread's trace (it reads its overlay)."""
    cell = t._cell
    if overlaid_here(cell):
        return
    host = cell.host
    array, seen = host.array, host.seen
    cached = t._vcache          # of the view's shape and dtype
    if _given(host) and cached is not None and array.flags.c_contiguous and array.dtype == seen.dtype == cached.dtype \
            and all(op.name in _LAYOUT_STEPS for op, _, _ in t._view[0]):
        shape, strides, offset = geometry(t, array.shape)
        if shape != tuple(cached.shape):
            _sync(cell)
            return
        size = array.itemsize
        mine, theirs = (np.lib.stride_tricks.as_strided(a.reshape(-1)[offset:], shape, tuple(st * size for st in strides))
                        for a in (array, seen))
        if _same(mine, theirs):
            return
    _sync(cell)


def check_array(arr):
    """PyTorch's checks of a numpy array to share (``from_numpy``, ``as_tensor``)."""
    if not arr.dtype.isnative:
        raise ValueError(BYTE_ORDER)
    if any(s < 0 for s in arr.strides):
        raise ValueError(NEGATIVE_STRIDES)
    if not arr.flags.writeable and not _WARNED[0]:
        _WARNED[0] = True
        warnings.warn(NOT_WRITABLE, UserWarning, stacklevel=3)


def share_array(arr, wrap):
    """``wrap(jax array)``, a new tensor whose storage is the numpy array ``arr`` (checked)."""
    seen = np.array(arr)
    t = wrap(put(seen))
    cell = t._cell
    cell.host = _Host(arr, seen)
    set_class(cell, HostCell)
    return t


def _on_cpu(array):
    try:
        return all(d.platform == "cpu" for d in array.devices())
    except AttributeError:
        return False


def array_of(t, force=False):
    """``t.numpy(force=force)`` of a tensor that may be read so: a numpy array over ``t``'s
    storage, made shared now if it was not; a copy for a tensor off the CPU, in the middle of
    this thread's trace, or (``force``) with a conjugate or negative bit."""
    conj, neg = conj_bits(t._view) if t._view is not None else (False, False)
    if conj and not force:
        raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() "
                           "instead.")
    if neg and not force:
        raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. Use tensor.resolve_neg().numpy() "
                           "instead.")
    value = t._data
    if is_meta(value) and not force:
        raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                        "host memory first.")
    if is_meta(value):
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if conj or neg:     # force=True: PyTorch's resolve_conj().resolve_neg().numpy(), a copy of the value
        return np.array(value)
    cell = t._cell
    if isinstance(value, jax.core.Tracer) or not _on_cpu(value) or overlaid_here(cell):
        return np.asarray(value)
    if not isinstance(cell, HostCell):
        base = cell.value
        cell.host = _Host(np.array(base), np.asarray(base), owner=_NO_OWNER)
        set_class(cell, HostCell)
    host = cell.host
    storage = host.array
    if host.owner is not None:      # numpy()'s storage: the arrays given are views of its owner
        owner = host.owner()
        if owner is None:
            owner = _Owner(storage)
            host.owner = weakref.ref(owner)
        storage = np.asarray(owner).view(storage.dtype)     # the interface spells bfloat16 as void
    if t._view is None:
        return storage.view()
    if not storage.flags.c_contiguous:
        raise RuntimeError(STRIDED_VIEW)
    shape, strides, offset = geometry(t)
    flat = storage.reshape(-1)
    if flat.dtype != value.dtype:
        flat = flat.view(value.dtype)       # view_as_real / view_as_complex: geometry counts its elements
    size = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[offset:], shape, tuple(s * size for s in strides),
                                           writeable=storage.flags.writeable)



def live_array(t):
    """The numpy array that holds ``t``'s current contents, when ``t`` is a whole (not a view)
    tensor over memory shared with numpy and readable here; else None. Reading rows of it costs
    what the rows cost, not a compare of the whole storage (``DataLoader``'s batches of a
    ``TensorDataset`` over ``torch.from_numpy(data)`` read it so)."""
    cell = t._cell
    if t._view is not None or not isinstance(cell, HostCell) or overlaid_here(cell):
        return None
    if isinstance(_VALUE.__get__(cell), jax.core.Tracer):
        return None
    return cell.host.array
