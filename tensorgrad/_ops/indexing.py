"""Indexing ops: gather/scatter, index_* along a dim, masked select/scatter, take and put,
advanced indexing (``x[idx]`` and its write), and writing into a slice out of place
(select/slice/diagonal_scatter).

Index arrays are positional but never differentiated (``no_slot``). Ops whose output size
depends on data (masked_select) receive the positions the host computed, so they run inside
``jit`` only with those positions given.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax

from .registry import op


def _coords(index, dim):
    """The full coordinates that ``scatter``/``gather`` address: index's own grid with
    ``index`` along ``dim``."""
    grid = list(jnp.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _head(x, shape, dim=None):
    """``x`` cut to ``shape`` (in every dim but ``dim``)."""
    limits = tuple(x.shape[d] if d == dim else shape[d] for d in range(x.ndim))
    if limits == x.shape:
        return x
    return lax.slice(x, (0,) * x.ndim, limits)


def _with_grads(value, *terms):
    """``value`` whose gradient is that of the sum of ``terms`` (each a differentiable
    expression whose value is ignored): PyTorch's formula where JAX has none."""
    out = lax.stop_gradient(value)
    for t in terms:
        out = out + (t - lax.stop_gradient(t))
    return out


# ---------------------------------------------------------------- gather and scatter

@op("gather", no_slot=(1,), saves={"x": "any", "index": "any"})
def gather(x, index, *, dim):
    if x.ndim == 0:
        return x.reshape(index.shape)
    if index.ndim == 0:                 # a 0-d index is one position along dim (PyTorch's 1-d)
        return gather.fn(x, index.reshape(1), dim=dim).reshape(())
    return jnp.take_along_axis(_head(x, index.shape, dim), index, axis=dim)


@op("scatter", no_slot=(1,), saves={"index": "any"})
def scatter(x, index, src, *, dim, reduce):
    if x.ndim == 0:
        x, index, src = x.reshape(1), index.reshape(1), src.reshape(1)
        return scatter.fn(x, index, src, dim=0, reduce=reduce).reshape(())
    if index.ndim == 0:                 # a 0-d index (and src) is one position along dim
        return scatter.fn(x, index.reshape(1), src.reshape(1) if src.ndim == 0 else src, dim=dim, reduce=reduce)
    if x.dtype == jnp.bool_ and reduce is not None:
        # bools accumulate as logical or (add) and logical and (multiply)
        out = scatter.fn(x.astype(jnp.int8), index, src.astype(jnp.int8), dim=dim, reduce=reduce)
        return out.astype(jnp.bool_)
    at = x.at[_coords(index, dim)]
    src = _head(src, index.shape).astype(x.dtype)
    if reduce == "add":
        return at.add(src)
    if reduce == "multiply":
        return at.multiply(src)
    return at.set(src)


@op("scatter_value", grad_fn="ScatterBackward1", no_slot=(1,), scalar_slots=False, saves={"index": "any"})
def scatter_value(x, index, value, *, dim, reduce):
    src = jnp.broadcast_to(jnp.asarray(value, x.dtype), index.shape)
    return scatter.fn(x, index, src, dim=dim, reduce=reduce)


@op("scatter_add", grad_fn="ScatterAddBackward0", no_slot=(1,), saves={"index": "src"})
def scatter_add(x, index, src, *, dim):
    return scatter.fn(x, index, src, dim=dim, reduce="add")


@op("scatter_reduce", grad_fn="ScatterReduceBackward0", no_slot=(1,),
    saves={"x": "any", "index": "any", "src": "any", "out": "any"})
def scatter_reduce(x, index, src, *, dim, reduce, include_self):
    if x.ndim == 0:
        out = scatter_reduce.fn(x.reshape(1), index.reshape(1), src.reshape(1), dim=0, reduce=reduce,
                                include_self=include_self)
        return out.reshape(())
    if index.ndim == 0:                 # a 0-d index (and src) is one position along dim
        return scatter_reduce.fn(x, index.reshape(1), src.reshape(1) if src.ndim == 0 else src, dim=dim,
                                 reduce=reduce, include_self=include_self)
    if x.dtype == jnp.bool_:
        # sum/amax are a logical or, prod/amin a logical and
        as_int = scatter_reduce.fn(x.astype(jnp.int8), index, src.astype(jnp.int8), dim=dim,
                                   reduce={"sum": "amax", "prod": "amin"}.get(reduce, reduce),
                                   include_self=include_self)
        return as_int.astype(jnp.bool_)
    coords = _coords(index, dim)
    src = _head(src, index.shape).astype(x.dtype)
    hit = jnp.zeros(x.shape, bool).at[coords].set(True)
    if reduce == "sum":
        base = x if include_self else jnp.where(hit, jnp.zeros_like(x), x)
        return base.at[coords].add(src)
    if reduce == "mean":
        count = jnp.zeros(x.shape, x.dtype).at[coords].add(jnp.ones_like(src))
        base = x if include_self else jnp.where(hit, jnp.zeros_like(x), x)
        total = base.at[coords].add(src)
        count = count + (1 if include_self else 0)
        count = jnp.where(count == 0, jnp.ones_like(count), count)
        if jnp.issubdtype(x.dtype, jnp.integer):
            return jnp.where(hit, jnp.floor_divide(total, count), x)
        return jnp.where(hit, total / count, x)
    if reduce == "prod":
        return _scatter_prod(x, src, coords, hit, include_self)
    return _scatter_extreme(x, src, coords, hit, include_self, reduce == "amax")


def _scatter_prod(x, src, coords, hit, include_self):
    """Scatter-multiply with PyTorch's gradient (JAX has none for repeated indices); the
    exclusive products are computed explicitly where an entry is 0, as PyTorch does."""
    xs, ss = lax.stop_gradient(x), lax.stop_gradient(src)
    one = jnp.ones_like(xs)
    base = xs if include_self else jnp.where(hit, one, xs)
    result = base.at[coords].multiply(ss)
    if not jnp.issubdtype(xs.dtype, jnp.inexact):
        return result
    masked_self = jnp.where(base == 0, one, base)
    self_coef = masked_self.at[coords].multiply(ss) / masked_self
    if not include_self:
        self_coef = jnp.where(hit, jnp.zeros_like(self_coef), one)
    src_zero = ss == 0
    zeros_at = jnp.zeros_like(xs).at[coords].add(src_zero.astype(xs.dtype))[coords]
    single = src_zero & (zeros_at == 1)
    masked_src_result = base.at[coords].multiply(jnp.where(single, jnp.ones_like(ss), ss))
    src_coef = jnp.where(single, masked_src_result[coords],
                         result[coords] / jnp.where(src_zero, jnp.ones_like(ss), ss))
    spread = jnp.zeros_like(x).at[coords].add(src * src_coef)
    return _with_grads(result, x * self_coef, spread)


def _scatter_extreme(x, src, coords, hit, include_self, largest):
    """Scatter-amax/amin; the gradient is shared evenly among all entries equal to the
    result (self included, even where it does not take part), as PyTorch."""
    xs, ss = lax.stop_gradient(x), lax.stop_gradient(src)
    if jnp.issubdtype(xs.dtype, jnp.floating):
        fill = -jnp.inf if largest else jnp.inf
    else:
        info = jnp.iinfo(xs.dtype)
        fill = info.min if largest else info.max
    base = xs if include_self else jnp.where(hit, jnp.full_like(xs, fill), xs)
    result = base.at[coords].max(ss) if largest else base.at[coords].min(ss)
    if not jnp.issubdtype(xs.dtype, jnp.inexact):
        return result
    # PyTorch counts self among the ties even where include_self=False (then gives it no gradient)
    self_tie = xs == result
    self_in = self_tie & (~hit if not include_self else True)
    src_in = ss == result[coords]
    count = self_tie.astype(xs.dtype).at[coords].add(src_in.astype(xs.dtype))
    count = jnp.where(count == 0, jnp.ones_like(count), count)
    spread = jnp.zeros_like(x).at[coords].add(src * (src_in / count[coords]))
    return _with_grads(result, x * (self_in / count), spread)


# ---------------------------------------------------------------- along one dim

def _along(dim, index):
    return (slice(None),) * dim + (index,)


@op("index_select", grad_fn="IndexSelectBackward0", no_slot=(1,), saves={"index": "any"})
def index_select(x, index, *, dim):
    if x.ndim == 0:
        return x + jnp.zeros((), x.dtype)   # its one index is 0 (checked by the caller): the scalar itself
    return jnp.take(x, index.reshape(-1), axis=dim)


@op("index_add", grad_fn="IndexAddBackward0", no_slot=(1,), saves={"index": "source", "source": "source"})
def index_add(x, index, source, *, dim, alpha):
    if x.dtype == jnp.bool_:
        out = index_add.fn(x.astype(jnp.int8), index, source.astype(jnp.int8), dim=dim, alpha=alpha)
        return out != 0
    source = source.astype(x.dtype)
    if alpha != 1:
        source = source * jnp.asarray(alpha, x.dtype)
    if x.ndim == 0:
        return x + jnp.sum(source)
    return x.at[_along(dim, index.reshape(-1))].add(source.reshape(_index_shape(x, index, dim)))


def _index_shape(x, index, dim):
    return x.shape[:dim] + (index.size,) + x.shape[dim + 1:]


@op("index_copy", grad_fn="IndexCopyBackward0", no_slot=(1,), saves={"index": "any", "source": "source"})
def index_copy(x, index, source, *, dim):
    if x.ndim == 0:
        return source.astype(x.dtype).reshape(())
    return x.at[_along(dim, index.reshape(-1))].set(source.astype(x.dtype).reshape(_index_shape(x, index, dim)))


@op("index_fill", grad_fn="IndexFillBackward0", no_slot=(1,), scalar_slots=False, saves={"index": "any"})
def index_fill(x, index, value, *, dim):
    if x.ndim == 0:
        return jnp.asarray(value, x.dtype)
    index = index.reshape(-1)
    index = jnp.where(index < 0, index + x.shape[dim], index)  # negative indices count from the end
    return x.at[_along(dim, index)].set(jnp.asarray(value, x.dtype))


@op("index_fill_tensor", grad_fn="IndexFillBackward1", no_slot=(1,), saves={"index": "any"})
def index_fill_tensor(x, index, value, *, dim):
    return index_fill.fn(x, index, value.astype(x.dtype), dim=dim)


# ---------------------------------------------------------------- masks and flat indices

@op("masked_select", grad_fn="MaskedSelectBackward0", no_slot=(1,), saves={"x": "any", "positions": "any"})
def masked_select(x, positions, *, shape):
    return jnp.broadcast_to(x, shape).reshape(-1)[positions]


@op("masked_scatter", grad_fn="MaskedScatterBackward0", no_slot=(1,), saves={"positions": "any"})
def masked_scatter(x, positions, source):
    flat = x.reshape(-1)
    values = source.reshape(-1)[:positions.shape[0]].astype(x.dtype)
    return flat.at[positions].set(values).reshape(x.shape)


@op("take", no_slot=(1,), saves={"x": "any", "index": "any"})
def take(x, index):
    flat = x.reshape(-1)
    return flat[jnp.where(index < 0, index + flat.shape[0], index)]


@op("put", grad_fn="PutBackward0", no_slot=(1,), saves={"index": "any", "source": "source"})
def put(x, index, source, *, accumulate):
    """``x`` read as 1-D with ``source`` written (or added) at ``index`` (negative from the end)."""
    flat = x.reshape(-1)
    idx = jnp.where(index < 0, index + flat.shape[0], index).reshape(-1)
    values = source.reshape(-1).astype(x.dtype)
    if not accumulate:
        out = flat.at[idx].set(values)
    elif x.dtype == jnp.bool_:
        out = flat.at[idx].max(values)      # bool addition saturates at True
    else:
        out = flat.at[idx].add(values)
    return out.reshape(x.shape)


# ---------------------------------------------------------------- advanced indexing

@op("index", no_slot=(1,), scalar_slots=False, saves={"indices": "any"})
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


@op("index_put", grad_fn="IndexPutBackward0", no_slot=(1,), saves={"indices": "any"})
def index_put(x, indices, value, *, spec, accumulate):
    key = _build_key(spec, indices)
    value = jnp.asarray(value).astype(x.dtype)     # a complex value into bool: nonzero, its imaginary part too
    if accumulate:
        # bools accumulate as logical or
        return x.at[key].max(value) if x.dtype == jnp.bool_ else x.at[key].add(value)
    return _put(x, indices, value, spec)


@op("index_put_mask", grad_fn="IndexPutBackward0", no_slot=(1,), saves={"mask": "any"})
def index_put_mask(x, mask, value, *, start):
    """``index_put`` of one value where a boolean mask over dims ``start, ...`` holds (PyTorch's
    dispatch to masked_fill): a ``where``, so one program whatever the mask's count of trues."""
    m = mask.reshape((1,) * start + mask.shape + (1,) * (x.ndim - start - mask.ndim))
    return jnp.where(m, jnp.asarray(value).astype(x.dtype), x)


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


# ---------------------------------------------------------------- writing into a slice (out of place)

@op("select_scatter", grad_fn="SelectScatterBackward0", saves="none")
def select_scatter(x, src, *, dim, index):
    idx = [slice(None)] * x.ndim
    idx[dim] = index
    return x.at[tuple(idx)].set(src.astype(x.dtype))


@op("slice_scatter", grad_fn="SliceScatterBackward0", saves="none")
def slice_scatter(x, src, *, dim, start, end, step):
    idx = [slice(None)] * x.ndim
    idx[dim] = slice(start, end, step)
    return x.at[tuple(idx)].set(src.astype(x.dtype))


@op("diagonal_scatter", grad_fn="DiagonalScatterBackward0", saves="none")
def diagonal_scatter(x, src, *, offset, dim1, dim2):
    n1, n2 = x.shape[dim1], x.shape[dim2]
    size = max(0, min(n1 + min(offset, 0), n2 - max(offset, 0)))
    i = jnp.arange(size) - min(offset, 0)
    j = jnp.arange(size) + max(offset, 0)
    # move the two dims last so the diagonal is the last axis of src, as PyTorch's diagonal()
    moved = jnp.moveaxis(x, (dim1, dim2), (-2, -1))
    moved = moved.at[..., i, j].set(src.astype(x.dtype))
    return jnp.moveaxis(moved, (-2, -1), (dim1, dim2))


@op("index_reduce", grad_fn="IndexReduceBackward0", no_slot=(1,),
    saves={"x": "any", "index": "any", "src": "any", "out": "any"})
def index_reduce(x, index, src, *, dim, reduce, include_self):
    """``scatter_reduce`` of the slices of ``src`` along ``dim`` into the slices ``index`` (a vector)."""
    if x.ndim == 0:
        return scatter_reduce.fn(x, index.reshape(()), src.reshape(()), dim=0, reduce=reduce,
                                 include_self=include_self)
    shape = [1] * src.ndim
    shape[dim] = index.size
    spread = jnp.broadcast_to(index.reshape(shape), src.shape)
    return scatter_reduce.fn(x, spread, src, dim=dim, reduce=reduce, include_self=include_self)
