"""``torch.amp.autocast``: regions where matrix products and convolutions run in lower precision.

>>> import tensorgrad as torch
>>> a = torch.ones(2, 2)
>>> with torch.autocast("cpu"):
...     (a @ a).dtype, torch.get_autocast_dtype("cpu")
(torch.bfloat16, torch.bfloat16)
"""

import functools
import warnings

from .. import _autocast
from .. import _dtype
from .._device import gpus as _gpus
from .._device import device as _device

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype", "set_autocast_enabled",
           "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled", "custom_fwd", "custom_bwd"]

_SUPPORTED = (_dtype.bfloat16, _dtype.float16)


def _check_device_type(device_type):
    _device(device_type)        # PyTorch's RuntimeError for an unknown device type


def is_autocast_available(device_type):
    """Whether autocast supports ``device_type`` (``"cpu"`` and ``"cuda"``)."""
    _check_device_type(device_type)
    return device_type in ("cpu", "cuda")


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for ``device_type`` (CUDA when not given) in this thread."""
    return _autocast.STATE.enabled.get("cuda" if device_type is None else device_type, False)


def set_autocast_enabled(device_type, enabled=None):
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _autocast.set_enabled(device_type, enabled)


def get_autocast_dtype(device_type):
    """The dtype autocast uses on ``device_type`` (bfloat16 on CPU, float16 on CUDA by default)."""
    _check_device_type(device_type)
    return _autocast.STATE.dtype.get(device_type, _dtype.float16)


def set_autocast_dtype(device_type, dtype):
    _autocast.STATE.dtype[device_type] = dtype


def is_autocast_cache_enabled():
    return _autocast.STATE.cache_enabled


def set_autocast_cache_enabled(enabled):
    _autocast.STATE.cache_enabled = bool(enabled)


def _deprecated(old, new, line):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead. (Triggered internally at "
                  f"/__w/pytorch/pytorch/torch/csrc/autograd/init.cpp:{line}.)", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    """Deprecated: ``is_autocast_enabled("cpu")``."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')", 883)
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype():
    """Deprecated: ``get_autocast_dtype("cpu")``."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')", 1016)
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    """Deprecated: ``get_autocast_dtype("cuda")``."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')", 1007)
    return get_autocast_dtype("cuda")


def set_autocast_cpu_enabled(enabled):
    """Deprecated: ``set_autocast_enabled("cpu", enabled)``."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)", 874)
    set_autocast_enabled("cpu", enabled)


def set_autocast_cpu_dtype(dtype):
    """Deprecated: ``set_autocast_dtype("cpu", dtype)``."""
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)", 967)
    set_autocast_dtype("cpu", dtype)


def clear_autocast_cache():
    _autocast.STATE.cache.clear()


class autocast:
    """Run a region (``with``) or a function (decorator) with autocast on for ``device_type``.

    Arguments:
      device_type: ``"cpu"`` or ``"cuda"``.
      dtype: the lower precision (default ``get_autocast_dtype(device_type)``); CPU supports
        bfloat16 and float16 (another dtype warns and disables autocast, as in PyTorch).
      enabled: False makes the region run without autocast (also inside an enabled one).
      cache_enabled: keep the casts of leaf tensors that require grad (weights) for the region.
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda":
                if not _gpus():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                    enabled = False
            elif self.fast_dtype not in _SUPPORTED:
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{name} Autocast only supports dtypes of "
                              + ", ".join(map(str, _SUPPORTED)) + " currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        _autocast.set_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        _autocast.increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _autocast.decrement_nesting()
        _autocast.set_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you mean to use autocast "
                "as a context manager? For example:\n    with torch.autocast(device_type=...):\n"
                "        output = model(input)")

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorated


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom Function's ``forward``: with ``cast_inputs``, run it on inputs cast
    to that dtype with autocast off, when autocast is on."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*[_cast(a, device_type, cast_inputs) for a in args],
                           **{k: _cast(v, device_type, cast_inputs) for k, v in kwargs.items()})
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom Function's ``backward``: runs it with the forward's autocast state."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


def _cast(value, device_type, dtype):
    if hasattr(value, "_cell") and value.is_floating_point() and value.device.type == device_type \
            and value.dtype != _dtype.float64:
        return value.to(dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, device_type, dtype) for k, v in value.items()}
    return value
