"""``tensorgrad.cpu`` (``torch.cpu``): the CPU device module; its ``amp`` holds the deprecated
``torch.cpu.amp.autocast``."""

from ..amp import device_amp_module as _device_amp_module

amp = _device_amp_module(__name__, "cpu")


def is_available():
    """The CPU is always available."""
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """Nothing to wait for: tensorgrad's CPU ops are complete when they return."""
