"""``nn.Parameter`` and ``nn.Buffer``: tensors that a Module registers when they are assigned.

A Parameter is a leaf Tensor subclass that shares its storage with the tensor it was made
from (as ``detach()`` does) and prints ``Parameter containing:`` before the tensor. Ops on a
Parameter return plain Tensors.
"""

import jax

from .. import _dtype
from .._api.creation import empty
from .._tensor import Tensor, _wrap


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
