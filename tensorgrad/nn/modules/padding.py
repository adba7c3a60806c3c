"""Padding layers (constant, zero, reflection, replication, circular) over nn.functional.pad."""

from .. import functional as F
from .module import Module


def _pairs(padding, nd):
    """``padding`` as the 2*nd-tuple F.pad takes (a single int pads every side)."""
    if isinstance(padding, int):
        return (padding,) * (2 * nd)
    return tuple(padding)


class _PadNd(Module):
    _nd = 0
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _pairs(padding, self._nd)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    _nd = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    _nd = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last two dims with zeros: ``(left, right, top, bottom)`` or one int for all."""

    _nd = 2


class ZeroPad3d(_ZeroPadNd):
    _nd = 3


class ReflectionPad1d(_PadNd):
    _nd = 1
    _mode = "reflect"


class ReflectionPad2d(_PadNd):
    _nd = 2
    _mode = "reflect"


class ReflectionPad3d(_PadNd):
    _nd = 3
    _mode = "reflect"


class ReplicationPad1d(_PadNd):
    _nd = 1
    _mode = "replicate"


class ReplicationPad2d(_PadNd):
    _nd = 2
    _mode = "replicate"


class ReplicationPad3d(_PadNd):
    _nd = 3
    _mode = "replicate"


class CircularPad1d(_PadNd):
    _nd = 1
    _mode = "circular"


class CircularPad2d(_PadNd):
    _nd = 2
    _mode = "circular"


class CircularPad3d(_PadNd):
    _nd = 3
    _mode = "circular"
