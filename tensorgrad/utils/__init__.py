"""``tensorgrad.utils``."""

from . import hooks as hooks
from . import data as data
from . import dlpack as dlpack
from . import checkpoint as checkpoint
from . import viz as viz
