"""The random stream's eager draws computed on the host, with the numbers JAX gives.

A draw run as an XLA program compiles one per shape, 0.1-0.3 s each on a CPU: building a small
model (a few ``kaiming_uniform_`` fills) or its first batch of ``randn`` paid seconds of it. Here
the same draws run in NumPy. JAX's threefry stream is partitionable (``jax_threefry_partitionable``,
on by default): element ``i`` of a draw is the threefry-2x32 hash of its flat index ``i`` under the
key, so the bits, and the numbers ``jax.random`` makes from them with integer and exact
floating-point steps (``uniform`` on [0, 1), ``randint``, ``permutation``, the key split), are
those a compiled step draws from the same key, bit for bit. The normal draws make their uniform
numbers here and take ``erf_inv`` from one XLA kernel per size bucket (XLA's polynomial, so again
JAX's numbers), padded to a power of two so that shapes share programs.

One step is not exact: a scale and shift (``uniform_(a, b)``, ``normal_(mean, std)``,
``normal(mean, std, size)``) rounds the product before adding, where XLA fuses the two into one
FMA on CPUs that have it (and reorders the products of a scaled normal), so such a draw may
differ from a compiled step's in the last few bits of the dtype it is drawn in (float64 for the
in-place fills, which are then rounded to the tensor's dtype).
``tests/test_host_random.py`` compares both kinds with the kernels.

Draws inside a trace (``tensorgrad.compile``, the meta device), of more than ``HOST_MAX``
elements (NumPy's one-thread hash would cost more than a compiled program's run), or of dtypes
other than float32/float64 use the kernels instead; ``usable`` says which.
"""

import jax
import jax.numpy as jnp
import numpy as np

from .._cache import bounded_jit
from .._meta import is_meta

HOST_MAX = 1 << 19
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA
_BUCKET_MIN = 1 << 10
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def usable(key, size):
    """Whether a draw of ``size`` elements from ``key`` runs here (a concrete key, a small draw)."""
    return (size <= HOST_MAX and not isinstance(key, jax.core.Tracer) and not is_meta(key)
            and jax.config.jax_threefry_partitionable)


def threefry2x32(k1, k2, x1, x2):
    """The threefry-2x32 hash (20 rounds) of the uint32 counter pairs ``(x1, x2)`` under the key
    ``(k1, k2)``, as JAX's ``threefry2x32_p`` computes it."""
    k1, k2 = int(k1), int(k2)
    ks = (k1, k2, k1 ^ k2 ^ _PARITY)
    x1 = x1 + np.uint32(ks[0])
    x2 = x2 + np.uint32(ks[1])
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x1 += x2
            x2 = (x2 << np.uint32(r)) | (x2 >> np.uint32(32 - r))
            x2 ^= x1
        x1 += np.uint32(ks[(i + 1) % 3])
        x2 += np.uint32((ks[(i + 2) % 3] + i + 1) & 0xFFFFFFFF)
    return x1, x2


def _hash_indices(key, size):
    index = np.arange(size, dtype=np.uint64)
    return threefry2x32(key[0], key[1], (index >> np.uint64(32)).astype(np.uint32), index.astype(np.uint32))


def seed_key(seed):
    """``jax.random.PRNGKey(seed)`` for a seed in [0, 2**64): its high and low 32-bit words (JAX's
    own refuses seeds from 2**63, which PyTorch takes)."""
    return np.array([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], np.uint32)


def split(key):
    """``jax.random.split(key)`` of a raw uint32[2] key: the next key and the one to draw with."""
    b1, b2 = _hash_indices(key, 2)
    return np.array([b1[0], b2[0]], np.uint32), np.array([b1[1], b2[1]], np.uint32)


def bits(key, width, size):
    """``size`` random ``width``-bit words (32 or 64), as ``jax.random.bits`` draws them."""
    b1, b2 = _hash_indices(key, size)
    if width == 64:
        return (b1.astype(np.uint64) << np.uint64(32)) | b2
    return b1 ^ b2


def _unit(key, size, dtype):
    """Uniform numbers in [0, 1) of float ``dtype``: random mantissa bits under exponent 0."""
    info = np.finfo(dtype)
    uint = np.dtype(f"uint{info.bits}")
    mantissa = bits(key, info.bits, size) >> uint.type(info.bits - info.nmant)
    return (mantissa | np.array(1.0, dtype).view(uint)).view(dtype) - dtype.type(1.0)


def uniform(key, shape, dtype, low, high):
    """``jax.random.uniform(key, shape, dtype, low, high)`` (float32 or float64)."""
    dtype = np.dtype(dtype)
    low, high = dtype.type(low), dtype.type(high)
    with np.errstate(over="ignore", invalid="ignore"):
        floats = _unit(key, int(np.prod(shape)), dtype) * (high - low) + low
    return np.maximum(low, floats).reshape(shape)


def randint(key, shape, low, high):
    """``jax.random.randint(key, shape, low, high, int64)`` for ``low < high`` in int64's range."""
    k1, k2 = split(key)
    size = int(np.prod(shape))
    span = np.uint64(high - low)
    with np.errstate(over="ignore"):        # uint64 products wrap, as XLA's do
        multiplier = np.uint64(2 ** 32) % span
        multiplier = (multiplier * multiplier) % span
        offset = ((bits(k1, 64, size) % span) * multiplier + bits(k2, 64, size) % span) % span
        return (np.int64(low) + offset.astype(np.int64)).reshape(shape)


@bounded_jit
def _erf_inv_normal(u):
    return np.array(np.sqrt(2), u.dtype) * jax.lax.erf_inv(u)


def normal(key, shape, dtype):
    """``jax.random.normal(key, shape, dtype)`` (float32 or float64): its uniform numbers in
    (-1, 1) made here, ``sqrt(2) * erf_inv`` of them in a kernel of the size's bucket."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape))
    low = np.nextafter(dtype.type(-1), dtype.type(0))
    u = np.zeros(max(_BUCKET_MIN, 1 << max(size - 1, 0).bit_length()), dtype)
    u[:size] = uniform(key, (size,), dtype, low, 1.0)
    return np.asarray(_erf_inv_normal(jax.device_put(u)))[:size].reshape(shape)


def host_float(dtype):
    """Whether float ``dtype`` (a numpy dtype) has a host draw."""
    return np.dtype(dtype) in _FLOATS


def permutation(key, n):
    """``jax.random.permutation(key, n)``: rounds of a stable sort of ``arange(n)`` by fresh
    32-bit words (enough rounds that ties almost surely stop mattering, as JAX counts them)."""
    x = np.arange(n, dtype=np.int64)
    for _ in range(int(np.ceil(3 * np.log(max(1, n)) / np.log(np.iinfo(np.uint32).max)))):
        key, sub = split(key)
        x = x[np.argsort(bits(sub, 32, n), kind="stable")]
    return x
