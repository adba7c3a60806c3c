"""``torch.backends.cudnn``: the flags scripts set for cuDNN.

XLA chooses its GPU kernels itself: ``benchmark``, ``deterministic``, ``enabled`` and
``allow_tf32`` are kept and read back, checked to be bools as PyTorch checks them, and have no
effect (XLA's convolutions follow the float32 matmul precision,
``tensorgrad.set_float32_matmul_precision``; for deterministic GPU kernels see
``tensorgrad.use_deterministic_algorithms``).

>>> import tensorgrad
>>> tensorgrad.backends.cudnn.benchmark = True
>>> tensorgrad.backends.cudnn.benchmark
True
>>> tensorgrad.backends.cudnn.benchmark = False
"""

import sys as _sys
from types import ModuleType as _ModuleType

from .._device import gpus as _gpus

# PyTorch's defaults, and the names its setters use in their messages
_FLAGS = {"benchmark": False, "deterministic": False, "enabled": True, "allow_tf32": True}
_SETTERS = {"benchmark": "set_benchmark_cudnn", "deterministic": "set_deterministic_cudnn",
            "enabled": "set_enabled_cudnn", "allow_tf32": "set_allow_tf32_cublas"}  # sic, as PyTorch says


def is_available():
    """Whether cuDNN is there: XLA's GPU backend uses it, so whether JAX has a GPU."""
    return bool(_gpus())


class CudnnModule(_ModuleType):
    """This module, with its flags as attributes that accept only bools."""

    def __getattr__(self, name):
        if name in _FLAGS:
            return _FLAGS[name]
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name not in _FLAGS:
            super().__setattr__(name, value)
            return
        if type(value) is not bool:
            raise RuntimeError(f"{_SETTERS[name]} expects a bool, but got {type(value).__name__}")
        _FLAGS[name] = value


_sys.modules[__name__].__class__ = CudnnModule
