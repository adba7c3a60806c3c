"""``tensorgrad.amp`` (``torch.amp``): automatic mixed precision, autocast regions and GradScaler."""

import sys
import types
import warnings

from .autocast_mode import (
    autocast as autocast, is_autocast_available as is_autocast_available, custom_fwd as custom_fwd,
    custom_bwd as custom_bwd, is_autocast_enabled as _is_autocast_enabled, get_autocast_dtype as _get_dtype,
)
from .grad_scaler import GradScaler as GradScaler
from . import autocast_mode as autocast_mode, grad_scaler as grad_scaler

__all__ = ["autocast", "GradScaler", "is_autocast_available", "custom_fwd", "custom_bwd", "device_amp_module"]


def _deprecated_autocast(device_type):
    """``torch.<device>.amp.autocast``: ``autocast(device_type, ...)`` with PyTorch's FutureWarning."""

    class DeviceAutocast(autocast):
        def __init__(self, enabled=True, dtype=None, cache_enabled=True):
            warnings.warn(f"`torch.{device_type}.amp.autocast(args...)` is deprecated. Please use "
                          f"`torch.amp.autocast('{device_type}', args...)` instead.", FutureWarning, stacklevel=2)
            if dtype is None:
                dtype = _get_dtype(device_type)
            super().__init__(device_type, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    DeviceAutocast.__name__ = DeviceAutocast.__qualname__ = "autocast"
    return DeviceAutocast


class _CudaGradScaler(GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)


_CudaGradScaler.__name__ = _CudaGradScaler.__qualname__ = "GradScaler"


def device_amp_module(package, device_type):
    """The ``<package>.amp`` module (``torch.cpu.amp``, ``torch.cuda.amp``), registered for import."""
    module = types.ModuleType(f"{package}.amp", f"``torch.{device_type}.amp`` (deprecated aliases of torch.amp).")
    module.autocast = _deprecated_autocast(device_type)
    module.GradScaler = _CudaGradScaler if device_type == "cuda" else GradScaler
    module.custom_fwd = custom_fwd
    module.custom_bwd = custom_bwd
    sys.modules[module.__name__] = module
    return module
