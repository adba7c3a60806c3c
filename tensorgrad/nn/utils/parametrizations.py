"""``nn.utils.parametrizations``: weight normalization, spectral normalization and orthogonal
matrices as parametrizations (:mod:`~tensorgrad.nn.utils.parametrize`).

- ``weight_norm``: ``original0`` is the magnitude ``g``, ``original1`` the direction ``v``;
  the weight is ``g * v / ||v||``. It loads the ``weight_g``/``weight_v`` entries of the older
  hook-based ``weight_norm``.
- ``spectral_norm``: the weight divided by its largest singular value, estimated by the power
  method with the vectors in the buffers ``_u`` and ``_v`` of the parametrization (15
  iterations at registration, ``n_power_iterations`` at every access in training mode).
- ``orthogonal``: the matrix exponential or the Cayley map of a skew-symmetric matrix, or a
  product of Householder reflectors, times an orthogonal ``base`` (the dynamic trivialization).
"""

from enum import Enum, auto

import jax.numpy as jnp

from ..._autograd.grad_mode import no_grad
from ..._api.elementwise import add
from ..._api.comparison import allclose
from ..._api.creation import eye, zeros_like
from ..._api.joining import cat
from ..._api.linalg import matrix_exp, solve
from ..._api.linalg_factor import geqrf, householder_product
from ..._api.matmul import mv
from ..._api.products import vdot
from ..._api.random import randn
from ..._tensor import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _default_dim
from .weight_norm import _norm_except_dim, _weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------- weight_norm

class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Parametrize ``module.<name>`` as ``g * v / ||v||``: ``g`` (``original0``) holds the norms
    over every dimension but ``dim`` (the whole tensor when ``dim=None``), ``v`` (``original1``)
    the direction. Returns ``module``.

    >>> import tensorgrad as torch
    >>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(20, 40))
    >>> m.parametrizations.weight.original0.size(), m.parametrizations.weight.original1.size()
    (torch.Size([40, 1]), torch.Size([40, 20]))
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    parametrize._register_load_state_dict_pre_hook(module, _weight_norm_compat_hook)
    return module


# ---------------------------------------------------------------- spectral_norm

class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:    # a vector is normalized exactly (forward); a matrix needs the power method
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # u and v are updated in place (a replica sharing the buffers sees the update); forward
        # uses copies, so a graph built on an earlier value stays valid
        if weight_mat.ndim <= 1:
            raise AssertionError(f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}")
        with no_grad():
            for _ in range(n_power_iterations):
                F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                F.normalize(mv(weight_mat.H, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrize ``module.<name>`` as itself divided by its largest singular value (the
    tensor seen as a matrix whose rows run along ``dim``: 0, or 1 for ConvTranspose), estimated
    by ``n_power_iterations`` steps of the power method at every access in training mode. A
    vector is divided by its norm. Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = _default_dim(module)
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# ---------------------------------------------------------------- orthogonal

def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    identity = eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * float(jnp.finfo(Q.dtype.np).eps)
    return allclose(Q.mH @ Q, identity, atol=eps)


def _make_orthogonal(A):
    """The Q of the QR decomposition of the tall ``A`` whose R has a real, non-negative diagonal."""
    X, tau = geqrf(A)
    Q = householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        # the reflectors of a complex (or rectangular) matrix cannot give its tau: Householder
        # products are real only
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()    # n*k - k(k-1)/2 parameters, embedded in a square matrix
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH    # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:           # the Cayley retraction (I + A/2)(I - A/2)^{-1}
                identity = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(add(identity, A, alpha=-0.5), add(identity, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = householder_product(A, tau)
            # the signs on X's diagonal (1 or -1), not differentiated
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            # the reflectors of Q's QR decomposition with diag(R) > 0, the diagonal holding the signs
            A, tau = geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:   # complete Q to an n x n orthogonal matrix
            N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        # -I, so that householder(zeros) is the identity
        neg_identity = zeros_like(Q_init)
        neg_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_identity


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrize the matrix (or batch of matrices) ``module.<name>`` to be orthogonal
    (unitary): orthonormal columns when it is tall, rows when it is wide.

    ``orthogonal_map`` is ``"matrix_exp"``, ``"cayley"`` or ``"householder"`` (default
    ``"matrix_exp"`` for a square or complex matrix, else ``"householder"``). With
    ``use_trivialization`` an orthogonal ``base`` is kept in ``parametrizations.<name>[0].base``;
    the initial value is the tensor itself if orthogonal, else the Q of its QR decomposition.
    Returns ``module``.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
