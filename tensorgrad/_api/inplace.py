"""In-place twins (``add_``, ``mul_``, ``exp_``, ...): the out-of-place op, then a write-back; and
``zero_``/``fill_``.
"""

from .. import _dtype
from .._ops import elementwise as E
from .._ops import views as _views
from .._tensor import Tensor, apply, check_inplace, commit_inplace
from . import strides as _strides
from .conversion import to
from .surface import declare


def _fit(self, new):
    """Check that ``new`` can be written into ``self`` (dtype kind and shape), then cast it."""
    if new.dtype is not self.dtype:
        if not _dtype.can_cast(new.dtype, self.dtype):
            raise RuntimeError(f"result type {new.dtype.c_name} can't be cast to the desired output type {self.dtype.c_name}")
        new = to(new, self.dtype)
    if tuple(new.shape) != tuple(self.shape):
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(new.shape)}")
    return new


def inplace_of(fn, name=None):
    """The in-place twin ``name`` (``add_``) of the out-of-place ``fn``: the result is checked
    against ``self``'s shape and dtype kind, cast, and written back."""
    def method(self, *args, **kwargs):
        check_inplace(self, *args, *kwargs.values())
        _strides.check_no_internal_overlap(self)
        return commit_inplace(self, _fit(self, fn(self, *args, **kwargs)))
    method.__name__ = method.__qualname__ = name or fn.__name__ + "_"
    return method


def inplace_checked(fn, name=None):
    """The in-place twin of ``fn`` whose result keeps ``self``'s shape and dtype by construction
    (scatter, index_add, ...: ``fn`` raises PyTorch's errors itself)."""
    def method(self, *args, **kwargs):
        check_inplace(self, *args, *kwargs.values())
        return commit_inplace(self, fn(self, *args, **kwargs))
    method.__name__ = method.__qualname__ = name or fn.__name__ + "_"
    return method


@declare(method=("zero_",))
def zero_(self):
    check_inplace(self)
    return commit_inplace(self, apply(E.zero, (self,)))


@declare(method=("fill_",))
def fill_(self, value):
    check_inplace(self, value)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
        _strides.check_no_internal_overlap(self)
        return commit_inplace(self, apply(_views.fill_tensor, (self, value)))
    return commit_inplace(self, apply(E.fill, (self, value)))
