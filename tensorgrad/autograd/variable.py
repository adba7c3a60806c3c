"""``torch.autograd.Variable``: the pre-0.4 wrapper, kept by PyTorch for old code (and tools such
as torchviz, which check ``isinstance(t, Variable)``).

As in PyTorch, every tensor is an instance of ``Variable`` (``isinstance(torch.ones(1),
Variable)`` is True, though ``Tensor`` is not its subclass), and ``Variable(data,
requires_grad=False)`` returns a new tensor sharing ``data``'s storage, detached from its
history, with ``requires_grad`` set as given.

>>> import tensorgrad
>>> from tensorgrad.autograd import Variable
>>> v = Variable(tensorgrad.ones(2), requires_grad=True)
>>> v, isinstance(v, Variable)
(tensor([1., 1.], requires_grad=True), True)
"""

import warnings

from .._api.creation import tensor
from .._tensor.tensor import Tensor


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            data = tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        out.requires_grad_(bool(requires_grad))
        return out


