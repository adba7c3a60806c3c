"""``tensorgrad.nn``: neural-network building blocks, as ``torch.nn``.

``functional`` holds the stateless functions (``torch.nn.functional``).
"""

from . import functional as functional

# Modules, layers, parameters and init are imported below this line as they are added.
from .parameter import Parameter as Parameter, Buffer as Buffer
from .parameter import (
    UninitializedParameter as UninitializedParameter, UninitializedBuffer as UninitializedBuffer,
)
from .modules import *  # noqa: F401,F403  (every module class, listed in modules/__init__.py)
from .modules import Module as Module
from . import init as init
from . import utils as utils
from . import parallel as parallel
