"""In-place twins (``add_``, ``mul_``, ``exp_``, ...): the out-of-place op, then a write-back."""

import jax
import jax.numpy as jnp

from .. import _dtype
from .._ops import elementwise as E
from .._ops.registry import OpDef
from .._ops import views as _views
from . import strides as _strides
from .._tensor import Tensor, apply, check_inplace, commit_inplace
from . import shape as S
from .creation import _key
from .surface import declare


def _fit(self, new):
    """Check that ``new`` can be written into ``self`` (dtype kind and shape), then cast it."""
    if new.dtype is not self.dtype:
        if not _dtype.can_cast(new.dtype, self.dtype):
            raise RuntimeError(f"result type {new.dtype.c_name} can't be cast to the desired output type {self.dtype.c_name}")
        new = S.to(new, self.dtype)
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


def _sample(x, sample):
    return sample


_RANDOM_OPS = {}


def _random_fill(self, sample, grad_fn):
    """Write a random sample; with grad, the node (``UniformBackward0``, ...) gives zero gradient."""
    check_inplace(self)
    _strides.check_no_internal_overlap(self)
    op = _RANDOM_OPS.get(grad_fn)
    if op is None:
        op = _RANDOM_OPS[grad_fn] = OpDef(grad_fn, _sample, grad_fn, saves="none", scalar_slots=False)
    return commit_inplace(self, apply(op, (self, sample.astype(self._data.dtype))))


@declare(method=("uniform_",))
def uniform_(self, a=0.0, b=1.0, *, generator=None):
    return _random_fill(self, jax.random.uniform(_key(generator), self._data.shape, jnp.float64, a, b),
                        "UniformBackward0")


@declare(method=("normal_",))
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    return _random_fill(self, mean + std * jax.random.normal(_key(generator), self._data.shape, jnp.float64),
                        "NormalBackward0")


@declare(method=("bernoulli_",))
def bernoulli_(self, p=0.5, *, generator=None):
    return _random_fill(self, jax.random.bernoulli(_key(generator), p, self._data.shape), "BernoulliBackward2")


@declare(method=("exponential_",))
def exponential_(self, lambd=1.0, *, generator=None):
    return _random_fill(self, jax.random.exponential(_key(generator), self._data.shape) / lambd,
                        "ExponentialBackward0")


@declare(method=("random_",))
def random_(self, low=0, high=None, *, generator=None):
    grad_fn = "RandomBackward0"
    if high is None:
        low, high = 0, low
        grad_fn = "RandomBackward1"
    return _random_fill(self, jax.random.randint(_key(generator), self._data.shape, low, high), grad_fn)


@declare(method=("index_put_",))
def index_put_(self, indices, values, accumulate=False):
    check_inplace(self, values)
    _strides.warn_expanded(self, "index_put_")
    return commit_inplace(self, S.index_put(self, indices, values, accumulate))


@declare(method=("masked_fill_",))
def masked_fill_(self, mask, value):
    check_inplace(self, value)
    _strides.warn_expanded(self, "masked_fill_")
    return commit_inplace(self, _fit(self, S.masked_fill(self, mask, value)))
