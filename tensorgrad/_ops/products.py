"""Products: dot, matrix and batched matrix products, outer and cross products, einsum, trace,
and the fused scaled sums (addmm, baddbmm, addbmm, addmv, addr)."""

import jax.numpy as jnp
from jax import lax

from .registry import op


# ---------------------------------------------------------------- products

@op("dot")
def dot(a, b):
    return jnp.dot(a, b)


@op("vdot")
def vdot(a, b):
    return jnp.vdot(a, b)


@op("mv")
def mv(a, b):
    return a @ b


@op("mm")
def mm(a, b):
    return a @ b


mm.folds_views = True


@op("bmm")
def bmm(a, b):
    return a @ b


@op("matmul", grad_fn="UnsafeViewBackward0")
def matmul(a, b):
    return jnp.matmul(a, b)


@op("outer", grad_fn="MulBackward0")
def outer(a, b):
    return jnp.outer(a, b)


@op("cross", grad_fn="LinalgCrossBackward0")
def cross(a, b, *, dim):
    a, b = jnp.broadcast_arrays(a, b)
    return jnp.cross(a, b, axis=dim)


@op("einsum", grad_fn="BmmBackward0")
def einsum(*operands, equation):
    """The contraction itself; the torch-level function adds PyTorch's view/permute nodes."""
    return jnp.einsum(equation, *operands, precision=lax.Precision.HIGHEST)


@op("trace", saves="none")
def trace(x):
    return jnp.trace(x)


# ---------------------------------------------------------------- scaled sums: beta * bias + alpha * product

@op("addmm", saves={"a": "b", "b": "a"})
def addmm(bias, a, b, *, beta, alpha):
    return beta * bias + alpha * (a @ b)


addmm.folds_views = True


def _scaled_sum(bias, prod, beta, alpha):
    # beta == 0 ignores the bias entirely (NaN in it does not propagate), as PyTorch; the
    # scalars are cast to the tensors' dtype first (0.5 is 0 for integers)
    prod = prod if alpha == 1 else prod * jnp.asarray(alpha, prod.dtype)
    if beta == 0:
        return jnp.broadcast_to(prod, jnp.broadcast_shapes(bias.shape, prod.shape)).astype(prod.dtype)
    return (bias if beta == 1 else bias * jnp.asarray(beta, bias.dtype)) + prod


@op("baddbmm", saves={"b1": "b2", "b2": "b1"})
def baddbmm(bias, b1, b2, *, beta, alpha):
    return _scaled_sum(bias, b1 @ b2, beta, alpha)


@op("addbmm", saves={"b1": "b2", "b2": "b1"})
def addbmm(bias, b1, b2, *, beta, alpha):
    return _scaled_sum(bias, jnp.sum(b1 @ b2, axis=0), beta, alpha)


@op("addmv", saves={"mat": "vec", "vec": "mat"})
def addmv(bias, mat, vec, *, beta, alpha):
    return _scaled_sum(bias, mat @ vec, beta, alpha)


@op("addr", saves={"v1": "v2", "v2": "v1"})
def addr(bias, v1, v2, *, beta, alpha):
    return _scaled_sum(bias, jnp.outer(v1, v2), beta, alpha)
