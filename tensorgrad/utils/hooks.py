"""``tensorgrad.utils.hooks``."""

from .._hooks import RemovableHandle as RemovableHandle
