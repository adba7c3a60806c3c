"""Device objects printing as PyTorch's (``device(type='cpu')``), mapped onto JAX devices, and
arrays made on the host without compiling anything.

A JAX operation run outside a trace compiles a program for each new shape (``jnp.asarray`` of a
numpy array, ``jnp.zeros``: about 20 ms each), which JAX then keeps for the process's life, so a
script creating tensors of many shapes pays a compile per shape and grows without bound. Tensors
made from data (``tensor``, ``from_numpy``, ``arange``, ``zeros``, ...) are built here with numpy
and transferred with ``jax.device_put``, which compiles nothing; fills too large to build on the
host run in one bounded kernel per shape (``_cache.bounded_jit``). Inside a trace (a compiled
step), the ``jnp`` operations are used, as they stage into the program.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np

from ._cache import bounded_jit, tracing


class device:
    """Where a tensor lives: ``device('cpu')``, ``device('cuda', 0)``, ``device('cuda:0')``.

    ``cuda`` maps onto JAX's GPU backend; on a machine without one, asking for it raises.
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type.__class__.__name__})")
        if ":" in type:
            type, _, idx = type.partition(":")
            if index is not None or not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda", "gpu", "tpu", "meta", "mps"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
                f"vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}")
        self.type = "cuda" if type == "gpu" else type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # as in PyTorch, a device never equals a string (``device('cpu') == 'cpu'`` is False)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def jax_device(self):
        """The JAX device this names (raises RuntimeError when there is none)."""
        backend = {"cpu": "cpu", "cuda": "gpu", "tpu": "tpu"}.get(self.type)
        try:
            devs = jax.devices(backend)
        except RuntimeError:
            devs = []
        if not devs:
            raise RuntimeError(f"Found no {self.type.upper()} device: tensorgrad runs on the devices JAX sees ({jax.devices()})")
        return devs[self.index or 0]


CPU = device("cpu")


def of_array(arr):
    """The tensorgrad device of a jax array."""
    try:
        d = next(iter(arr.devices()))
    except (AttributeError, StopIteration):
        return CPU
    if d.platform == "cpu":
        return CPU
    return device("cuda" if d.platform == "gpu" else d.platform, d.id)


def to_device(obj):
    if obj is None or isinstance(obj, device):
        return obj
    if isinstance(obj, int):
        return device("cuda", obj)
    return device(obj)


# Fills up to this many elements are built on the host and transferred (4 MB of float32); larger
# ones are written on the device by a compiled kernel.
HOST_FILL_LIMIT = 1 << 20


def from_host(values):
    """A jax array holding a numpy array's (or numpy scalar's) values, its dtype kept."""
    if tracing():
        return jnp.asarray(values)
    return jax.device_put(values)


@bounded_jit(static_argnums=(0,))
def _broadcast(shape, value):
    return jnp.broadcast_to(value, shape)


def filled(shape, value, np_dtype):
    """An array of ``shape`` holding ``value`` converted to ``np_dtype`` as JAX converts it (a
    float truncated into an int, an int wrapped into a narrower one)."""
    np_dtype = np.dtype(np_dtype)
    if tracing():
        return jnp.full(shape, value, np_dtype)
    if type(value) in (int, bool) and value in (0, 1):
        one = np.ones((), np_dtype) if value else np.zeros((), np_dtype)
    else:
        one = np.asarray(_converted(value, np_dtype))
    if math.prod(shape) <= HOST_FILL_LIMIT:
        return jax.device_put(np.broadcast_to(one, shape).copy())
    return _broadcast(tuple(shape), jax.device_put(one))


@bounded_jit(static_argnums=(1,))
def _converted(value, np_dtype):
    return jnp.asarray(value, np_dtype)


@bounded_jit(static_argnums=(0, 1, 2))
def _eye(n, m, np_dtype):
    return jnp.eye(n, m, dtype=np_dtype)


def eye(n, m, np_dtype):
    """The ``n x m`` identity of ``np_dtype``."""
    if tracing() or n * m > HOST_FILL_LIMIT:
        return _eye(n, m, np.dtype(np_dtype))
    return jax.device_put(np.eye(n, m, dtype=np_dtype))
