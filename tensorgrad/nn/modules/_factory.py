"""Helpers shared by the layer modules: parameter creation and PyTorch's default initialization."""

import math

from ..._api.creation import empty
from .. import init
from ..parameter import Parameter


def new_param(*shape, device=None, dtype=None, requires_grad=True):
    """An uninitialized Parameter of ``shape`` (the layer's ``reset_parameters`` fills it)."""
    return Parameter(empty(*shape, device=device, dtype=dtype), requires_grad)


def optional_param(module, name, enabled, *shape, device=None, dtype=None):
    """Register an uninitialized parameter ``name`` when ``enabled``, else register None."""
    if enabled:
        setattr(module, name, new_param(*shape, device=device, dtype=dtype))
    else:
        module.register_parameter(name, None)


def kaiming_default_(weight, bias):
    """Linear's and Conv's default init: weight and bias uniform in ``±1/sqrt(fan_in)``."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


def tuple_of(value, n):
    """``value`` as an n-tuple (a single value repeated)."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n
