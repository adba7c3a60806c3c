"""Flatten parameters into one vector and back."""

from ..._api.joining import cat
from ..._tensor import Tensor
from ..._typename import typename


def parameters_to_vector(parameters):
    """One 1-D tensor with every parameter's values, in order."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Write consecutive slices of the 1-D ``vec`` into ``parameters`` (their ``.data``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    start = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[start:start + n].view_as(param).data
        start += n
