"""``tensorgrad.utils``."""

from . import hooks as hooks
