"""The torch-level functions and Tensor methods, over the ops and dispatch (private).

Each module declares its functions with ``surface.declare``; importing this package imports
them all, so the registry (``surface.DECLARATIONS``) is complete for the layers above.
"""

from . import (  # noqa: F401  (imported for their declarations)
    attributes, creation, math, extra_math, reductions, indexing, rearrange, products, linalg, shape,
    inplace, extra_ops, more_ops, methods,
)
