"""``torch.distributed.nn``: the differentiable collectives (``functional``)."""

from . import functional as functional

__all__ = ["functional"]
