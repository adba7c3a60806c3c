"""``tensorgrad.nn``: neural-network building blocks, as ``torch.nn``.

``functional`` holds the stateless functions (``torch.nn.functional``).
"""

from . import functional as functional

# Modules, layers, parameters and init are imported below this line as they are added.
