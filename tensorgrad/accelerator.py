"""``torch.accelerator``: the one accelerator tensorgrad can use, JAX's GPU (``cuda``), if any.

>>> import tensorgrad
>>> tensorgrad.accelerator.is_available() == (tensorgrad.accelerator.current_accelerator() is not None)
True
"""

from ._device import device as _torch_device, gpus as _gpus


def is_available():
    """Whether an accelerator (a GPU JAX sees) is available."""
    return bool(_gpus())


def current_accelerator(check_available=False):
    """``device(type='cuda')`` where JAX has a GPU, else None."""
    if _gpus():
        return _torch_device("cuda")
    return None


def device_count():
    """The number of accelerator devices (GPUs JAX sees)."""
    return len(_gpus())
