"""``nn.Parameter`` and ``nn.Buffer``: tensors that a Module registers when they are assigned.

A Parameter is a leaf Tensor subclass that shares its storage with the tensor it was made
from (as ``detach()`` does) and prints ``Parameter containing:`` before the tensor. Ops on a
Parameter return plain Tensors.
"""

import jax

from .. import _dtype
from .._api.creation import empty
from .._device import device as _torch_device
from .._storage.cell import Cell
from .._tensor import Size, Tensor, _wrap


def _alias(cls, data):
    """A new ``cls`` instance sharing ``data``'s storage and version counter, with no history."""
    t = object.__new__(cls)
    t._cell = data._cell
    if data._vc is not None:
        t._vc = data._vc
    if data._view is not None:
        t._view = data._view
    return t


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter when assigned as an attribute.

    Arguments:
      data: the tensor whose storage the parameter shares (an empty tensor when None).
      requires_grad: whether the parameter requires gradient (default True).

    >>> import tensorgrad as torch
    >>> torch.nn.Parameter(torch.tensor([1., 2.]))
    Parameter containing:
    tensor([1., 2.], requires_grad=True)
    """

    _is_param = True

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' (position 1) must be Tensor, not {type(data).__name__}")
        if requires_grad and data.dtype.kind < _dtype.FLOAT:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        p = _alias(cls, data)
        p._rg = bool(requires_grad)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        p = type(self)(_wrap(self._data), self._rg)
        if self._grad is not None:
            p._grad = _wrap(self._grad._data)
        memo[id(self)] = p
        return p

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.detach(), self._rg))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


# A Parameter is a JAX pytree like any Tensor (JAX does not extend a registration to
# subclasses); as for a Tensor, what JAX rebuilds is a fresh leaf that does not require grad.
jax.tree_util.register_pytree_node(
    Parameter, lambda p: ((p._data,), None), lambda aux, children: Parameter(_wrap(children[0]), False))


class _BufferMeta(type):
    # ``Buffer(t)`` returns a plain Tensor marked as a buffer, as in PyTorch, so isinstance
    # checks the mark.
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and getattr(obj, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """Marks a tensor as a buffer: assigning it to a Module attribute registers it.

    Arguments:
      data: the tensor.
      persistent: whether the buffer is part of the module's ``state_dict``.
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        t = _alias(Tensor, data)
        t._is_buffer = True
        t.persistent = persistent
        return t


# ---------------------------------------------------------------- uninitialized (lazy) tensors

_UNINITIALIZED_SHAPE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in `load_state_dict` "
    "when trying to load an uninitialized parameter into an initialized one. Call `forward` to initialize the "
    "parameters before accessing their attributes.")


class _UninitializedCell(Cell):
    """The storage of an uninitialized tensor: any op that reads it raises."""

    __slots__ = ()

    def __init__(self):
        self.gen = 0
        self.version = 0

    @property
    def value(self):
        raise _use_error("")

    @value.setter
    def value(self, new):
        raise _use_error("")


def _use_error(where):
    return ValueError(
        f"Attempted to use an uninitialized parameter{where}. This error happens when you are using a `LazyModule` "
        "or explicitly manipulating `torch.nn.parameter.UninitializedParameter` objects. When using LazyModules "
        "Call `forward` with a dummy batch to initialize the parameters before calling torch functions")


class UninitializedTensorMixin:
    """A tensor whose shape is not known yet (a lazy module's parameter or buffer): its dtype,
    device and ``requires_grad`` are, and ``materialize(shape)`` gives it storage and turns it
    into ``cls_to_become``; until then reading its shape or using it in an op raises."""

    cls_to_become = None

    def _setup(self, requires_grad, device, dtype):
        self._cell = _UninitializedCell()
        self._view = None
        self._rg = bool(requires_grad)
        self._lazy_dtype = _dtype.get_default_dtype() if dtype is None else dtype
        self._lazy_device = _torch_device("cpu" if device is None else device)

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor storage of ``shape`` (uninitialized values) and make it a
        ``cls_to_become`` (a Parameter, or a plain tensor for a buffer)."""
        device = self._lazy_device if device is None else device
        dtype = self._lazy_dtype if dtype is None else dtype
        data = empty(shape, device=device, dtype=dtype)
        del self._lazy_dtype, self._lazy_device
        self._cell = data._cell
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_UNINITIALIZED_SHAPE)

    def size(self, dim=None):
        # PyTorch's placeholder storage is empty: size() and ndim answer from it
        return Size((0,)) if dim is None else Size((0,))[dim]

    @property
    def ndim(self):
        return 1

    def numel(self):
        raise _use_error(" in <method 'numel' of 'torch._C.TensorBase' objects>")

    def dim(self):
        raise _use_error(" in <method 'dim' of 'torch._C.TensorBase' objects>")

    @property
    def dtype(self):
        return self._lazy_dtype

    @property
    def device(self):
        return self._lazy_device

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self._lazy_device, self._lazy_dtype)
        return memo[id(self)]


def is_lazy(param):
    """Whether ``param`` is an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of a lazy module before its first call (``<UninitializedParameter>``)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        p = object.__new__(cls)
        p._setup(requires_grad, device, dtype)
        return p

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module before its first call (``<UninitializedBuffer>``)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = object.__new__(cls)
        t._setup(requires_grad, device, dtype)
        t.persistent = persistent
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass
