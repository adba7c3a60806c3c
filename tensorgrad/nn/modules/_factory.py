"""Helpers shared by the layer modules: parameter creation with ``device``/``dtype``."""

from ..._api.creation import empty
from ..parameter import Parameter


def new_param(*shape, device=None, dtype=None, requires_grad=True):
    """An uninitialized Parameter of ``shape`` (the layer's ``reset_parameters`` fills it)."""
    return Parameter(empty(*shape, device=device, dtype=dtype), requires_grad)


def tuple_of(value, n):
    """``value`` as an n-tuple (a single value repeated)."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n
