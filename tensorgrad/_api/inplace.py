"""In-place twins (``add_``, ``mul_``, ``exp_``, ...): the out-of-place op, then a write-back."""

import jax
import jax.numpy as jnp

from .. import _dtype
from .._ops import elementwise as E
from .._ops.registry import OpDef
from .._ops import views as _views
from . import strides as _strides
from .._tensor import Tensor, apply, check_inplace, commit_inplace
from . import math as M
from . import shape as S
from .creation import _key


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


def inplace_of(fn):
    """The in-place twin of the out-of-place ``fn``."""
    def method(self, *args, **kwargs):
        check_inplace(self, *args, *kwargs.values())
        _strides.check_no_internal_overlap(self)
        return commit_inplace(self, _fit(self, fn(self, *args, **kwargs)))
    method.__name__ = fn.__name__ + "_"
    return method


def zero_(self):
    check_inplace(self)
    return commit_inplace(self, apply(E.zero, (self,)))


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


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    return _random_fill(self, jax.random.uniform(_key(generator), self._data.shape, jnp.float64, a, b),
                        "UniformBackward0")


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    return _random_fill(self, mean + std * jax.random.normal(_key(generator), self._data.shape, jnp.float64),
                        "NormalBackward0")


def bernoulli_(self, p=0.5, *, generator=None):
    return _random_fill(self, jax.random.bernoulli(_key(generator), p, self._data.shape), "BernoulliBackward2")


def exponential_(self, lambd=1.0, *, generator=None):
    return _random_fill(self, jax.random.exponential(_key(generator), self._data.shape) / lambd,
                        "ExponentialBackward0")


def random_(self, low=0, high=None, *, generator=None):
    grad_fn = "RandomBackward0"
    if high is None:
        low, high = 0, low
        grad_fn = "RandomBackward1"
    return _random_fill(self, jax.random.randint(_key(generator), self._data.shape, low, high), grad_fn)


def index_put_(self, indices, values, accumulate=False):
    check_inplace(self, values)
    _strides.warn_expanded(self, "index_put_")
    return commit_inplace(self, S.index_put(self, indices, values, accumulate))


def masked_fill_(self, mask, value):
    check_inplace(self, value)
    _strides.warn_expanded(self, "masked_fill_")
    return commit_inplace(self, _fit(self, S.masked_fill(self, mask, value)))


def requires_grad_fn(name):
    return name


INPLACE = {
    name: inplace_of(fn) for name, fn in {
        "add": M.add, "sub": M.sub, "mul": M.mul, "div": M.div, "pow": M.pow, "neg": M.neg, "abs": M.abs,
        "exp": M.exp, "log": M.log, "sqrt": M.sqrt, "sin": M.sin, "cos": M.cos, "tanh": M.tanh,
        "sigmoid": M.sigmoid, "relu": M.relu, "clamp": M.clamp, "clip": M.clamp, "floor": M.floor,
        "ceil": M.ceil, "round": M.round, "trunc": M.trunc, "sign": M.sign, "reciprocal": M.reciprocal,
        "rsqrt": M.rsqrt, "square": M.square, "exp2": M.exp2, "expm1": M.expm1, "log1p": M.log1p,
        "log2": M.log2, "log10": M.log10, "tan": M.tan, "asin": M.asin, "acos": M.acos, "atan": M.atan,
        "sinh": M.sinh, "cosh": M.cosh, "erf": M.erf, "frac": M.frac, "remainder": M.remainder,
        "floor_divide": M.floor_divide, "maximum": M.maximum, "minimum": M.minimum, "atan2": M.atan2,
        "clamp_min": M.clamp_min, "clamp_max": M.clamp_max, "lerp": None, "fmod": None,
        "logical_not": M.logical_not, "logical_and": M.logical_and, "logical_or": M.logical_or,
        "bitwise_and": M.bitwise_and, "bitwise_or": M.bitwise_or, "bitwise_xor": M.bitwise_xor,
        "eq": M.eq, "ne": M.ne, "lt": M.lt, "le": M.le, "gt": M.gt, "ge": M.ge,
        "subtract": M.sub, "multiply": M.mul, "divide": M.div, "negative": M.neg, "absolute": M.abs,
        "true_divide": M.div,
    }.items() if fn is not None
}
