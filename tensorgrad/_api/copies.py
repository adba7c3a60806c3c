"""The ``*_copy`` functions (``permute_copy``, ``unbind_copy``, ...), ``as_strided`` and its
scatter, the ``unsafe_`` splits, the strided factories (``empty_strided``, ``empty_permuted``)
and ``resize_``.

A ``*_copy`` function checks its arguments as its view does, then computes the same value as a
new tensor: the view is taken of a fresh alias of the input's value (no graph, no storage
shared) to learn its steps, and each step runs as the view op's copy twin
(``V.COPIES``), whose node is named as PyTorch's (``PermuteBackward0_copy``).
"""

import math

import numpy as np

from .._autograd.grad_mode import no_grad
from .._ops import views as V
from .._storage.layout import contiguous_strides, geometry, positions, view_strides
from .._tensor import Tensor, _wrap, apply, check_inplace
from . import creation as _creation
from . import joining as _joining
from . import shape as _shape
from . import strides as _strides
from .surface import declare


def _copied(view_fn, input, *args, twins=V.COPIES, **kwargs):
    """``view_fn(input, ...)`` computed as a new tensor through the copy twins of its steps."""
    probe = _wrap(input._data)
    with no_grad():
        view = view_fn(probe, *args, **kwargs)
    first = view[0] if isinstance(view, (tuple, list)) else view
    if first._view is None:         # the view function returned its input (a 0-d transpose)
        return apply(V.COPIES[V.alias], (input,))
    out = input
    for (step, cfg, k), dyn in zip(*first._view):
        out = apply(twins[step], (out, *dyn), cfg)
        if k is not None and out is not None and isinstance(view, Tensor):
            out = out[k]
    return out


@declare("alias_copy", out=True)
def alias_copy(input):
    return apply(V.COPIES[V.alias], (input,))


@declare("detach_copy", out=True)
def detach_copy(input):
    return alias_copy(input).detach()


@declare("permute_copy", out=True)
def permute_copy(input, dims):
    return _copied(_shape.permute, input, dims)


@declare("t_copy", out=True)
def t_copy(input):
    return _copied(_shape.t, input)


@declare("transpose_copy", out=True)
def transpose_copy(input, dim0, dim1):
    return _copied(_shape.transpose, input, dim0, dim1)


@declare("squeeze_copy", out=True)
def squeeze_copy(input, dim=None):
    return _copied(_shape.squeeze, input, dim)


@declare("unsqueeze_copy", out=True)
def unsqueeze_copy(input, dim):
    return _copied(_shape.unsqueeze, input, dim)


@declare("expand_copy", out=True)
def expand_copy(input, size, *, implicit=False):
    return _copied(_shape.expand, input, size)


@declare("diagonal_copy", out=True)
def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    return _copied(_shape.diagonal, input, offset, dim1, dim2)


@declare("select_copy", out=True)
def select_copy(input, dim, index):
    return _copied(_shape.select, input, dim, index)


@declare("slice_copy", out=True)
def slice_copy(input, dim=0, start=None, end=None, step=1):
    dim = _shape._wrap_dim(dim, input.ndim)
    return _copied(_shape._slice, input, dim, start, end, step)


@declare("narrow_copy", method=True, out=True)
def narrow_copy(input, dim, start, length):
    if isinstance(dim, int) and dim >= input.ndim:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.")
    return _copied(_shape.narrow, input, dim, start, length, twins={V.slice_: V.NARROW_COPY})


@declare("unfold_copy", out=True)
def unfold_copy(input, dimension, size, step):
    return _copied(_shape.unfold, input, dimension, size, step)


@declare("view_copy", out=True)
def view_copy(input, size):
    if isinstance(size, type(input.dtype)):
        return _copied(_shape.view, input, size)
    # as reshape: the copy reads the value, whatever its strides
    shape = _shape._infer_shape(_shape._shape_arg((size,)), input.numel())
    return apply(V.COPIES[V.view], (input,), (shape,))


@declare("_reshape_alias_copy", out=True)
def _reshape_alias_copy(input, size, stride):
    """PyTorch's ``_reshape_alias`` as a new tensor: the storage elements at ``size`` and
    ``stride`` from input's offset, differentiated as a reshape (``ReshapeAliasBackward0_copy``).

    PyTorch checks nothing more than the lengths (other strides read wherever they point, even
    past the storage); here the layout must be the one ``input.reshape(size)`` would view.
    """
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    if any(n < 0 for n in size):
        raise RuntimeError("numel: integer multiplication overflow")
    old_shape, old_strides, _ = geometry(input)
    expected = view_strides(old_shape, old_strides, size) if math.prod(size) == input.numel() else None
    if expected is None or (input.numel() and any(n != 1 and s != e for n, s, e in zip(size, stride, expected))):
        raise NotImplementedError(f"_reshape_alias_copy: sizes {list(size)} with strides {list(stride)} are not a "
                                  f"reshape of the input's layout (sizes {list(old_shape)}, strides "
                                  f"{list(old_strides)}); only the strides input.reshape(size) would give are "
                                  f"supported")
    return apply(V.COPIES[V.reshape_alias], (input,), (size,))


@declare("unbind_copy", out=True)
def unbind_copy(input, dim=0):
    return _copied(_joining.unbind, input, dim)


@declare("split_copy", out=True)
def split_copy(input, split_size, dim=0):
    if not isinstance(split_size, int):     # sizes are split_with_sizes_copy's
        raise TypeError(f"split_copy(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    return _copied(_joining.split, input, split_size, dim)


@declare("split_with_sizes_copy", out=True)
def split_with_sizes_copy(input, split_sizes, dim=0):
    return _copied(_joining.split, input, list(split_sizes), dim)


@declare("split_with_sizes", method=True)
def split_with_sizes(input, split_sizes, dim=0):
    return _joining.split(input, list(split_sizes), dim)


# ---------------------------------------------------------------- the unsafe splits

@declare("unsafe_split", method=True)
def unsafe_split(input, split_size, dim=0):
    """``split`` whose outputs are new tensors (PyTorch's share memory without being views)."""
    if not isinstance(split_size, int):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    return _copied(_joining.split, input, split_size, dim, twins={V.split: V.UNSAFE_SPLIT})


@declare("unsafe_split_with_sizes", method=True)
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return _copied(_joining.split, input, list(split_sizes), dim,
                   twins={V.split_with_sizes: V.UNSAFE_SPLIT_WITH_SIZES})


@declare("unsafe_chunk", method=True)
def unsafe_chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = input.shape[_shape._wrap_dim(dim, input.ndim)]
    return unsafe_split(input, -(-size // chunks) if size else 1, dim)


# ---------------------------------------------------------------- as_strided

def _strided_args(input, size, stride, storage_offset):
    size = tuple(int(n) for n in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    return size, stride


def _storage_check(size, stride, offset, storage, itemsize):
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > storage:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of bounds "
                           f"for storage of size {storage * itemsize}")


def _element_index(layout, size, stride, offset, storage):
    """Where each element of the strided layout sits among the elements of a tensor laid out as
    ``layout`` (shape, strides, offset) in a storage of ``storage`` elements, or None if some
    element is not one of them."""
    lookup = np.full(storage + 1, -1, np.int64)
    lookup[positions(*layout)] = np.arange(math.prod(layout[0]), dtype=np.int64)
    index = lookup[positions(size, stride, offset)]
    return None if (index < 0).any() else index.reshape(size)


def _strided(input, size, stride, storage_offset, name):
    """``(index, (size, stride, offset))``: the arguments of the gather that reads ``input``'s
    storage at the given layout (the offset defaults to input's)."""
    offset = geometry(input)[2] if storage_offset is None else int(storage_offset)
    size, stride = _strided_args(input, size, stride, offset)
    storage = input._cell.value.size
    _storage_check(size, stride, offset, storage, input.element_size())
    index = _element_index(geometry(input), size, stride, offset, storage)
    if index is None:
        raise NotImplementedError(f"{name}: the view reaches storage elements outside its input view; "
                                  f"{name} of the base tensor can reach them")
    return index, (size, stride, offset)


@declare("as_strided", method=True)
def as_strided(input, size, stride, storage_offset=None):
    """A view of ``input``'s storage with the given sizes, strides and offset."""
    index, cfg = _strided(input, size, stride, storage_offset, "as_strided")
    return apply(V.as_strided_gather, (input, index), cfg)


@declare("as_strided_copy", out=True)
def as_strided_copy(input, size, stride, storage_offset=None):
    """``as_strided`` as a new tensor: the same storage elements (of input's storage, laid out as
    input's view lays them), computed by the gather's copy twin (``AsStridedBackward0_copy``)."""
    index, cfg = _strided(input, size, stride, storage_offset, "as_strided_copy")
    return apply(V.COPIES[V.as_strided_gather], (input, index), cfg)


@declare("as_strided_scatter", method=True)
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """``input`` cloned with ``src`` written into ``as_strided(size, stride, storage_offset)``
    of the clone (which keeps input's strides where it is dense, as ``clone`` does)."""
    shape = tuple(input.shape)
    if input.requires_grad and not _strides.is_contiguous(input):
        raise RuntimeError("as_strided_scatter is currently only supported for contiguous inputs")
    _, strides, _ = geometry(input)
    clone_strides = strides if _strides._dense(shape, strides) else contiguous_strides(shape)
    offset = 0 if storage_offset is None else int(storage_offset)
    size, stride = _strided_args(input, size, stride, offset)
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(size)}")
    storage = max(input.numel(), 1)
    _storage_check(size, stride, offset, input.numel(), input.element_size())
    index = _element_index((shape, clone_strides, 0), size, stride, offset, storage)
    return apply(V.as_strided_scatter, (input, src, index))


# ---------------------------------------------------------------- strided factories, resizing

@declare("empty_strided", factory=True)
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """An uninitialized (here: zero) tensor laid out with ``stride``: a strided view of a storage
    just large enough."""
    size, stride = _strided_args(None, size, stride, 0)
    needed = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    storage = _creation.empty(needed, dtype=dtype, device=device)
    out = as_strided(storage, size, stride, 0)
    return out.requires_grad_() if requires_grad else out


@declare(method=("new_empty_strided",))
def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                      pin_memory=False):
    """``empty_strided`` with ``self``'s dtype and device unless given."""
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad, layout=layout, pin_memory=pin_memory)


@declare("empty_permuted", factory=True)
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialized (here: zero) tensor of ``size`` whose dimensions lie in memory in the
    order ``physical_layout`` (outermost first)."""
    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; "
                           f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}"
                           if len(order) != len(size) else "Dimension appears twice in physical_layout")
    storage = _creation.empty(tuple(size[d] for d in order), dtype=dtype, device=device)
    out = _shape.permute(storage, tuple(int(np.argsort(order)[d]) for d in range(len(order))))
    return out.requires_grad_() if requires_grad else out


@declare(method=("resize_",))
def resize_(self, *sizes, memory_format=None):
    """Resize in place: the first elements (row-major) are kept, new ones are zero."""
    shape = _shape._shape_arg(sizes)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    if tuple(shape) == tuple(self.shape):
        return self
    if self._view is not None:
        raise NotImplementedError("resize_ of a view to another shape is not supported; resize its base")
    flat = self._data.reshape(-1)
    n = math.prod(shape)
    kept = flat[:n] if n <= flat.size else _joining.cat(
        [_wrap(flat), _creation.zeros(n - flat.size, dtype=self.dtype)])._data
    self._write(kept.reshape(shape))
    self._bump()
    return self


@declare("resize_as_", method=True)
def resize_as_(input, the_template, *, memory_format=None):
    return resize_(input, tuple(the_template.shape))


# ---------------------------------------------------------------- in-place views

def _inplace_view(self, view_fn, *args):
    """``self`` made the value of ``view_fn(self, *args)`` in place (``t_``, ``squeeze_``, ...),
    recorded as PyTorch's in-place view node (``TBackward1``, ...).

    The tensor takes a storage of its own: views taken of it before the call keep the old storage.
    """
    check_inplace(self)
    if self._base is not None:
        raise NotImplementedError(f"{view_fn.__name__}_ of a view is not supported; apply it to a clone")
    new = _copied(view_fn, self, *args, twins=V.INPLACE_VIEWS)
    version = self._version + 1
    self._cell = new._cell
    self._cell.version = version
    self._vc = None
    self._grad_fn = new._grad_fn
    self._rg = new._rg
    self._output_nr = new._output_nr
    return self


@declare(method=("t_",))
def t_(self):
    return _inplace_view(self, _shape.t)


@declare(method=("transpose_", "swapdims_", "swapaxes_"))
def transpose_(self, dim0, dim1):
    return _inplace_view(self, _shape.transpose, dim0, dim1)


@declare(method=("squeeze_",))
def squeeze_(self, dim=None):
    return _inplace_view(self, _shape.squeeze, dim)


@declare(method=("unsqueeze_",))
def unsqueeze_(self, dim):
    return _inplace_view(self, _shape.unsqueeze, dim)


@declare("as_strided_", method=True)
def as_strided_(input, size, stride, storage_offset=None):
    return _inplace_view(input, as_strided, size, stride, storage_offset)
