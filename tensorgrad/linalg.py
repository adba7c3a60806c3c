"""``tensorgrad.linalg``: PyTorch's ``torch.linalg`` namespace.

>>> import tensorgrad as torch
>>> torch.linalg.det(torch.tensor([[2., 0.], [0., 3.]]))
tensor(6.)
"""

from ._api.linalg import LinAlgError as LinAlgError
from ._api.shape import diagonal as _diagonal
from ._api.surface import declare as _declare


@_declare("linalg.diagonal")
def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal ``offset`` of the matrices in dims ``dim1``, ``dim2`` (a view)."""
    return _diagonal(A, offset, dim1, dim2)

