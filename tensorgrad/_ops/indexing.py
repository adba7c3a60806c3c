"""Indexing ops: gather/scatter, index_* along a dim, masked select/scatter, take, and the
copying rearrangements (roll, rot90, tril/triu, diag_embed, block_diag).

Index arrays are positional but never differentiated (``no_slot``). Ops whose output size
depends on data (masked_select) receive the positions the host computed, so they run inside
``jit`` only with those positions given.
"""

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

@op("gather", no_slot=(1,))
def gather(x, index, *, dim):
    if x.ndim == 0:
        return x.reshape(index.shape)
    return jnp.take_along_axis(_head(x, index.shape, dim), index, axis=dim)


@op("scatter", no_slot=(1,))
def scatter(x, index, src, *, dim, reduce):
    if x.ndim == 0:
        x, index, src = x.reshape(1), index.reshape(1), src.reshape(1)
        return scatter.fn(x, index, src, dim=0, reduce=reduce).reshape(())
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


@op("scatter_value", grad_fn="ScatterBackward1", no_slot=(1,), scalar_slots=False)
def scatter_value(x, index, value, *, dim, reduce):
    src = jnp.broadcast_to(jnp.asarray(value, x.dtype), index.shape)
    return scatter.fn(x, index, src, dim=dim, reduce=reduce)


@op("scatter_add", grad_fn="ScatterAddBackward0", no_slot=(1,))
def scatter_add(x, index, src, *, dim):
    return scatter.fn(x, index, src, dim=dim, reduce="add")


@op("scatter_reduce", grad_fn="ScatterReduceBackward0", no_slot=(1,))
def scatter_reduce(x, index, src, *, dim, reduce, include_self):
    if x.ndim == 0:
        out = scatter_reduce.fn(x.reshape(1), index.reshape(1), src.reshape(1), dim=0, reduce=reduce,
                                include_self=include_self)
        return out.reshape(())
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
    result (self included), as PyTorch."""
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
    self_in = (xs == result) & (~hit if not include_self else True)
    src_in = ss == result[coords]
    count = self_in.astype(xs.dtype).at[coords].add(src_in.astype(xs.dtype))
    count = jnp.where(count == 0, jnp.ones_like(count), count)
    spread = jnp.zeros_like(x).at[coords].add(src * (src_in / count[coords]))
    return _with_grads(result, x * (self_in / count), spread)


# ---------------------------------------------------------------- along one dim

def _along(dim, index):
    return (slice(None),) * dim + (index,)


@op("index_select", grad_fn="IndexSelectBackward0", no_slot=(1,))
def index_select(x, index, *, dim):
    if x.ndim == 0:
        return x[index.reshape(-1)].reshape(index.shape)
    return jnp.take(x, index.reshape(-1), axis=dim)


@op("index_add", grad_fn="IndexAddBackward0", no_slot=(1,))
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


@op("index_copy", grad_fn="IndexCopyBackward0", no_slot=(1,))
def index_copy(x, index, source, *, dim):
    if x.ndim == 0:
        return source.astype(x.dtype).reshape(())
    return x.at[_along(dim, index.reshape(-1))].set(source.astype(x.dtype).reshape(_index_shape(x, index, dim)))


@op("index_fill", grad_fn="IndexFillBackward0", no_slot=(1,), scalar_slots=False)
def index_fill(x, index, value, *, dim):
    if x.ndim == 0:
        return jnp.asarray(value, x.dtype)
    index = index.reshape(-1)
    index = jnp.where(index < 0, index + x.shape[dim], index)  # negative indices count from the end
    return x.at[_along(dim, index)].set(jnp.asarray(value, x.dtype))


@op("index_fill_tensor", grad_fn="IndexFillBackward1", no_slot=(1,))
def index_fill_tensor(x, index, value, *, dim):
    return index_fill.fn(x, index, value.astype(x.dtype), dim=dim)


# ---------------------------------------------------------------- masks and flat indices

@op("masked_select", grad_fn="MaskedSelectBackward0", no_slot=(1,))
def masked_select(x, positions, *, shape):
    return jnp.broadcast_to(x, shape).reshape(-1)[positions]


@op("masked_scatter", grad_fn="MaskedScatterBackward0", no_slot=(1,))
def masked_scatter(x, positions, source):
    flat = x.reshape(-1)
    values = source.reshape(-1)[:positions.shape[0]].astype(x.dtype)
    return flat.at[positions].set(values).reshape(x.shape)


@op("take", no_slot=(1,))
def take(x, index):
    flat = x.reshape(-1)
    return flat[jnp.where(index < 0, index + flat.shape[0], index)]


# ---------------------------------------------------------------- rearrangements

@op("roll", saves="none")
def roll(x, *, shifts, dims):
    if dims is None:
        return jnp.roll(x.reshape(-1), shifts).reshape(x.shape)
    return jnp.roll(x, shifts, dims)


@op("rot90", grad_fn="Rot90Backward0", saves="none")
def rot90(x, *, k, dims):
    return jnp.rot90(x, k, dims)


@op("tril", saves="none")
def tril(x, *, diagonal):
    return jnp.tril(x, diagonal)


@op("triu", saves="none")
def triu(x, *, diagonal):
    return jnp.triu(x, diagonal)


@op("diag_embed", grad_fn="DiagEmbedBackward0", saves="none")
def diag_embed(x, *, offset, dim1, dim2):
    """``x``'s last dim written on diagonal ``offset`` of a new matrix at dims (dim1, dim2)."""
    m = x.shape[-1]
    n = m + abs(offset)
    idx = jnp.arange(m)
    rows = idx + max(-offset, 0)
    cols = idx + max(offset, 0)
    out = jnp.zeros(x.shape[:-1] + (n, n), x.dtype).at[..., rows, cols].set(x)
    return jnp.moveaxis(out, (-2, -1), (dim1, dim2))


@op("diag", grad_fn="DiagonalBackward0_copy", saves="none")
def diag(x, *, offset):
    return jnp.diagonal(x, offset)


@op("block_diag", grad_fn="BlockDiagBackward0", saves="none")
def block_diag(*xs, dtype):
    xs = [x.reshape(1, -1) if x.ndim < 2 else x for x in xs]
    rows = sum(x.shape[0] for x in xs)
    cols = sum(x.shape[1] for x in xs)
    out = jnp.zeros((rows, cols), dtype)
    r = c = 0
    for x in xs:
        out = lax.dynamic_update_slice(out, x.astype(dtype), (r, c))
        r += x.shape[0]
        c += x.shape[1]
    return out


@op("cdist")
def cdist(x1, x2, *, p):
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    return _safe_pnorm(diff, p)


def _safe_pnorm(diff, p):
    # the gradient at a zero distance is 0, as in PyTorch
    ad = jnp.abs(diff)
    if p == 0:
        return jnp.sum((diff != 0).astype(diff.dtype), axis=-1)
    if p == float("inf"):
        return jnp.max(ad, axis=-1, initial=0.0)
    if p == 1:
        return jnp.sum(ad, axis=-1)
    total = jnp.sum(ad ** p, axis=-1)
    zero = total == 0
    return jnp.where(zero, 0.0, jnp.where(zero, 1.0, total) ** (1.0 / p)).astype(diff.dtype)
