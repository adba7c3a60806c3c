"""Device objects printing as PyTorch's (``device(type='cpu')``), mapped onto JAX devices; the
default device of factories (``set_default_device``, ``with device(...)``) and the current CUDA
device; and arrays made on the host without compiling anything.

``cuda`` is JAX's GPU backend. Where JAX has none, tensorgrad answers as a PyTorch built without
CUDA does (``AssertionError: Torch not compiled with CUDA enabled``).

A JAX operation run outside a trace compiles a program for each new shape (``jnp.asarray`` of a
numpy array, ``jnp.zeros``: about 20 ms each), which JAX then keeps for the process's life, so a
script creating tensors of many shapes pays a compile per shape and grows without bound. Tensors
made from data (``tensor``, ``from_numpy``, ``arange``, ``zeros``, ...) are built here with numpy
and transferred with ``jax.device_put``, which compiles nothing; fills too large to build on the
host run in one bounded kernel per shape (``_cache.bounded_jit``). Inside a trace (a compiled
step), the ``jnp`` operations are used, as they stage into the program.
"""

import math
import re
import threading

import jax
import jax.numpy as jnp
import numpy as np

from ._cache import bounded_jit, tracing

# PyTorch's grammar of a device string: a type, then optionally ':' and an index without leading zeros
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?", re.ASCII)


class device:
    """Where a tensor lives: ``device('cpu')``, ``device('cuda', 0)``, ``device('cuda:0')``.

    ``cuda`` (and its alias ``gpu``) maps onto JAX's GPU backend and ``tpu`` onto its TPU
    backend; on a machine without one, placing a tensor there raises. Strings are parsed as
    PyTorch parses them (``'cuda:01'``, ``' cuda'``, a negative index are refused with its errors).
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            # as PyTorch: a bare index names the accelerator's device
            if not gpus():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            self.type, self.index = "cuda", type
            return
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type.__class__.__name__}), "
                            "but expected one of:\n * (torch.device device)\n      didn't match because some of the "
                            f"arguments have invalid types: (!{type.__class__.__name__}!)\n * (str type, int index = -1)\n")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not {index.__class__.__name__}")
        if not type:
            raise RuntimeError("Device string must not be empty")
        match = _DEVICE_STRING.fullmatch(type)
        if match is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        if match.group(2) is not None:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            index = int(match.group(2))
        type = match.group(1)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
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

    def __enter__(self):
        """``with device('cuda'):`` makes factories called without ``device=`` place their
        tensors here, in this thread, until the block ends."""
        _THREAD.stack.append(self)
        return self

    def __exit__(self, *exc):
        _THREAD.stack.pop()
        return False

    def jax_device(self):
        """The JAX device this names (raises as PyTorch does when there is none)."""
        if self.type == "cuda":
            devs = gpus()
            if not devs:
                raise AssertionError(NO_CUDA)
            index = current_cuda_index() if self.index is None else self.index
        elif self.type in ("meta", "mps"):
            raise NotImplementedError(f"tensorgrad has no {self.type} device: its tensors live on the devices JAX sees "
                                      f"({jax.devices()})")
        else:
            devs = _devices(self.type)
            index = self.index or 0
        if not devs:
            hint = ' (JAX\'s TPU backend is installed by tensorgrad\'s extra: pip install -e ".[tpu]")' if self.type == "tpu" else ""
            raise RuntimeError(f"Found no {self.type.upper()} device: tensorgrad runs on the devices JAX sees "
                               f"({jax.devices()}){hint}")
        return devs[index]


CPU = device("cpu")
NO_CUDA = "Torch not compiled with CUDA enabled"


def _devices(backend):
    try:
        return jax.devices(backend)
    except RuntimeError:  # JAX raises when it has no such backend
        return []


def gpus():
    """JAX's GPU devices (an empty list where it has none)."""
    return _devices("gpu")


class _Thread(threading.local):
    """Per thread, as in PyTorch: the ``with device(...)`` blocks, the default device, the
    current CUDA device."""

    def __init__(self):
        self.stack = []
        self.default = None
        self.cuda_index = 0


_THREAD = _Thread()


def set_default_device(device):
    """Make factories called without ``device=`` place their tensors on ``device`` (None: undo).

    As in PyTorch the setting belongs to the calling thread.

    >>> import tensorgrad
    >>> tensorgrad.set_default_device("cpu")
    >>> tensorgrad.zeros(1).device
    device(type='cpu')
    >>> tensorgrad.set_default_device(None)
    """
    if device is not None:
        device = to_device_like_torch(device)
    _THREAD.default = device


def to_device_like_torch(obj):
    """``torch.device(obj)``: a device, a device string, or an index of the accelerator."""
    return obj if isinstance(obj, device) else device(obj)


def default_device():
    """The device factories use when given none, or None (JAX's default device)."""
    if _THREAD.stack:
        return _THREAD.stack[-1]
    return _THREAD.default


def get_default_device():
    """The device factories place tensors on when given none (with its index for ``cuda``).

    With none set, that is JAX's default device: the first GPU where JAX has one.

    >>> import tensorgrad
    >>> with tensorgrad.device("cpu"):
    ...     tensorgrad.get_default_device()
    device(type='cpu')
    """
    dev = default_device()
    if dev is None:
        return of_array(put(np.zeros(0, np.float32)))
    if dev.index is not None:
        return dev
    if dev.type == "cuda":
        dev.jax_device()  # raises where there is no GPU, as PyTorch does
        return device("cuda", current_cuda_index())
    if dev.type == "mps":
        raise RuntimeError("PyTorch is not linked with support for mps devices")
    return dev


def current_cuda_index():
    return _THREAD.cuda_index


def set_cuda_index(index):
    """Make ``index`` the current CUDA device of this thread; returns the previous one."""
    previous = _THREAD.cuda_index
    _THREAD.cuda_index = index
    return previous


META = device("meta")


def of_array(arr):
    """The tensorgrad device of a jax array (meta for a shape without data)."""
    if type(arr) is jax.ShapeDtypeStruct:
        return META
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


def factory_device(obj):
    """The device a factory given ``device=obj`` places its tensor on (None: JAX's default)."""
    if obj is None:
        return default_device()
    return to_device(obj)


# Fills up to this many elements are built on the host and transferred (4 MB of float32); larger
# ones are written on the device by a compiled kernel.
HOST_FILL_LIMIT = 1 << 20


def from_host(values):
    """A jax array holding a numpy array's (or numpy scalar's) values, its dtype kept."""
    if tracing():
        return jnp.asarray(values)
    return put(values)


def put(values):
    """``jax.device_put(values)``, through JAX's C++ transfer for a numpy array."""
    if type(values) is np.ndarray and jax.config.jax_default_device is None and jax.config.jax_enable_x64:
        transfer = _TRANSFER[0]
        if transfer is None:
            transfer = _TRANSFER[0] = _direct_transfer()
        if transfer is not False:
            return transfer(values)
    return jax.device_put(values)


# ``jax.device_put(a)`` of a numpy array spends about 30 us in Python (trees, shardings, dtype
# checks) around the C++ transfer, which takes 3-5 us; a batch of a custom Dataset makes 64 of
# them (``torch.tensor(self.x[i])``). ``_direct_transfer`` calls that transfer as device_put does
# (to the default device, not committed), once it has checked on a probe that both give the same
# array; where this JAX does not have it, device_put serves.
_TRANSFER = [None]


def _direct_transfer():
    try:
        from jax._src import core as jcore
        from jax._src.lib import xla_client
        transfer = xla_client.batched_device_put
    except (ImportError, AttributeError):       # another JAX: device_put serves
        return False
    checked = {}        # device -> its sharding, or False where the probe found a difference

    def put(values):
        # device_put's default: the first device of this process (a new one after the backend
        # restarts for several processes, ``distributed.init_process_group``)
        device = jax.local_devices()[0]
        sharding = checked.get(device)
        if sharding is None:
            sharding = checked[device] = _probed(transfer, jcore, device)
        if sharding is False:
            return jax.device_put(values)
        return transfer(jcore.ShapedArray(values.shape, values.dtype), sharding, [values], [device], False)

    return put


def _probed(transfer, jcore, device):
    """The sharding of ``device`` when the direct transfer to it gives what device_put gives on
    probes, else False."""
    try:
        sharding = jax.sharding.SingleDeviceSharding(device)
        for probe in (np.arange(6, dtype=np.float32).reshape(2, 3), np.array([True]), np.zeros((), np.int64)):
            ours = transfer(jcore.ShapedArray(probe.shape, probe.dtype), sharding, [probe], [device], False)
            theirs = jax.device_put(probe)
            if (type(ours) is not type(theirs) or ours.aval != theirs.aval or ours.sharding != theirs.sharding
                    or ours.committed != theirs.committed or not np.array_equal(np.asarray(ours), probe)):
                return False
    except Exception:       # noqa: BLE001 - device_put serves
        return False
    return sharding


def host_copy(arr):
    """A copy of ``arr`` made on the host and transferred (no kernel to compile per shape), for an
    array on one CPU device of at most ``HOST_FILL_LIMIT`` elements; else None."""
    if isinstance(arr, jax.core.Tracer) or type(arr) is jax.ShapeDtypeStruct or arr.size > HOST_FILL_LIMIT:
        return None
    devices = arr.sharding.device_set
    if len(devices) != 1 or next(iter(devices)).platform != "cpu":
        return None
    # placed as ``arr`` is: an array never placed explicitly stays uncommitted (a committed one
    # would make every kernel it reaches compile again, for committed arguments)
    return jax.device_put(np.array(arr, copy=True), arr.sharding if arr.committed else None)


@bounded_jit(static_argnums=(0,))
def _broadcast(shape, value):
    return jnp.broadcast_to(value, shape)


def filled(shape, value, np_dtype):
    """An array of ``shape`` holding ``value`` converted to ``np_dtype`` as JAX converts it (a
    float truncated into an int, an int wrapped into a narrower one)."""
    np_dtype = np.dtype(np_dtype)
    if isinstance(value, (complex, np.complexfloating)) and np_dtype.kind != "c":
        # as ``_dtype.written_number``: true where not 0; into a real dtype its real part
        value = bool(value != 0) if np_dtype.kind == "b" else float(value.real)
    if tracing():
        return jnp.full(shape, value, np_dtype)
    if type(value) in (int, bool) and value in (0, 1):
        one = np.ones((), np_dtype) if value else np.zeros((), np_dtype)
    elif type(value) is float and np.issubdtype(np_dtype, np.floating):
        with np.errstate(over="ignore"):
            one = np.float64(value).astype(np_dtype)    # rounded to nearest (inf beyond), as XLA converts
    else:
        one = np.asarray(_converted(value, np_dtype))
    if math.prod(shape) <= HOST_FILL_LIMIT:
        return put(np.broadcast_to(one, shape).copy())
    return _broadcast(tuple(shape), put(one))


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
    return put(np.eye(n, m, dtype=np_dtype))
