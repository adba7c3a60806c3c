"""Matrix products."""

import jax.numpy as jnp

from .registry import op


@op("dot")
def dot(a, b):
    return jnp.dot(a, b)


@op("mv")
def mv(a, b):
    return a @ b


@op("mm")
def mm(a, b):
    return a @ b


@op("bmm")
def bmm(a, b):
    return a @ b


@op("matmul", grad_fn="UnsafeViewBackward0")
def matmul(a, b):
    return jnp.matmul(a, b)


@op("squeeze_copy", grad_fn="SqueezeBackward4", saves="none")
def squeeze_copy(x, *, dim):
    return jnp.squeeze(x, dim)


@op("addmm")
def addmm(bias, a, b, *, beta, alpha):
    return beta * bias + alpha * (a @ b)


@op("outer", grad_fn="MulBackward0")
def outer(a, b):
    return jnp.outer(a, b)
