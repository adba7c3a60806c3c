"""Padding layers (constant, zero, reflection, replication, circular) over nn.functional.pad."""

from .. import functional as F
from .module import Module


def _pairs(padding, nd):
    """``padding`` as the 2*nd-tuple F.pad takes (a single int pads every side)."""
    if isinstance(padding, int):
        return (padding,) * (2 * nd)
    return tuple(padding)


class _PadNd(Module):
    """``F.pad`` over the last ``nd`` dims in one ``mode``; each layer names both in its class line,
    as in ``class ReflectionPad2d(_PadNd, nd=2, mode="reflect")``.

    ``padding`` is ``(left, right)`` for the last dim, then ``(top, bottom)`` and ``(front, back)``
    for the dims before it, or one int for every side.
    """

    _nd = 0
    _mode = "constant"

    def __init_subclass__(cls, *, nd=None, mode=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if nd is not None:
            cls._nd = nd
        if mode is not None:
            cls._mode = mode

    def __init__(self, padding):
        super().__init__()
        self.padding = _pairs(padding, self._nd)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd, mode="constant"):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_ConstantPadNd):
    """A ConstantPadNd whose value is 0 (so ``ZeroPad2d`` is a ``ConstantPad2d``, as in PyTorch)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ConstantPad1d(_ConstantPadNd, nd=1):
    """Pad the last dim with ``value``."""


class ConstantPad2d(_ConstantPadNd, nd=2):
    """Pad the last two dims with ``value``."""


class ConstantPad3d(_ConstantPadNd, nd=3):
    """Pad the last three dims with ``value``."""


class ZeroPad1d(_ZeroPadNd, ConstantPad1d):
    """Pad the last dim with zeros."""


class ZeroPad2d(_ZeroPadNd, ConstantPad2d):
    """Pad the last two dims with zeros: ``(left, right, top, bottom)`` or one int for all."""


class ZeroPad3d(_ZeroPadNd, ConstantPad3d):
    """Pad the last three dims with zeros."""


class ReflectionPad1d(_PadNd, nd=1, mode="reflect"):
    """Pad the last dim with its reflection about the edge (the edge itself is not repeated)."""


class ReflectionPad2d(_PadNd, nd=2, mode="reflect"):
    """Pad the last two dims with their reflection about the edges."""


class ReflectionPad3d(_PadNd, nd=3, mode="reflect"):
    """Pad the last three dims with their reflection about the edges."""


class ReplicationPad1d(_PadNd, nd=1, mode="replicate"):
    """Pad the last dim by repeating its edge values."""


class ReplicationPad2d(_PadNd, nd=2, mode="replicate"):
    """Pad the last two dims by repeating their edge values."""


class ReplicationPad3d(_PadNd, nd=3, mode="replicate"):
    """Pad the last three dims by repeating their edge values."""


class CircularPad1d(_PadNd, nd=1, mode="circular"):
    """Pad the last dim by wrapping around: the left pad comes from the right end."""


class CircularPad2d(_PadNd, nd=2, mode="circular"):
    """Pad the last two dims by wrapping around."""


class CircularPad3d(_PadNd, nd=3, mode="circular"):
    """Pad the last three dims by wrapping around."""
