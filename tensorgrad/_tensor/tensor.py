"""The Tensor's state: the class, its attributes and properties, conversions, and the
constructors of plain tensors (``_wrap``).

A Tensor points at a storage cell (``_cell``), and a view also at the chain of view steps from
the cell's array to its value (``_view``). ``_data`` reads the value, ``_write`` stores one;
both, and ``.grad`` reads and writes, are events for an open storage watch
(``tensorgrad/_storage/watch.py``), at the cost of testing one module flag when none is open.

Two methods come from the modules above this one in the package: ``_sync_view`` (rebuilding a
view's history after an in-place write, ``inplace.py``) and ``backward`` (``backward.py``); the
package's ``__init__`` attaches them. The torch-level functions and most methods live in
``tensorgrad/_api`` and are attached to Tensor there.
"""

import sys
import weakref
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .. import _device
from .._meta import is_meta
from .._printing import TensorType
from .._autograd.grad_mode import STATE
from .._autograd.node import AccumulateGrad
from .._hooks import RemovableHandle
from .._ops.views import repeats
from .._storage.cell import Cell, LazyCell, VersionCounter, reader, writer
from .._storage.host import HostCell, array_of, sync_view
from .._storage.overlay import placed
from .._storage.watch import note_grad_read, note_grad_write, note_read, note_write, on_watching

# The package, where the layers above set REPR and LEGACY_CONSTRUCTOR (see the end of this file).
_PACKAGE = sys.modules[__package__]

_WATCHING = False       # a storage watch is open in some thread (kept by watch.py)


def _set_watching(flag):
    global _WATCHING
    _WATCHING = flag


on_watching(_set_watching)

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")

FLOAT_OF_GRAD_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")

NON_LEAF_REQUIRES_GRAD_OFF = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
    "subgraph that doesn't require differentiation use var_no_grad = var.detach().")


class Tensor(metaclass=TensorType):
    """A multi-dimensional array with PyTorch's autograd: ``requires_grad``, ``grad_fn``,
    ``backward()``, ``grad``, views and in-place ops.

    >>> import tensorgrad as torch
    >>> x = torch.tensor([1., 2.], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """

    # Class-level defaults keep construction cheap: an op output sets only what differs.
    _view = None        # (steps, dyns): from the cell's array to this tensor's value (set on every
                        # tensor made here, though: an instance attribute reads faster, and _data reads it)
    _vcache = None      # this view's value at cell generation _vgen
    _vgen = -1
    _base = None        # the autograd base of a view
    _rel = None         # (steps, dyns): from the base's value to this view's value
    _attr_version = 0   # the storage version when this view's grad_fn was last built
    _grad_fn = None
    _output_nr = 0
    _rg = False         # requires_grad
    _grad_value = None  # .grad, read and written through ``_grad`` (a watch event)
    _vc = None          # own version counter (``.data`` aliases); None: the cell counts
    _acc = None         # this leaf's AccumulateGrad node
    _retains = False
    _post_acc = None
    _inference = False
    _creation = None    # PyTorch's CreationMeta of a view: None (default), "no_grad" or "multi"
    _is_param = False
    __array_priority__ = 1000

    def __new__(cls, *args, **kwargs):
        return _PACKAGE.LEGACY_CONSTRUCTOR(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        pass

    # ------------------------------------------------------------------ storage
    @property
    def _data(self):
        """The current jax array (recomputed for a view whose storage was written)."""
        if _WATCHING:
            note_read(self)
        view = self._view
        if view is None:
            return self._cell.value
        cell = self._cell
        if isinstance(cell, HostCell):
            sync_view(self)         # compares the bytes this view covers: ``meta`` is then current for them
        if self._vgen != cell.gen:
            self._vcache = reader(view[0])(cell.meta, view[1])
            self._vgen = cell.gen
        return self._vcache

    @property
    def _meta(self):
        """An array of this tensor's shape and dtype, for what reads no element: a tensor over
        memory shared with numpy does not compare that memory for it."""
        if self._view is None:
            if _WATCHING:
                note_read(self)
            cell = self._cell
            if type(cell) is LazyCell:
                return cell.host        # a deferred result's placeholder: its shape and dtype
            return cell.meta
        cached = self._vcache       # a view's last value has its shape and dtype, current or not
        return self._data if cached is None or _WATCHING else cached

    @property
    def _version(self):
        return (self._vc or self._cell).version

    def _bump(self):
        (self._vc or self._cell).version += 1

    def _write(self, value):
        """Store ``value`` (this tensor's shape and dtype) into the storage."""
        if _WATCHING:
            note_write(self)
        cell = self._cell
        view = self._view
        if view is None:
            cell.value = value
        else:
            cell.value = writer(view[0])(cell.value, view[1], value)
            if not repeats(view[0]):    # else the elements written twice are read back from the storage
                self._vcache = value
                self._vgen = cell.gen + 1
        cell.gen += 1

    @property
    def _grad(self):
        """``.grad`` without PyTorch's checks and warning (what the engine and optimizers use)."""
        if _WATCHING:
            note_grad_read(self, self._grad_value)
        return self._grad_value

    @_grad.setter
    def _grad(self, value):
        if _WATCHING:
            note_grad_write(self, self._grad_value)
        self._grad_value = value

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self):
        return Size(self._meta.shape)

    def size(self, dim=None):
        shape = self._meta.shape
        if dim is None:
            return Size(shape)
        return shape[_wrap_dim(dim, len(shape))]

    @property
    def dtype(self):
        return _dtype.FROM_NP[self._meta.dtype]

    @property
    def device(self):
        return _device.of_array(placed(self._cell, self._data))

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def is_meta(self):
        """Whether this is a meta tensor (a shape and dtype without data)."""
        return is_meta(self._data)

    def dim(self):
        return self._meta.ndim

    ndim = property(dim)

    def ndimension(self):
        return self._meta.ndim

    def numel(self):
        return int(self._meta.size)

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    def is_floating_point(self):
        return self.dtype.kind == _dtype.FLOAT

    def is_complex(self):
        return self.dtype.kind == _dtype.COMPLEX

    def is_inference(self):
        return self._inference

    def __len__(self):
        shape = self._data.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __hash__(self):
        return id(self)

    # ------------------------------------------------------------------ autograd attributes
    @property
    def requires_grad(self):
        # As PyTorch: a view requires grad when its base does; this never rebuilds its history.
        base = self._base
        return self._rg or (base is not None and base._rg)

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, bool):
            raise RuntimeError("requires_grad must be a bool")
        if not self.is_leaf:
            if value:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(NON_LEAF_REQUIRES_GRAD_OFF)
        if value and self.dtype.kind < _dtype.FLOAT:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._rg = value

    def requires_grad_(self, requires_grad=True):
        if not isinstance(requires_grad, bool):
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                            f"{type(requires_grad).__name__}")
        if not self.is_leaf:
            if requires_grad:
                return self
            raise RuntimeError(NON_LEAF_REQUIRES_GRAD_OFF)
        if requires_grad and self.dtype.kind < _dtype.FLOAT:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not STATE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._rg = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        if self._base is not None:
            self._sync_view()
        return self._grad_fn

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        if _WATCHING:
            note_grad_read(self, self._grad_value)
        return self._grad_value

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if tuple(value.shape) != tuple(self.shape):
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size")
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_C_TYPE[value.dtype.name]}' to a tensor with "
                    f"grad_dtype '{self.dtype.c_name}'. The gradient must match the tensor's grad_dtype (defaults "
                    "to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, "
                    "or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor "
                    "and its gradient may break downstream systems that assume they match.")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains

    def retain_grad(self):
        """Keep this non-leaf's gradient in ``.grad`` after backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains:
            return
        self._retains = True
        self._grad_fn._register_retain(self._output_nr, weakref.ref(self))

    def _edge(self):
        """``(node, output_nr)`` through which gradient reaches this tensor."""
        if self._base is not None:
            self._sync_view()
        fn = self._grad_fn
        if fn is not None:
            return (fn, self._output_nr)
        if self._rg:
            acc = self._acc
            if acc is None:
                acc = self._acc = AccumulateGrad(weakref.ref(self))
            return (acc, 0)
        return (None, 0)

    def register_hook(self, hook):
        """``hook(grad) -> Tensor or None`` runs when this tensor's gradient is computed."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        node, nr = self._edge()
        if node is None:
            # a view made in no_grad mode requires grad (its base does) but no gradient ever
            # reaches it: as in PyTorch, its hooks are kept and never run
            return RemovableHandle({}, hook)
        return node._register_tensor_hook(nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor) -> None`` runs after a backward wrote this leaf's ``.grad``."""
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_acc is None:
            self._post_acc = {}
        return RemovableHandle(self._post_acc, hook)

    # ``backward`` (backward.py) and ``_sync_view`` (inplace.py) are attached by the package's __init__.

    # ------------------------------------------------------------------ detach and data
    def detach(self):
        """A tensor sharing storage and version counter, cut from the graph."""
        t = object.__new__(Tensor)
        if STATE.functional and isinstance(self._data, jax.core.Tracer):
            # inside a tensorgrad.func transform, detach cuts the gradient as torch.func does
            t._cell = Cell(jax.lax.stop_gradient(self._data))
            return t
        t._cell = self._cell
        t._vc = self._vc
        t._view = self._view
        return t

    def detach_(self):
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
                "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
                "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
                "torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._rg = False
        return self

    @property
    def data(self):
        """A tensor sharing storage but with its own version counter (edits are untracked)."""
        t = self.detach()
        t._vc = VersionCounter()
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._cell = Cell(value._data)
        self._view = None
        self._vcache = None

    def __repr__(self, *, tensor_contents=None):
        data = self._data
        if isinstance(data, jax.core.Tracer):
            # inside a JAX transform the value may be abstract: show what JAX knows about it
            return f"tensor({data!r})"
        return _PACKAGE.REPR(self)

    def __format__(self, spec):
        if self._data.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def item(self):
        arr = self._data
        if STATE.vmap and isinstance(arr, jax.core.Tracer):
            raise RuntimeError(VMAP_ITEM)
        if arr.size == 1:
            _number(arr)
        if arr.size != 1:
            raise RuntimeError(f"a Tensor with {arr.size} elements cannot be converted to Scalar")
        return np.asarray(arr).reshape(()).item()

    def tolist(self):
        return np.asarray(_host(self._data)).tolist()

    def numpy(self, *, force=False):
        if self.requires_grad and STATE.grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return array_of(self, force)

    def __array__(self, dtype=None, copy=None):
        arr = np.asarray(_host(self._data))
        return arr if dtype is None else arr.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """NumPy's functions of a tensor give a tensor, as in PyTorch (``np.exp(t)``; a boolean
        result as uint8, as PyTorch wraps it)."""
        array = np.asarray(array)
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return _wrap(_device.put(array))

    def __jax_array__(self):
        return self._data

    def jax(self):
        """The current jax array (no copy)."""
        return self._data

    def _scalar(self, kind):
        arr = self._data
        if arr.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return kind(np.asarray(_number(arr)).reshape(()).item())

    def __float__(self):
        # PyTorch warns only with grad mode on (LBFGS reads its losses under no_grad, silently)
        if self.requires_grad and STATE.grad:
            warnings.warn(FLOAT_OF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __complex__(self):
        return self._scalar(complex)

    def __bool__(self):
        arr = self._data
        if arr.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if arr.size == 0 else 'more than one value'} "
                               "is ambiguous")
        return bool(np.asarray(_number(arr)).reshape(()).item())

    def __index__(self):
        if self.dtype.kind > _dtype.INT or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return self._scalar(int)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        return iter(self.flip(0).unbind(0)) if self._data.ndim else self

    def __contains__(self, element):
        return bool((self == element).any())

    def __deepcopy__(self, memo):
        t = _wrap(self._data, self._rg and self.is_leaf)
        if self._grad is not None:
            t._grad = _wrap(self._grad._data)
        memo[id(self)] = t
        return t

    def __reduce_ex__(self, proto):
        return (_rebuild, (np.asarray(self._data), self._rg and self.is_leaf))

class Size(tuple):
    """A tensor's shape: a tuple that prints as ``torch.Size([3, 4])``."""

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


_C_TYPE = {"float64": "double", "float32": "float", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
           "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
           "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
           "complex128": "c10::complex<double>"}


def _rebuild(array, requires_grad):
    return _wrap(jnp.asarray(array), requires_grad)


def _wrap_dim(dim, ndim):
    lo, hi = -max(ndim, 1), max(ndim, 1) - 1
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim % max(ndim, 1)


BACKWARD_IN_TRANSFORM = (
    "backward() called inside a functorch transform. This is not supported, please use functorch.grad or "
    "functorch.vjp instead or call backward() outside of functorch transforms.")
VMAP_ITEM = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
    "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere "
    "inside PyTorch internals, please file a bug report.")


def _number(array):
    """``array``, one element, for a Python number; a meta tensor has none (PyTorch's error)."""
    if is_meta(array):
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    return array


def _host(array):
    """``array`` for numpy; a meta tensor has no data to give (PyTorch's error)."""
    if is_meta(array):
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    return array


def _wrap(array, requires_grad=False):
    """A new leaf Tensor over ``array``."""
    t = object.__new__(Tensor)
    t._cell = Cell(array)
    t._view = None
    if requires_grad:
        t._rg = True
    if STATE.inference:
        t._inference = True
    return t


def _wrap_on_edge(array, fn, output_nr):
    """A Tensor over ``array`` that stands at the graph edge ``(fn, output_nr)``: gradients reach
    ``fn`` (a leaf's AccumulateGrad, or output ``output_nr`` of an op's node) as they would from
    the tensor the edge came from."""
    t = _wrap(array, requires_grad=True)
    if type(fn) is AccumulateGrad:
        t._acc = fn
    else:
        t._grad_fn = fn
        t._output_nr = output_nr
    return t


# ``tensorgrad._tensor.LEGACY_CONSTRUCTOR`` (``torch.Tensor(...)``) and ``tensorgrad._tensor.REPR``
# are set on the package by the layers above (the constructor and the printer need the factories).
