"""The Tensor: a mutable, aliasing handle on jax arrays that records PyTorch's graph.

This file holds the Tensor's state and its autograd attributes, and the dispatch path every
op call takes (``apply``), including views and in-place write-back. The torch-level functions
and most methods live in ``tensorgrad/_api`` and are attached to Tensor there.
"""

import math
import weakref
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtype
from . import _device
from ._autograd.grad_mode import STATE
from ._autograd.node import AccumulateGrad, OpNode, node_class
from ._autograd import engine
from ._autograd.dependence import depends_on
from ._hooks import RemovableHandle
from ._ops.registry import OpDef, vjp_call
from ._ops import views as _views
from ._storage import Cell, VersionCounter, reader, writer, _compose, _scatter

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


class Tensor:
    """A multi-dimensional array with PyTorch's autograd: ``requires_grad``, ``grad_fn``,
    ``backward()``, ``grad``, views and in-place ops.

    >>> import tensorgrad as torch
    >>> x = torch.tensor([1., 2.], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """

    # Class-level defaults keep construction cheap: an op output sets only what differs.
    _view = None        # (steps, dyns): from the cell's array to this tensor's value
    _vcache = None      # this view's value at cell generation _vgen
    _vgen = -1
    _base = None        # the autograd base of a view
    _rel = None         # (steps, dyns): from the base's value to this view's value
    _attr_version = 0   # the storage version when this view's grad_fn was last built
    _grad_fn = None
    _output_nr = 0
    _rg = False         # requires_grad
    _grad = None
    _vc = None          # own version counter (``.data`` aliases); None: the cell counts
    _acc = None         # this leaf's AccumulateGrad node
    _retains = False
    _post_acc = None
    _inference = False
    _creation = None    # PyTorch's CreationMeta of a view: None (default), "no_grad" or "multi"
    _is_param = False
    __array_priority__ = 1000

    def __new__(cls, *args, **kwargs):
        return LEGACY_CONSTRUCTOR(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        pass

    # ------------------------------------------------------------------ storage
    @property
    def _data(self):
        """The current jax array (recomputed for a view whose storage was written)."""
        view = self._view
        if view is None:
            return self._cell.value
        cell = self._cell
        if self._vgen != cell.gen:
            self._vcache = reader(view[0])(cell.value, view[1])
            self._vgen = cell.gen
        return self._vcache

    @property
    def _version(self):
        return (self._vc or self._cell).version

    def _bump(self):
        (self._vc or self._cell).version += 1

    def _write(self, value):
        """Store ``value`` (this tensor's shape and dtype) into the storage."""
        cell = self._cell
        view = self._view
        if view is None:
            cell.value = value
        else:
            cell.value = writer(view[0])(cell.value, view[1], value)
            self._vcache = value
            self._vgen = cell.gen + 1
        cell.gen += 1

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        shape = self._data.shape
        if dim is None:
            return Size(shape)
        return shape[_wrap_dim(dim, len(shape))]

    @property
    def dtype(self):
        return _dtype.FROM_NP[self._data.dtype]

    @property
    def device(self):
        return _device.of_array(self._data)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def dim(self):
        return self._data.ndim

    ndim = property(dim)

    def ndimension(self):
        return self._data.ndim

    def numel(self):
        return int(self._data.size)

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
        return self._grad

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
        return node._register_tensor_hook(nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor) -> None`` runs after a backward wrote this leaf's ``.grad``."""
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_acc is None:
            self._post_acc = {}
        return RemovableHandle(self._post_acc, hook)

    def _accumulate_grad(self, g, create_graph, retained=False):
        """Add a backward's gradient into ``.grad`` (in place, as PyTorch)."""
        if create_graph:
            if self._grad is None:
                # PyTorch stores a differentiable copy (CopyBackwards), cast to this tensor's dtype
                dst = _wrap(jnp.zeros((), self._data.dtype))
                self._grad = apply(_GRAD_COPY, (dst, g)) if g._rg else _wrap(g._data.astype(self._data.dtype))
            else:
                self._grad = self._grad + g
            return
        if g.dtype != self._data.dtype:
            g = g.astype(self._data.dtype)
        old = self._grad
        if old is None:
            self._grad = _wrap(g)
        elif retained:
            # PyTorch's retain_grad hook accumulates out of place (a new .grad object)
            self._grad = _wrap(engine._add(old._data, g))
        elif old._grad_fn is not None or old._rg:
            self._grad = old + _wrap(g)
        else:
            old._write(engine._add(old._data, g))
            old._bump()

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. graph leaves (see ``autograd.backward``)."""
        if STATE.functional:
            raise RuntimeError(BACKWARD_IN_TRANSFORM)
        run_backward((self,), gradient, retain_graph, create_graph, inputs)

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
        if self._view is not None:
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
        return REPR(self)

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
        if arr.size != 1:
            raise RuntimeError(f"a Tensor with {arr.size} elements cannot be converted to Scalar")
        return np.asarray(arr).reshape(()).item()

    def tolist(self):
        return np.asarray(self._data).tolist()

    def numpy(self, *, force=False):
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return np.asarray(self._data)

    def __array__(self, dtype=None, copy=None):
        arr = np.asarray(self._data)
        return arr if dtype is None else arr.astype(dtype)

    def __jax_array__(self):
        return self._data

    def jax(self):
        """The current jax array (no copy)."""
        return self._data

    def _scalar(self, kind):
        arr = self._data
        if arr.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return kind(np.asarray(arr).reshape(()).item())

    def __float__(self):
        if self.requires_grad:
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
        return bool(np.asarray(arr).reshape(()).item())

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

    # ------------------------------------------------------------------ views
    def _sync_view(self):
        """Rebuild a view's history (AsStridedBackward0) once its storage was written in place,
        as PyTorch does whenever a view's grad_fn is read after the version moved."""
        holder = self._vc or self._cell
        if self._attr_version == holder.version:
            return
        base = self._base
        if self._grad_fn is None and not base._rg:
            return
        _check_rebase(self, True)
        steps, dyns = self._rel
        prev = STATE.grad
        STATE.grad = True
        try:
            out = apply(_views.as_strided_view, (base, dyns), (steps,), _view_result=False)
        finally:
            STATE.grad = prev
        self._grad_fn = out._grad_fn
        self._output_nr = 0
        self._rg = out._rg
        self._attr_version = holder.version


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

# ``.grad`` made by a create_graph backward: a differentiable copy into a tensor of the leaf's dtype
_GRAD_COPY = OpDef("grad_copy", lambda dst, src: src.astype(dst.dtype), "CopyBackwards", saves="none",
                   scalar_slots=False)


def _wrap(array, requires_grad=False):
    """A new leaf Tensor over ``array``."""
    t = object.__new__(Tensor)
    t._cell = Cell(array)
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


# Set by the layers above (the legacy constructor and the printer need the factories).
LEGACY_CONSTRUCTOR = None
REPR = None


# ====================================================================== dispatch

_NUMBER = (int, float, complex, np.number, np.bool_)


_SCALAR_ARRAY_TYPES = {float: np.float64, int: np.int64, bool: np.bool_}
_SCALAR_ARRAYS = {}


def _scalar_array(value):
    """A cached 0-d device array for a Python number.

    Ops that take numbers as operands cast them to the promoted dtype inside the kernel, so a
    0-d array of the number's own type carries the exact value; passing a cached array to a
    compiled call is cheaper than converting the number on every call.
    """
    key = (value, type(value), value == 0 and math.copysign(1.0, value) < 0)
    arr = _SCALAR_ARRAYS.get(key)
    if arr is None:
        try:
            with jax.ensure_compile_time_eval():    # a concrete array even while jax traces
                arr = jnp.asarray(value, _SCALAR_ARRAY_TYPES[type(value)])
        except OverflowError:
            return value
        if len(_SCALAR_ARRAYS) > 4096:
            _SCALAR_ARRAYS.clear()
        _SCALAR_ARRAYS[key] = arr
    return arr


_FLOAT_KIND = {d.np: d.kind >= _dtype.FLOAT for d in _dtype.ALL}


def _kind(arr):
    return _FLOAT_KIND[arr.dtype]


def _broadcast_error(arrays, error):
    """PyTorch's RuntimeError for operands whose shapes do not broadcast (JAX raises a
    TypeError or ValueError); any other error is returned unchanged."""
    if "incompatible shapes for broadcasting" not in str(error).lower():
        return error
    shapes = [tuple(a.shape) for a in arrays if hasattr(a, "shape")]
    acc = shapes[0]
    for other in shapes[1:]:
        ndim = max(len(acc), len(other))
        a = (1,) * (ndim - len(acc)) + acc
        b = (1,) * (ndim - len(other)) + other
        for i in reversed(range(ndim)):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                return RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                                    f"non-singleton dimension {i}")
        acc = tuple(max(x, y) for x, y in zip(a, b))
    return error


def apply(op, args, cfg=(), *, _view_result=True):
    """Run ``op`` on ``args`` (Tensors, Python numbers, jax arrays) and wrap the result.

    Records a node when grad mode is on and a Tensor argument requires grad; a view op's
    result shares its input's storage.
    """
    arrays = []
    record = False
    scalars_as_arrays = op.scalar_slots
    for a in args:
        if isinstance(a, Tensor):
            if a._base is not None and STATE.grad:
                a._sync_view()
                if a._base._rg:
                    record = True       # a view requires grad when its base does
            arrays.append(a._data)
            if a._rg:
                record = True
        elif scalars_as_arrays and type(a) in _SCALAR_ARRAY_TYPES:
            arrays.append(_scalar_array(a))
        else:
            arrays.append(a)
    if record and STATE.grad and op.differentiable and not STATE.inference:
        return _record(op, args, arrays, cfg, _view_result)
    fwd = op._fwd.get(cfg)
    try:
        out = (fwd or op.forward(cfg))(*arrays)
    except (TypeError, ValueError) as error:
        raise _broadcast_error(arrays, error) from None
    if STATE.functional and not STATE.grad:
        return _stopped(out)
    if type(out) is not tuple and not op.is_view:
        t = object.__new__(Tensor)
        t._cell = Cell(out)
        if STATE.inference:
            t._inference = True
        return t
    if type(out) is tuple:
        return tuple(_make_output(op, args, arrays, cfg, o, k, None, _view_result) for k, o in enumerate(out))
    return _make_output(op, args, arrays, cfg, out, None, None, _view_result)


def _stopped(out):
    """Results computed under no_grad inside a tensorgrad.func transform: gradients stop here."""
    if type(out) is tuple:
        return tuple(_wrap(jax.lax.stop_gradient(o)) for o in out)
    return _wrap(jax.lax.stop_gradient(out))


def _make_output(op, args, arrays, cfg, out, k, node, view_result):
    t = object.__new__(Tensor)
    if op.is_view and view_result:
        src = args[0]
        t._cell = cell = src._cell
        if src._vc is not None:
            t._vc = src._vc
        step = ((op, cfg, k),)
        dyn = (tuple(arrays[1:]),)
        if src._view is None:
            t._view = (step, dyn)
        else:
            t._view = (src._view[0] + step, src._view[1] + dyn)
        t._vcache = out
        t._vgen = cell.gen
        base = src._base
        if base is None:
            t._base = base = src
            t._rel = (step, dyn)
        else:
            t._base = base
            t._rel = (src._rel[0] + step, src._rel[1] + dyn)
            t._creation = src._creation
        t._attr_version = (src._vc or cell).version
        if not STATE.grad:
            t._creation = "no_grad"
        elif k is not None:
            t._creation = "multi"
    else:
        t._cell = Cell(out)
    if node is not None and _kind(out):
        t._grad_fn = node
        t._rg = True
        if k is not None:
            t._output_nr = k
    if STATE.inference:
        t._inference = True
    return t


def _record(op, args, arrays, cfg, view_result):
    edges = []
    mask = []
    edge_pos = []
    saved = [] if op.saves == "inputs" else None
    no_slot = op.no_slot
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            if i in no_slot:
                mask.append(False)
                continue
            if a._inference and op.saves != "none":
                raise RuntimeError(
                    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
                    "inference mode in computation tracked by autograd. To work around this, you can make a "
                    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
                    "of `torch.inference_mode()`.")
            if a._rg:
                edge_pos.append(len(edges))
                edges.append(a._edge())
                mask.append(True)
            else:
                edges.append((None, 0))
                mask.append(False)
            if saved is not None:
                saved.append(a)
        else:
            mask.append(False)
            if op.scalar_slots and i not in no_slot and isinstance(a, _NUMBER):
                edges.append((None, 0))
                if saved is not None and len(args) == 2:
                    # ``x * 2``, ``x / 2``: as PyTorch, only the number is kept, not x
                    saved = None
    fwd = op._fwd.get(cfg)
    try:
        out = (fwd or op.forward(cfg))(*arrays)
    except (TypeError, ValueError) as error:
        raise _broadcast_error(arrays, error) from None
    multi = type(out) is tuple
    avals = tuple((o.shape, o.dtype) for o in out) if multi else None
    cls = op.node_cls
    if cls is None:
        cls = op.node_cls = node_class(op.grad_fn)
    node = cls(tuple(edges), op, cfg, arrays, tuple(mask), tuple(edge_pos), avals)
    if saved:
        node.saved = _saved_entries(saved)
    if STATE.anomaly:
        import traceback
        node._trace = traceback.format_stack()[:-3]
    if not multi and not op.is_view:
        t = object.__new__(Tensor)
        t._cell = Cell(out)
        if _FLOAT_KIND.get(out.dtype):
            t._grad_fn = node
            t._rg = True
            if op.saves == "output":
                node.out_checks = ((0, t._cell, 0, out.shape, out.dtype),)
        if STATE.inference:
            t._inference = True
        return t
    if multi:
        result = tuple(_make_output(op, args, arrays, cfg, o, k, node, view_result) for k, o in enumerate(out))
        outs = result
    else:
        result = _make_output(op, args, arrays, cfg, out, None, node, view_result)
        outs = (result,)
    if op.saves == "output":
        node.out_checks = tuple((k, o._cell, 0, o._data.shape, o._data.dtype) for k, o in enumerate(outs) if o._rg)
    return result


def _saved_entries(tensors):
    """Version-check entries for the inputs a backward needs.

    As in PyTorch's binary formulas, an input is needed when another input requires grad
    (``x * c`` keeps ``c`` for x's gradient, and keeps ``x`` only if ``c`` requires grad);
    a lone input is needed for its own gradient.
    """
    if len(tensors) == 1:
        t = tensors[0]
        holder = t._vc or t._cell
        return ((t, holder, holder.version),)
    entries = []
    for i, t in enumerate(tensors):
        for j, other in enumerate(tensors):
            if j != i and other._rg:
                holder = t._vc or t._cell
                entries.append((t, holder, holder.version))
                break
    return tuple(entries)


# ---------------------------------------------------------------------- in-place

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
    "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
    "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
    "inplace to be tracked) or both outside (if you want the inplace to be tracked).")


MULTI_VIEW_SUFFIX = (
    " This view is the output of a function that returns multiple views. Such functions do not allow the "
    "output views to be modified inplace. You should replace the inplace operation by an out-of-place one.")
NO_GRAD_VIEW_SUFFIX = NO_GRAD_VIEW[NO_GRAD_VIEW.index(" Given"):]


def _check_rebase(view, indirect):
    """PyTorch's ``handle_view_on_rebase``: views made in no_grad mode or by multi-output
    functions (unbind, split, chunk) and views of them can't take part in an in-place write."""
    meta = view._creation
    if meta is None:
        return
    fn = view._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if meta == "no_grad" or fn is None:
        prefix = ("A view was created in" if fn is None else
                  f"Output {view._output_nr} of {_short_name(fn)} is a view of a view which was created in")
        msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {view._output_nr} of {_short_name(fn)} is a view and {modified} modified inplace."
    raise RuntimeError(msg + (MULTI_VIEW_SUFFIX if meta == "multi" else NO_GRAD_VIEW_SUFFIX))


def check_inplace(target, *others):
    """Raise PyTorch's error if writing ``target`` in place (with the Tensors ``others`` as
    the op's other inputs) is not allowed; runs before any change."""
    if target._inference and not STATE.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
            "to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 "
            "for more details.")
    if not STATE.grad:
        return
    base = target._base
    if base is None:
        if target._rg and target._grad_fn is None:
            raise RuntimeError(LEAF_INPLACE)
        return
    if not (target._rg or base._rg or any(isinstance(o, Tensor) and o._rg for o in others)):
        return
    _check_rebase(target, False)
    if base._rg and base._grad_fn is None:
        raise RuntimeError(VIEW_LEAF_INPLACE)


def _forget_old_self(node, target):
    """The in-place op's own node keeps target's old value as an immutable array (PyTorch
    keeps a clone of the original self), so it never checks target's version."""
    if isinstance(node, OpNode) and node.saved:
        holder = target._vc or target._cell
        node.saved = tuple(entry for entry in node.saved if entry[1] is not holder) or None


def commit_inplace(target, new):
    """Make ``new`` (a Tensor of target's shape and dtype) the value of ``target``.

    Writes the storage, bumps the version and rebases the history: the written tensor takes
    ``new``'s node; a view's base takes a CopySlices node and the view is rebuilt from it.
    """
    base = target._base
    if not STATE.grad or not (new._rg or target._rg or (base is not None and base._rg)):
        target._write(new._data)
        target._bump()
        return target
    if base is None:
        target._write(new._data)
        target._bump()
        _forget_old_self(new._grad_fn, target)
        _move_out_checks(new, target)
        target._grad_fn = new._grad_fn
        target._output_nr = new._output_nr
        target._rg = new._rg
        if new._grad_fn is None and new._rg:
            # writing a leaf's value into a plain tensor: connect through an identity node
            ident = apply(_views.alias_copy, (new,))
            target._grad_fn = ident._grad_fn
        return target
    steps, dyns = target._rel
    fn = new._grad_fn
    if (isinstance(fn, OpNode) and fn.avals is None and not fn.op.is_view and 0 not in fn.op.no_slot
            and fn.primals and fn.primals[0] is target._data):
        # ``new`` is an op applied to the view's current value (``v.mul_(2)``): as PyTorch,
        # CopySlices wraps that op, with next_functions (base's edge, the op's other edges).
        _forget_old_self(fn, target)
        node = _copy_slices_node(base, fn, steps, dyns)
        target._write(new._data)
    else:
        new_base = apply(_views.copy_slices, (base, new, dyns), (steps,))
        node = new_base._grad_fn
        base._write(new_base._data)
    base._bump()
    base._grad_fn = node
    base._output_nr = 0
    base._rg = True
    target._vcache = new._data
    target._vgen = target._cell.gen
    target._rg = True
    target._sync_view()
    if isinstance(node, OpNode) and node.op is not _views.copy_slices and fn.out_checks:
        # CopySlices checks the output its wrapped node saved, the view. As PyTorch, the message
        # names the view's grad_fn after this write (AsStridedBackward0) while that node is
        # alive (held by the view), and else the node that saved it (``Exp``).
        _move_out_checks(new, target)
        node.out_checks = tuple(e[:5] + (weakref.ref(target._grad_fn), fn) for e in fn.out_checks)
    return target


def _move_out_checks(new, target):
    """A node that saved its output ``new`` now checks ``target``, which holds that value."""
    fn = new._grad_fn
    if isinstance(fn, OpNode) and fn.out_checks:
        holder = target._vc or target._cell
        fn.out_checks = tuple((e[0], holder, holder.version) + tuple(e[3:]) if e[1] is new._cell else e
                              for e in fn.out_checks)


_COPY_SLICES_OPS = {}


def _copy_slices_op(inner):
    """The op of a CopySlices node wrapping ``inner``: write ``inner(view, *rest)`` into the base."""
    op = _COPY_SLICES_OPS.get(inner)
    if op is None:
        def copy_slices(base, dyns, *rest, steps, cfg):
            return _scatter(steps, base, dyns, inner.bind(cfg)(_compose(steps, base, dyns), *rest))

        op = OpDef("copy_slices_" + inner.name, copy_slices, "CopySlices", saves="unchecked", scalar_slots=False)
        _COPY_SLICES_OPS[inner] = op
    return op


def _copy_slices_node(base, fn, steps, dyns):
    """PyTorch's CopySlices around the in-place op's node ``fn`` (whose input 0 is the view)."""
    op = _copy_slices_op(fn.op)
    base_edge = base._edge()
    masked = [i for i, m in enumerate(fn.mask) if m]
    edge_pos = ((0,) if base._rg else ()) + tuple(pos for i, pos in zip(masked, fn.edge_pos) if i >= 1)
    cls = op.node_cls
    if cls is None:
        cls = op.node_cls = node_class("CopySlices")
    node = cls((base_edge,) + tuple(fn._next[1:]), op, (steps, fn.cfg), (base._data, dyns) + tuple(fn.primals[1:]),
               (base._rg, False) + tuple(fn.mask[1:]), edge_pos, None)
    node.saved = fn.saved
    return node


# ---------------------------------------------------------------------- backward

def _short_name(node):
    """PyTorch's node name in version errors: ``SigmoidBackward0`` -> ``Sigmoid``, ``PowBackward1`` -> ``Pow1``."""
    name = node.name()
    if "Backward" not in name:
        return name
    head, _, tail = name.partition("Backward")
    if not tail.isdigit():
        return name
    return head + ("" if tail == "0" else tail)


def _version_error(node, entry):
    first = entry[0]
    if isinstance(first, Tensor):
        arr = first._data
        fn = first._grad_fn
        if first._base is not None:
            try:
                fn = first.grad_fn      # a view's current history (AsStridedBackward0 after a write)
            except RuntimeError:
                pass
        which = "" if fn is None else f", which is output {first._output_nr} of {_short_name(fn)},"
    else:
        shape, dt = node.avals[first] if node.avals else (None, None)
        if len(entry) > 4:
            shape, dt = entry[3], entry[4]
        named = node
        if len(entry) > 5:
            named = entry[5]() or entry[6]
        which = f", which is output {first} of {_short_name(named)},"
        arr = None
    if arr is not None:
        shape, dt = arr.shape, arr.dtype
    legacy = _dtype.FROM_NP[np.dtype(dt)].legacy if dt is not None else "FloatTensor"
    if shape is None and isinstance(first, int):
        shape = ()
    return RuntimeError(
        f"one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[torch.{legacy} {list(shape) if shape is not None else []}]{which} is at version {entry[1].version}; "
        f"expected version {entry[2]} instead. {_ANOMALY_HINT if STATE.anomaly else _VERSION_HINT}")


_VERSION_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                 "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
_ANOMALY_HINT = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                 "The variable in question was changed in there or anywhere later. Good luck!")


def _backward_op(node):
    """The node's backward as a recordable op (create_graph): grads of the VJP are again VJPs."""
    multi = node.avals is not None
    key = (node.op, node.cfg, node.mask, multi)
    bop = _BACKWARD_OPS.get(key)
    if bop is None:
        n = len(node.mask)
        fwd = node.op.bind(node.cfg)
        mask = node.mask

        def backward_fn(*args):
            return tuple(vjp_call(fwd, mask, args[:n], args[n:] if multi else args[n]))

        bop = OpDef(node.op.name + "_backward", backward_fn, node.op.grad_fn + "Backward", scalar_slots=False)
        _BACKWARD_OPS[key] = bop
    return bop


_BACKWARD_OPS = {}
_DEPENDS = {}


def _primal_dependence(bop, primals, cts, mask):
    """For each primal, whether the backward's result depends on it.

    A linear op's VJP does not read its input (``x * 2`` gives ``2 * ct``), so, as in PyTorch,
    a create_graph gradient that does not depend on any input does not require grad.
    """
    key = (bop, tuple(jax.tree_util.tree_map(lambda a: (jnp.shape(a), jnp.result_type(a)), list(primals))),
           tuple(c is None for c in cts))
    found = _DEPENDS.get(key)
    if found is None:
        idx = [i for i, m in enumerate(mask) if m]

        def of_masked(*diff):
            full = list(primals)
            for i, v in zip(idx, diff):
                full[i] = v
            return bop.fn(*full, *cts)

        hits = depends_on(of_masked, [primals[i] for i in idx])
        found = [False] * len(mask)
        for i, hit in zip(idx, hits):
            found[i] = hit
        found = _DEPENDS[key] = tuple(found)
    return found


def _replay(node, grads):
    """Apply the node's VJP as recorded tensorgrad ops on its saved inputs (create_graph).

    Each input that the VJP reads and that requires grad is stood in for by a tensor over the
    saved value on the input's graph edge, so the recorded backward connects to the forward graph.
    """
    bop = _backward_op(node)
    cts = [grads[0]] if node.avals is None else list(grads)
    ct_arrays = [None if c is None else c._data for c in cts]
    depends = _primal_dependence(bop, node.primals, ct_arrays, node.mask)
    primals = list(node.primals)
    tensor_idx = 0
    for i, m in enumerate(node.mask):
        if not m:
            continue
        fn, nr = node._next[node.edge_pos[tensor_idx]]
        tensor_idx += 1
        if fn is None or not depends[i]:
            continue
        primals[i] = _wrap_on_edge(primals[i], fn, nr)
    out = apply(bop, tuple(primals) + tuple(cts))
    return out if isinstance(out, tuple) else (out,)


def _tensor_add(a, b):
    return a + b


GRAPH_OPS = engine.GraphOps(wrap=_wrap, replay=_replay, add=_tensor_add, version_error=_version_error)


_CREATE_GRAPH_WARNED = []


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs, *, allow_unused=True):
    """``autograd.backward``: validate roots and gradients, then run the engine."""
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and not _CREATE_GRAPH_WARNED:
        _CREATE_GRAPH_WARNED.append(True)   # PyTorch warns once per process (TORCH_WARN_ONCE)
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter "
            "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
            "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
            "of your parameters to None after use to break the cycle and avoid the leak. (Triggered "
            "internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)", UserWarning, stacklevel=3)
    edges, grads = make_roots(tensors, grad_tensors, create_graph)
    capture = None
    if inputs is not None:
        # only the listed tensors receive gradients: leaves through their AccumulateGrad, non-leaves
        # as retained grads; the walk skips whatever leads to none of them
        if isinstance(inputs, Tensor):
            inputs = (inputs,)
        inputs = tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        capture = {}
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
            if t.grad_fn is not None or not t.requires_grad:
                t.retain_grad()
            capture[t._edge()] = i
    engine.run_backward(edges, grads, retain_graph=retain_graph, create_graph=create_graph,
                        gops=GRAPH_OPS, capture=capture, accumulate=True)


_ONES = {}


def _ones(shape, dtype):
    """A cached array of ones: the implicit gradient of a scalar output."""
    key = (shape, dtype)
    arr = _ONES.get(key)
    if arr is None:
        arr = _ONES[key] = jnp.ones(shape, dtype)
    return arr


def make_roots(tensors, grad_tensors, create_graph):
    """Root edges and their gradients, with PyTorch's checks on both."""
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    tensors = tuple(tensors)
    if grad_tensors is None:
        grad_tensors = (None,) * len(tensors)
    elif isinstance(grad_tensors, Tensor):
        grad_tensors = (grad_tensors,)
    grad_tensors = tuple(grad_tensors)
    edges = []
    grads = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if t.dtype.kind == _dtype.COMPLEX:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {t.dtype}")
            g = _ones(t._data.shape, t._data.dtype)
            if create_graph:
                g = _wrap(g)
        else:
            if not isinstance(g, Tensor):
                raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
            if tuple(g.shape) != tuple(t.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a shape "
                    f"of {t.shape}.")
            if g.dtype.kind == _dtype.COMPLEX and t.dtype.kind != _dtype.COMPLEX:
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have the same dtype. "
                    f"Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] has a dtype "
                    f"of {t.dtype}.")
            if not create_graph:
                g = g._data.astype(t._data.dtype)
        edges.append(t._edge())
        grads.append(g)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grad_tensors)} gradients")
    return edges, grads
