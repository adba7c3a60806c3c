"""``torch.cuda`` on JAX's GPU backend.

Where JAX has a GPU, these answer from it: its devices (``jax.devices('gpu')``), their names and
compute capabilities, and their allocator's ``memory_stats()``. Where it has none, each function
does what it does in a PyTorch built without CUDA: ``is_available()`` is False, the memory
counters are 0, seeding does nothing, and what needs a device raises PyTorch's error
(``current_device()``: ``AssertionError: Torch not compiled with CUDA enabled``).

tensorgrad draws random numbers on every device from one generator, ``tensorgrad.default_generator``:
on a GPU, ``manual_seed``, ``manual_seed_all`` and ``seed`` seed that generator.
"""

from jax import live_arrays as _live_arrays

from ._api.random import default_generator as _generator
from ._device import NO_CUDA as _NO_CUDA, current_cuda_index as _current_index, device as _torch_device
from ._device import gpus as _gpus, set_cuda_index as _set_index

# memory statistics of JAX's allocator: the bytes held by live arrays, their peak, the pool
_IN_USE = "bytes_in_use"
_PEAK = "peak_bytes_in_use"
# after reset_peak_memory_stats(i): _PEAK_SINCE_RESET[i] = [JAX's peak then, the largest in-use seen since]
_PEAK_SINCE_RESET = {}


def is_available():
    """Whether JAX has a GPU.

    >>> import tensorgrad
    >>> tensorgrad.cuda.is_available() == bool(tensorgrad.cuda.device_count())
    True
    """
    return bool(_gpus())


def device_count():
    """The number of GPUs JAX sees."""
    return len(_gpus())


def _check_cuda():
    if not _gpus():
        raise AssertionError(_NO_CUDA)


def _index(dev, optional=False):
    """PyTorch's ``torch.cuda._utils._get_device_index``: the index ``dev`` names."""
    if isinstance(dev, int):
        return dev
    if isinstance(dev, str):
        dev = _torch_device(dev)
    if isinstance(dev, _torch_device) and dev.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {dev}")
    if isinstance(dev, device):
        return dev.idx
    index = dev.index if isinstance(dev, _torch_device) else None
    if index is None:
        if not optional:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{dev}")
        index = _current_index() if _gpus() else None
    return index


def current_device():
    """The index of this thread's current GPU (``set_device``, ``with cuda.device(i)``)."""
    _check_cuda()
    return _current_index()


def set_device(device):
    """Make ``device`` (an index, ``'cuda:i'`` or a device) this thread's current GPU; a negative
    index does nothing."""
    index = _index(device)
    if index < 0:
        return
    if not _gpus():
        raise AttributeError("module 'torch._C' has no attribute '_cuda_setDevice'")
    _check_index(index)
    _set_index(index)


def _check_index(index):
    if index >= device_count():
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {index}; JAX sees {device_count()} GPUs)")


class _CudaDeviceProperties:
    """What JAX says of a GPU: ``name``, ``major``/``minor`` (compute capability),
    ``multi_processor_count`` and ``total_memory``, which is the memory JAX's allocator may use
    (its ``bytes_limit``: by default 75% of the device, ``XLA_PYTHON_CLIENT_MEM_FRACTION``)."""

    def __init__(self, jax_device):
        self.name = jax_device.device_kind
        capability = str(getattr(jax_device, "compute_capability", "0.0"))
        major, _, minor = capability.partition(".")
        self.major = int(major or 0)
        self.minor = int(minor or 0)
        self.multi_processor_count = int(getattr(jax_device, "core_count", 0) or 0)
        self.total_memory = int((jax_device.memory_stats() or {}).get("bytes_limit", 0))

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    """The properties of a GPU (the current one by default)."""
    _check_cuda()
    index = _index(device, optional=True)
    if index < 0 or index >= device_count():
        raise AssertionError("Invalid device id")
    return _CudaDeviceProperties(_gpus()[index])


def get_device_name(device=None):
    """The name of a GPU (the current one by default), as JAX's ``device_kind`` says it."""
    return get_device_properties(device).name


def manual_seed(seed):
    """Seed the generator GPU tensors draw from (tensorgrad's one generator); without a GPU,
    nothing, as in PyTorch."""
    seed = int(seed)
    if _gpus():
        _generator.manual_seed(seed)


def manual_seed_all(seed):
    """Seed the generator of every GPU (tensorgrad's one generator); without a GPU, nothing."""
    seed = int(seed)
    if _gpus():
        _generator.manual_seed(seed)


def seed():
    """Seed the generator GPU tensors draw from with a random number; without a GPU, nothing."""
    if _gpus():
        _generator.seed()


def synchronize(device=None):
    """Wait until every array on a GPU (the current one by default) has been computed."""
    _check_cuda()
    index = _index(device, optional=True)
    if index < 0:
        index = _current_index()
    _check_index(index)
    target = _gpus()[index]
    for array in _live_arrays():
        if target in array.devices():
            array.block_until_ready()


def empty_cache():
    """Does nothing: JAX's allocator keeps the memory it has taken from the GPU in its pool and
    reuses what deleted arrays held; it has no call that gives the pool back."""


def _stats(device):
    """JAX's ``memory_stats()`` of a GPU; ``{}`` without one (PyTorch's CPU build reads nothing)."""
    if not _gpus():
        return {}
    index = _index(device, optional=True)
    return _gpus()[index].memory_stats() or {}


def memory_allocated(device=None):
    """The bytes the live arrays on a GPU occupy (JAX's ``bytes_in_use``); 0 without one."""
    return int(_stats(device).get(_IN_USE, 0))


def max_memory_allocated(device=None):
    """The most bytes arrays on a GPU occupied, since the start or ``reset_peak_memory_stats``.

    JAX keeps one peak from the start and cannot reset it. After a reset, until arrays exceed
    that old peak, this is the largest ``memory_allocated`` seen at the reset or by a call of this
    function since: a lower bound of the peak.
    """
    stats = _stats(device)
    peak = int(stats.get(_PEAK, 0))
    if not stats:
        return 0
    since = _PEAK_SINCE_RESET.get(_index(device, optional=True))
    if since is None or peak > since[0]:
        return peak
    since[1] = max(since[1], int(stats.get(_IN_USE, 0)))
    return since[1]


def memory_reserved(device=None):
    """The bytes JAX's allocator holds from a GPU (its pool, ``pool_bytes``); 0 without one."""
    stats = _stats(device)
    return int(stats.get("pool_bytes", stats.get("bytes_reserved", 0)))


def reset_peak_memory_stats(device=None):
    """Restart ``max_memory_allocated`` from what arrays occupy now (see its caveat)."""
    index = _index(device, optional=True)
    if not _gpus():
        raise AttributeError("module 'torch._C' has no attribute '_cuda_resetPeakMemoryStats'")
    _check_index(index)
    stats = _gpus()[index].memory_stats() or {}
    _PEAK_SINCE_RESET[index] = [int(stats.get(_PEAK, 0)), int(stats.get(_IN_USE, 0))]


def is_bf16_supported(including_emulation=True):
    """Whether the current GPU computes in bfloat16 (compute capability 8 or more), or, with
    ``including_emulation``, whether XLA emulates it there (it does on every GPU); False without one."""
    if not _gpus():
        return False
    if get_device_properties(current_device()).major >= 8:
        return True
    return bool(including_emulation)


def _exchange(index):
    """Make ``index`` current and return the previous one (a negative index changes nothing)."""
    if index < 0:
        return -1
    if not _gpus():
        raise RuntimeError("PyTorch was compiled without CUDA support")
    _check_index(index)
    return _set_index(index)


class device:
    """``with tensorgrad.cuda.device(i):`` makes GPU ``i`` current inside the block.

    >>> import tensorgrad
    >>> with tensorgrad.cuda.device(-1):  # a negative index changes nothing
    ...     pass
    """

    def __init__(self, device):
        self.idx = _index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _exchange(self.idx)

    def __exit__(self, type, value, traceback):
        self.idx = _exchange(self.prev_idx)
        return False
