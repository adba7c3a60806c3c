"""Shape ops that copy: concatenation, stacking, advanced indexing, flips, repeats."""

import functools

import jax
import jax.numpy as jnp

from .registry import op


@op("cat", saves="none")
def cat(*xs, dim, dtype):
    return jnp.concatenate([x.astype(dtype) for x in xs], axis=dim)


@op("stack", saves="none")
def stack(*xs, dim, dtype):
    return jnp.stack([x.astype(dtype) for x in xs], axis=dim)


@op("index", saves="none", no_slot=(1,), scalar_slots=False)
def index(x, indices, *, spec):
    """Advanced indexing: ``spec`` says where each array in ``indices`` goes among basic parts."""
    return x[_build_key(spec, indices)]


def _build_key(spec, indices):
    key = []
    it = iter(indices)
    for part in spec:
        if part == "array":
            key.append(next(it))
        elif isinstance(part, tuple):
            key.append(slice(*part[1:]))
        else:
            key.append(part)
    return tuple(key)


@op("index_put", grad_fn="IndexPutBackward0", saves="none", no_slot=(1,))
def index_put(x, indices, value, *, spec, accumulate):
    key = _build_key(spec, indices)
    value = jnp.asarray(value, x.dtype)
    if accumulate:
        return x.at[key].add(value)
    return _put(x, indices, value, spec)


@functools.partial(jax.custom_vjp, nondiff_argnums=(3,))
def _put(x, indices, value, spec):
    return x.at[_build_key(spec, indices)].set(value)


def _put_fwd(x, indices, value, spec):
    return _put(x, indices, value, spec), (indices, value)


def _put_bwd(spec, residuals, g):
    # PyTorch's IndexPutBackward0: the value's gradient gathers the output's at every index,
    # duplicates included (JAX's own rule credits only the write that lands)
    indices, value = residuals
    key = _build_key(spec, indices)
    gv = g[key]
    lead = gv.ndim - value.ndim
    dims = tuple(range(lead)) + tuple(lead + d for d, n in enumerate(value.shape) if n == 1 and gv.shape[lead + d] != 1)
    gv = jnp.sum(gv, axis=dims, keepdims=True).reshape(value.shape) if dims else gv.reshape(value.shape)
    return g.at[key].set(0), None, gv


_put.defvjp(_put_fwd, _put_bwd)


@op("reshape_copy", grad_fn="UnsafeViewBackward0", saves="none")
def reshape_copy(x, *, shape):
    return jnp.reshape(x, shape)


# PyTorch's in-place view ops (``unsqueeze_``, ``transpose_``) on an intermediate no one else
# holds: a new array here, with the node name of PyTorch's in-place overload
@op("unsqueeze_copy", grad_fn="UnsqueezeBackward1", saves="none")
def unsqueeze_copy(x, *, dim):
    return jnp.expand_dims(x, dim)


@op("transpose_copy", grad_fn="TransposeBackward1", saves="none")
def transpose_copy(x, *, dim0, dim1):
    return jnp.swapaxes(x, dim0, dim1)


@op("flip", saves="none")
def flip(x, *, dims):
    return jnp.flip(x, dims)


@op("repeat", saves="none")
def repeat(x, *, repeats):
    extra = len(repeats) - x.ndim
    return jnp.tile(x.reshape((1,) * extra + x.shape), repeats)
