"""What a tensor is: predicates and layout queries (``is_tensor``, ``numel``, ``stride``, ...)."""

from .._tensor import Tensor
from . import strides as _strides
from .surface import declare


@declare("is_tensor", numpy_names=False)
def is_tensor(obj):
    """Whether ``obj`` is a tensorgrad Tensor (Parameters included)."""
    return isinstance(obj, Tensor)


@declare("numel")
def numel(input):
    return input.numel()


@declare("is_floating_point")
def is_floating_point(input):
    return input.is_floating_point()


@declare("is_complex")
def is_complex(input):
    return input.is_complex()


declare(method=("stride",))(_strides.stride)
declare(method=("storage_offset",))(_strides.storage_offset)
declare(method=("is_contiguous",))(_strides.is_contiguous)
