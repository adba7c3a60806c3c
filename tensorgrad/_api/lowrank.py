"""``torch.svd_lowrank`` and ``torch.pca_lowrank``: PyTorch's randomized low-rank SVD
(``torch/_lowrank.py``, Halko et al. 2009, algorithms 4.4 and 5.1), composed of tensorgrad's
ops in the same order (``randn``, ``matmul``, ``linalg.qr``, ``linalg.svd``), so that autograd
runs through them and their errors are those ops' errors, as in PyTorch.

The random projection is drawn from tensorgrad's default generator: for the same seed its
values differ from PyTorch's (and so may the signs and the last digits of the results), while
for a matrix of rank at most ``q`` the singular values and the product ``U diag(S) V^H`` are
those of the matrix. There are no sparse tensors, so PyTorch's sparse branches never apply.
"""

from .. import _dtype
from .linalg import qr, svd
from .matmul import matmul
from .random import randn
from .surface import declare


def _floating_dtype(A):
    """``_linalg_utils.get_floating_dtype``: the floating dtype of ``A``, float32 for the rest."""
    return A.dtype if A.dtype in (_dtype.float16, _dtype.float32, _dtype.float64) else _dtype.float32


def _approximate_basis(A, q, niter=2, M=None):
    """``Q`` with ``q`` orthonormal columns such that ``Q Q^H (A - M)`` approximates ``A - M``
    (``get_approximate_basis``: a Gaussian projection and ``niter`` subspace iterations)."""
    niter = 2 if niter is None else niter
    dtype = _floating_dtype(A) if not A.is_complex() else A.dtype
    R = randn(A.shape[-1], q, dtype=dtype, device=A.device)
    X = matmul(A, R)
    if M is not None:
        X = X - matmul(M, R)
    Q = qr(X).Q
    for _ in range(niter):
        X = matmul(A.mH, Q)
        if M is not None:
            X = X - matmul(M.mH, Q)
        Q = qr(X).Q
        X = matmul(A, Q)
        if M is not None:
            X = X - matmul(M, Q)
        Q = qr(X).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:       # work on the tall matrix
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, niter=niter, M=M)
    B = matmul(Q.mH, A)
    if M is not None:
        B = B - matmul(Q.mH, M)
    U, S, Vh = svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


@declare("svd_lowrank", numpy_names=False)
def svd_lowrank(A, q=6, niter=2, M=None):
    """``(U, S, V)`` (a plain tuple) with ``A - M ≈ U diag(S) V^H`` (``M``, broadcast to ``A``,
    defaults to zero), of at most ``q`` singular triplets, for a matrix or a batch: a random
    projection onto ``q`` columns refined by ``niter`` subspace iterations, then the SVD of the
    projected matrix. Random: the projection is drawn from the default generator."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


@declare("pca_lowrank", numpy_names=False)
def pca_lowrank(A, q=None, center=True, niter=2):
    """``svd_lowrank`` of ``A`` with its column means (over dim -2) subtracted (unless
    ``center=False``): ``V``'s columns are the principal directions, ``S**2 / (m - 1)`` the
    variances along them. ``q`` defaults to ``min(6, m, n)``."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)
