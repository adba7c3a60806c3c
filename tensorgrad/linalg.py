"""``tensorgrad.linalg``: PyTorch's ``torch.linalg`` namespace.

>>> import tensorgrad as torch
>>> torch.linalg.det(torch.tensor([[2., 0.], [0., 3.]]))
tensor(6.)
"""

from ._api.linalg import (  # noqa: F401  (the public names of torch.linalg)
    LinAlgError as LinAlgError,
    inv as inv,
    det as det,
    slogdet as slogdet,
    solve as solve,
    solve_triangular as solve_triangular,
    cholesky as cholesky,
    qr as qr,
    svd as svd,
    svdvals as svdvals,
    eigh as eigh,
    eigvalsh as eigvalsh,
    pinv as pinv,
    lstsq as lstsq,
    matrix_rank as matrix_rank,
    norm as norm,
    vector_norm as vector_norm,
    matrix_norm as matrix_norm,
    matrix_power as matrix_power,
    matrix_exp as matrix_exp,
    vecdot as vecdot,
)
from ._api.products import multi_dot as multi_dot, linalg_cross as cross  # noqa: F401
from ._api.math import matmul as matmul  # noqa: F401
from ._api.more_ops import linalg_vander as vander  # noqa: F401
from ._api.shape import diagonal as _diagonal


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal ``offset`` of the matrices in dims ``dim1``, ``dim2`` (a view)."""
    return _diagonal(A, offset, dim1, dim2)
