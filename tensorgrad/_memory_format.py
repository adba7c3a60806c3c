"""``torch.memory_format`` objects. tensorgrad keeps no strides, so every format is accepted
and means the same layout; they exist so that PyTorch code passing them runs."""


class memory_format:
    """A memory layout tag that prints as PyTorch's (``torch.channels_last``)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return (_by_name, (self._name,))


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

_FORMATS = {f._name: f for f in (preserve_format, contiguous_format, channels_last, channels_last_3d)}


def _by_name(name):
    return _FORMATS[name]
