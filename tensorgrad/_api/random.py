"""Randomness: the ``Generator`` and the global one (seeds, states), the random factories (rand,
randn, randint, randperm, normal, bernoulli, multinomial, ...) and the in-place random fills
(``uniform_``, ``normal_``, ``bernoulli_``, ``exponential_``, ``random_``, ``cauchy_``,
``geometric_``, ``log_normal_``).
"""

import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._autograd.grad_mode import is_grad_enabled
from .._cache import bounded_jit
from .._device import from_host, to_device
from .._meta import is_meta
from .._ops import random as RO
from .._ops.registry import OpDef
from .._tensor import Tensor, apply, check_inplace, commit_inplace, _wrap
from . import host_random as H, strides as _strides
from .creation import KEEP_ON_META, on_meta, parse_size, _finish, _size_keyword
from .surface import declare


class Generator:
    """A seedable random stream over a jax PRNG key; each draw splits the key.

    Streams are reproducible under ``manual_seed`` but are not PyTorch's bit for bit.
    """

    def __init__(self, device="cpu"):
        self.device = to_device(device)
        self.manual_seed(67280421310721)

    def manual_seed(self, seed):
        seed = int(seed)
        if not -2 ** 63 <= seed < 2 ** 64:
            raise ValueError("Overflow when unpacking long long")
        seed &= 0xFFFFFFFFFFFFFFFF          # a negative seed is its 64-bit two's complement, as in PyTorch
        self._seed = seed
        # the key lives in one tensor for the generator's life, so that tensorgrad.compile lifts
        # and updates it as state
        key = from_host(H.seed_key(seed))
        if "_state" in self.__dict__:
            self._state._write(key)
        else:
            self._state = _wrap(key)
        return self

    def seed(self):
        return self.manual_seed(int.from_bytes(np.random.bytes(8), "little") >> 1)._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The generator's key as an int64 tensor (restore with ``set_state``)."""
        return _wrap(jnp.asarray(self._state._data).astype(jnp.int64))

    def set_state(self, state):
        self._state._write(state._data.astype(jnp.uint32))
        return self

    def next_key(self):
        key = self._state._data
        if H.usable(key, 2):
            key, sub = H.split(np.asarray(key))
            key, sub = from_host(key), from_host(sub)
        else:
            key, sub = _split(key)
        self._state._write(key)
        return sub


@jax.jit
def _split(key):
    key, sub = jax.random.split(key)
    return key, sub


default_generator = Generator()


@declare("manual_seed", numpy_names=False)
def manual_seed(seed):
    """Reseed the global generator; returns it."""
    return default_generator.manual_seed(seed)


@declare("seed", numpy_names=False)
def seed():
    return default_generator.seed()


@declare("initial_seed", numpy_names=False)
def initial_seed():
    return default_generator.initial_seed()


@declare("get_rng_state", numpy_names=False)
def get_rng_state():
    return default_generator.get_state()


@declare("set_rng_state", numpy_names=False)
def set_rng_state(state):
    default_generator.set_state(state)


def _key(generator):
    return (generator or default_generator).next_key()


def _keep_keys(generator):
    """Save the keys of the global generator and ``generator``; returns what puts them back."""
    kept = [(g, g._state._data) for g in {default_generator, generator or default_generator}]

    def restore():
        for g, key in kept:
            g._state._write(key)
    return restore


KEEP_ON_META.append(_keep_keys)


# ---------------------------------------------------------------- samplers
# Each draw runs as one kernel per shape and dtype, held in the bounded kernel cache (JAX's own
# samplers, called outside a kernel, would compile a program per shape that lives forever), or,
# eagerly and for small draws, on the host with the same numbers (``host_random``: no compile).
# The sample is drawn in ``dtype`` and returned as ``out`` (the in-place fills draw in float64).

@bounded_jit(static_argnums=(1, 2, 3))
def _uniform_kernel(key, shape, dtype, out, low, high):
    return jax.random.uniform(key, shape, dtype, low, high).astype(out)


def _uniform(key, shape, dtype, out, low, high):
    if H.usable(key, math.prod(shape)) and H.host_float(dtype):
        return from_host(H.uniform(np.asarray(key), shape, dtype, low, high).astype(out))
    return _uniform_kernel(key, shape, dtype, out, low, high)


@bounded_jit(static_argnums=(1, 2))
def _normal_kernel(key, shape, dtype):
    return jax.random.normal(key, shape, dtype)


def _normal(key, shape, dtype):
    if H.usable(key, math.prod(shape)) and H.host_float(dtype):
        return from_host(H.normal(np.asarray(key), shape, dtype))
    return _normal_kernel(key, shape, dtype)


@bounded_jit(static_argnums=(1, 2, 5))
def _scaled_normal_kernel(key, shape, dtype, mean, std, out=None):
    z = mean + std * jax.random.normal(key, shape, dtype)
    return z if out is None else z.astype(out)


def _scaled_normal(key, shape, dtype, mean, std, out=None):
    """``mean + std * z``: ``mean`` and ``std`` numbers or arrays broadcasting to ``shape``."""
    if (H.usable(key, math.prod(shape)) and H.host_float(dtype) and type(mean) in (int, float)
            and type(std) in (int, float)):
        dtype = np.dtype(dtype)
        z = H.normal(np.asarray(key), shape, dtype) * dtype.type(std) + dtype.type(mean)
        return from_host(z if out is None else z.astype(out))
    return _scaled_normal_kernel(key, shape, dtype, mean, std, out)


@bounded_jit(static_argnums=(1, 2, 3))
def _bernoulli(key, shape, dtype, out, p):
    """Draws of probability ``p`` (an array of ``shape``, or a number, as a ``dtype`` array when
    ``dtype`` is given)."""
    if dtype is not None:
        p = jnp.broadcast_to(jnp.asarray(p, dtype), shape)
    return jax.random.bernoulli(key, p, shape).astype(out)


@bounded_jit(static_argnums=(1, 2))
def _exponential(key, shape, out, lambd):
    return (jax.random.exponential(key, shape) / lambd).astype(out)


@bounded_jit(static_argnums=(1, 2))
def _cauchy(key, shape, out, median, sigma):
    return (median + sigma * jax.random.cauchy(key, shape, jnp.float64)).astype(out)


@bounded_jit(static_argnums=(1, 2))
def _geometric(key, shape, out, p):
    # the number of Bernoulli(p) trials up to the first success: ceil(log(u) / log(1 - p))
    u = jax.random.uniform(key, shape, jnp.float64, minval=jnp.finfo(jnp.float64).tiny)
    return jnp.maximum(jnp.ceil(jnp.log(u) / jnp.log1p(-p)), 1).astype(out)


@bounded_jit(static_argnums=(1, 2))
def _log_normal(key, shape, out, mean, std):
    return jnp.exp(mean + std * jax.random.normal(key, shape, jnp.float64)).astype(out)


@bounded_jit(static_argnums=(1, 2))
def _randint_kernel(key, shape, out, low, high):
    return jax.random.randint(key, shape, low, high, jnp.int64).astype(out)


def _randint(key, shape, out, low, high):
    if H.usable(key, math.prod(shape)) and _INT64[0] <= low < high <= _INT64[1]:
        return from_host(H.randint(np.asarray(key), shape, low, high).astype(out))
    return _randint_kernel(key, shape, out, low, high)


_INT64 = (-2 ** 63, 2 ** 63 - 1)


@bounded_jit(static_argnums=(1, 2))
def _permutation_kernel(key, n, out):
    return jax.random.permutation(key, n).astype(out)


def _permutation(key, n, out):
    if H.usable(key, n):
        return from_host(H.permutation(np.asarray(key), n).astype(out))
    return _permutation_kernel(key, n, out)


@bounded_jit(static_argnums=(2, 3))
def _multinomial(key, probs, num_samples, replacement):
    logits = jnp.log(probs)
    if replacement:
        out = jax.random.categorical(key, logits, shape=(num_samples,) + probs.shape[:-1])
        out = jnp.moveaxis(out, 0, -1)
    else:
        g = jax.random.gumbel(key, probs.shape)
        out = jnp.argsort(-(logits + g), axis=-1)[..., :num_samples]
    return out.astype(jnp.int64)


@bounded_jit(static_argnums=(2,))
def _categorical(key, probs, shape):
    """Category indices of ``shape`` (sample shape + batch shape) with ``probs`` (last axis)."""
    return jax.random.categorical(key, jnp.log(probs), axis=-1, shape=shape).astype(jnp.int64)


@bounded_jit(static_argnums=(2,))
def _poisson(key, rate, shape):
    """Poisson counts of ``shape`` (``rate`` broadcast to it), in ``rate``'s dtype."""
    return jax.random.poisson(key, jnp.broadcast_to(rate, shape), shape).astype(rate.dtype)


def standard_gamma(alpha, shape, generator=None):
    """Gamma(alpha, 1) draws of ``shape``, differentiable in ``alpha`` (``StandardGammaBackward0``)."""
    if alpha.dtype.kind != _dtype.FLOAT:
        raise NotImplementedError(f'"gamma_cpu" not implemented for \'{alpha.dtype.c_name}\'')
    return apply(RO.standard_gamma, (alpha, _wrap(_key(generator))), (tuple(shape),))


def _float_dtype(dtype):
    d = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    return d


@declare("rand", out=True, factory=True)
@on_meta
def rand(*size, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, **kw):
    d = _float_dtype(dtype)
    shape = parse_size(size, _size_keyword("rand", kw), "rand")
    arr = _uniform(_key(generator), shape, d.np, d.np, 0.0, 1.0)
    return _finish(arr, None, device, requires_grad)


@declare("randn", out=True, factory=True)
@on_meta
def randn(*size, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, **kw):
    d = _float_dtype(dtype)
    shape = parse_size(size, _size_keyword("randn", kw), "randn")
    arr = _normal(_key(generator), shape, d.np)
    return _finish(arr, None, device, requires_grad)


@declare("randint", out=True, factory=True)
@on_meta
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, layout=None, device=None,
            requires_grad=False):
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    d = _dtype.int64 if dtype is None else _dtype.to_dtype(dtype)
    arr = _randint(_key(generator), parse_size((size,), name="randint"), d.np, low, high)
    return _finish(arr, None, device, requires_grad)


@declare("randperm", out=True, factory=True)
@on_meta
def randperm(n, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False):
    d = _dtype.int64 if dtype is None else _dtype.to_dtype(dtype)
    return _finish(_permutation(_key(generator), n, d.np), None, device, requires_grad)


@declare("rand_like")
def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return rand(tuple(input.shape), dtype=dtype or input.dtype, requires_grad=requires_grad)


@declare("randint_like")
def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    """``randint`` of input's shape and (by default) dtype."""
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), generator=generator, dtype=dtype or input.dtype,
                   requires_grad=requires_grad)


@declare("randn_like")
def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return randn(tuple(input.shape), dtype=dtype or input.dtype, requires_grad=requires_grad)


def _host_values(t):
    """``t``'s values on the host for a value check, or None inside a traced program (no check)."""
    return None if isinstance(t._data, jax.core.Tracer) else np.asarray(t._data)


def _check_std(std):
    """PyTorch's check of normal's ``std``: a number, or every element of a tensor, is >= 0."""
    if isinstance(std, Tensor):
        values = _host_values(std)
        if values is not None and values.size and not (values >= 0).all():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")


def _check_probabilities(input, num_samples, replacement):
    """multinomial's argument checks and its checks of the probabilities, in PyTorch's order."""
    if not 1 <= input.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input.dtype.kind != _dtype.FLOAT:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype.c_name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    p = _host_values(input)
    if p is None or not p.size:
        return
    p = p.astype(np.float64)
    if not replacement or num_samples == 1:
        if not ((p.max() < np.inf) & (p.min() >= 0)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    else:
        if not (p >= 0).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if not np.isfinite(p).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    if (p.sum(-1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


@declare("normal", out=True, factory=True)
@on_meta
def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Normal samples: ``normal(mean, std, size)`` with numbers, or element-wise tensor mean/std."""
    _check_std(std)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        shape = jnp.broadcast_shapes(tuple(getattr(mean, "shape", ())), tuple(getattr(std, "shape", ())))
        ref = mean if isinstance(mean, Tensor) else std
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        return _finish(_scaled_normal(_key(generator), shape, ref._data.dtype, m, s))
    d = _float_dtype(dtype)
    z = _scaled_normal(_key(generator), parse_size((size,), name="normal"), d.np, mean, std)
    return _finish(z, d, device, requires_grad)


@declare("bernoulli", method=True, out=True)
def bernoulli(input, p=None, *, generator=None):
    probs = input._data if p is None else p
    sample = _bernoulli(_key(generator), input._data.shape, input._data.dtype, input._data.dtype, probs)
    if p is None and input.requires_grad:
        # PyTorch records the draw from ``input``'s probabilities (BernoulliBackward0, zero gradient)
        return apply(_random_op("BernoulliBackward0"), (input, sample))
    return _finish(sample)


@declare("multinomial", method=True, out=True)
def multinomial(input, num_samples, replacement=False, *, generator=None):
    _check_probabilities(input, num_samples, replacement)
    return _finish(_multinomial(_key(generator), input._data, num_samples, replacement))


# ---------------------------------------------------------------- in-place random fills

def _sample(x, sample):
    return sample


_RANDOM_OPS = {}


def _random_fill(self, draw, grad_fn):
    """Write the sample ``draw()`` makes; with grad, the node (``UniformBackward0``, ...) gives zero
    gradient. A meta tensor draws nothing (and, as in PyTorch, takes no key from the generator)."""
    check_inplace(self)
    _strides.check_no_internal_overlap(self)
    sample = self._data if is_meta(self._data) else draw()
    if not (is_grad_enabled() and self.requires_grad):
        return commit_inplace(self, _wrap(sample))      # nothing to record: no kernel to run
    return commit_inplace(self, apply(_random_op(grad_fn), (self, sample)))


def _random_op(grad_fn):
    """The op that records a sample drawn for a tensor: node ``grad_fn``, zero gradient."""
    op = _RANDOM_OPS.get(grad_fn)
    if op is None:
        op = _RANDOM_OPS[grad_fn] = OpDef(grad_fn, _sample, grad_fn, saves="none", scalar_slots=False)
    return op


@declare(method=("uniform_",))
def uniform_(self, a=0.0, b=1.0, *, generator=None):
    _check_kernel_dtype(self, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_number(a)} > "
                           f"to={_number(b)}")
    return _random_fill(self, lambda: _uniform(_key(generator), self._data.shape, jnp.float64, self._data.dtype, a, b),
                        "UniformBackward0")


@declare(method=("normal_",))
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    _check_std(std)
    return _random_fill(self, lambda: _scaled_normal(_key(generator), self._data.shape, jnp.float64, mean, std,
                                             self._data.dtype), "NormalBackward0")


@declare(method=("bernoulli_",))
def bernoulli_(self, p=0.5, *, generator=None):
    return _random_fill(self, lambda: _bernoulli(_key(generator), self._data.shape, None, self._data.dtype, p),
                        "BernoulliBackward2")


# the C type names in the messages of PyTorch's Cauchy sampler
_CAUCHY_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                      "uint8": "unsigned char", "bool": "bool"}


def _number(value):
    """A number as C++ prints a double (``-1``, ``0.5``)."""
    return f"{float(value):g}"


def _check_continuous(self, distribution, type_name):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{distribution} distribution is a continuous probability distribution. dtype must be "
                           f"a floating point but you specified {type_name}")


def _check_kernel_dtype(self, kernel, integers_ok=False):
    if not self.dtype.is_floating_point and not (integers_ok and self.dtype != _dtype.bool_):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{self.dtype.c_name}\'')


@declare(method=("exponential_",))
def exponential_(self, lambd=1.0, *, generator=None):
    _check_continuous(self, "Exponential", self.dtype.c_name)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_number(lambd)}")
    return _random_fill(self, lambda: _exponential(_key(generator), self._data.shape, self._data.dtype, lambd),
                        "ExponentialBackward0")


@declare(method=("random_",))
def random_(self, low=0, high=None, *, generator=None):
    grad_fn = "RandomBackward0"
    if high is None:
        low, high = 0, low
        grad_fn = "RandomBackward1"
    return _random_fill(self, lambda: _randint(_key(generator), self._data.shape, self._data.dtype, low, high), grad_fn)


@declare(method=("cauchy_",))
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    _check_continuous(self, "Cauchy", _CAUCHY_TYPE_NAMES.get(self.dtype.name, self.dtype.name))
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_number(sigma)}")
    return _random_fill(self, lambda: _cauchy(_key(generator), self._data.shape, self._data.dtype, median, sigma),
                        "CauchyBackward0")


@declare(method=("geometric_",))
def geometric_(self, p, *, generator=None):
    _check_kernel_dtype(self, "geometric_cpu", integers_ok=True)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_number(p)}")
    return _random_fill(self, lambda: _geometric(_key(generator), self._data.shape, self._data.dtype, p),
                        "GeometricBackward0")


@declare(method=("log_normal_",))
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    _check_kernel_dtype(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_number(std)}")
    return _random_fill(self, lambda: _log_normal(_key(generator), self._data.shape, self._data.dtype, mean, std),
                        "LogNormalBackward0")
