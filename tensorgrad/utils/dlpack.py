"""``tensorgrad.utils.dlpack``: ``to_dlpack`` (a DLPack capsule of a tensor's array) and
``from_dlpack`` (a tensor sharing memory with an object that implements ``__dlpack__``, or with
a capsule), as ``torch.utils.dlpack``.

A capsule says where its memory lives only inside it, where JAX cannot read it: a capsule is
taken as host memory, which it is when JAX has no other device; with a GPU, pass the array
itself (anything with ``__dlpack__``).
"""

import jax

from .._bridge import from_dlpack as _from_object
from .._tensor import Tensor

__all__ = ["from_dlpack", "to_dlpack"]


def to_dlpack(tensor):
    """A DLPack capsule of ``tensor``'s current array (no copy); it can be consumed once."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'data' (position 1) must be Tensor, not {type(tensor).__name__}")
    return tensor._data.__dlpack__()


class _HostCapsule:
    """A capsule made to look like an array on the host, for JAX's ``from_dlpack``."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)           # kDLCPU, device 0


def from_dlpack(ext_tensor):
    """A tensor sharing memory with ``ext_tensor``: an object with ``__dlpack__`` (NumPy, JAX,
    PyTorch, tensorgrad) or a DLPack capsule of host memory."""
    if hasattr(ext_tensor, "__dlpack__"):
        return _from_object(ext_tensor)
    if type(ext_tensor).__name__ != "PyCapsule":
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
                           "only once, so you might have already constructed a tensor from it once.")
    if any(d.platform != "cpu" for d in jax.devices()):
        raise RuntimeError("from_dlpack(): a DLPack capsule does not say to JAX which device its memory is on; "
                           "pass the array itself (an object with __dlpack__) instead of its capsule")
    try:
        return _from_object(_HostCapsule(ext_tensor))
    except (TypeError, ValueError, RuntimeError) as error:
        raise RuntimeError(f"from_dlpack received an invalid capsule ({error}). Note that DLTensor capsules can be "
                           "consumed only once, so you might have already constructed a tensor from it once.") from None
