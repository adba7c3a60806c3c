"""``torch.backends.cuda``: ``is_built()`` and ``matmul.allow_tf32``.

``matmul.allow_tf32`` is the float32 matmul precision in other words: True when it is not
``'highest'``; setting it True asks for ``'high'`` (TF32) and False for ``'highest'``, through
``tensorgrad.set_float32_matmul_precision`` (JAX's ``jax_default_matmul_precision``).

>>> import tensorgrad
>>> tensorgrad.backends.cuda.matmul.allow_tf32
False
"""

from .._device import gpus as _gpus
from .._runtime import get_float32_matmul_precision as _get_precision
from .._runtime import set_float32_matmul_precision as _set_precision


def is_built():
    """Whether tensorgrad can use CUDA: whether JAX has a GPU backend with a device."""
    return bool(_gpus())


class cuBLASModule:
    """``backends.cuda.matmul``: ``allow_tf32``; any other attribute is unknown, as in PyTorch."""

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _get_precision() != "highest"
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name != "allow_tf32":
            raise AttributeError(f"Unknown attribute {name}")
        if type(value) is not bool:
            raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
        _set_precision("high" if value else "highest")


matmul = cuBLASModule()
