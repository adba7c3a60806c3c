"""View ops: outputs that alias their input's storage.

Dynamic indices (``select``'s index, ``slice``'s start) are positional arguments, so a loop
over ``x[i]`` compiles once, not once per ``i``.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax

from .registry import op



def compose_view(steps, base, dyns):
    """Apply view steps ``(op, cfg, output_index)`` with their dynamic arguments."""
    x = base
    for (step, cfg, k), dyn in zip(steps, dyns):
        x = step.bind(cfg)(x, *dyn)
        if k is not None:
            x = x[k]
    return x


def repeats(steps):
    """Whether a view made by ``steps`` may show one storage element more than once (expand,
    overlapping unfold windows)."""
    return any(step.name in ("expand", "unfold", "as_strided_gather") for step, _, _ in steps)


def scatter_view(steps, base, dyns, value):
    """``base`` with ``value`` written through the view chain ``steps`` (functional write-back).

    Where the view repeats an element, only the view elements that the write changed reach the
    storage (as PyTorch's kernels write only the elements they touch), the last one in the
    view's order winning.
    """
    for k, (step, cfg, _) in enumerate(steps):
        if step.name in INVERSES:
            # a view that changes the element type (real <-> complex, a dtype view) or conjugates:
            # write the value into what it views, and that through the steps before it
            inner = compose_view(steps[:k], base, dyns[:k])
            viewed = compose_view(steps[k:k + 1], inner, dyns[k:k + 1])
            rest = steps[k + 1:]
            new = scatter_view(rest, viewed, dyns[k + 1:], value) if rest else value.astype(viewed.dtype)
            new = _inverse(step, new, inner)
            return scatter_view(steps[:k], base, dyns[:k], new) if k else new.astype(base.dtype)
    # Each view element's flat position in the base, found by viewing an iota; exact for any
    # dtype, and XLA folds the index computation into a constant.
    positions = compose_view(steps, jnp.arange(base.size).reshape(base.shape), dyns)
    value = jnp.broadcast_to(value.astype(base.dtype), positions.shape)
    flat = base.reshape(-1)
    if not repeats(steps) or not positions.size:
        return flat.at[positions.reshape(-1)].set(value.reshape(-1)).reshape(base.shape)
    old = lax.stop_gradient(compose_view(steps, base, dyns))
    changed = _differs(lax.stop_gradient(value), old)
    return _write_changed(flat, positions.reshape(-1), changed.reshape(-1), value.reshape(-1)).reshape(base.shape)


# view op -> the function taking a value of the view back to a value of what it views
INVERSES = {
    "view_as_real": lambda v: lax.complex(v[..., 0], v[..., 1]),
    "view_as_complex": lambda v: jnp.stack([jnp.real(v), jnp.imag(v)], axis=-1),
    "conj": jnp.conj,
    "view_dtype": None,     # back to what it views (``_inverse``)
}


def _inverse(step, new, viewed_from):
    """``new``, a value of the view ``step``, as a value of ``viewed_from`` (what it views)."""
    if step.name == "view_dtype":
        return view_dtype.fn(new, source=new.dtype, dtype=viewed_from.dtype)
    return INVERSES[step.name](new)


def _differs(new, old):
    """Elementwise: ``new`` is not bit for bit ``old`` (a NaN left as it was is unchanged)."""
    if jnp.issubdtype(new.dtype, jnp.complexfloating):
        return _differs(new.real, old.real) | _differs(new.imag, old.imag)
    if jnp.issubdtype(new.dtype, jnp.floating):
        bits = jnp.dtype(f"uint{8 * new.dtype.itemsize}")
        return lax.bitcast_convert_type(new, bits) != lax.bitcast_convert_type(old, bits)
    return new != old


@jax.custom_jvp
def _write_changed(flat, positions, changed, values):
    """``flat`` with ``values[i]`` at ``positions[i]`` for the changed elements (the last wins)."""
    order = jnp.where(changed, jnp.arange(values.size), -1)
    winner = jnp.full(flat.shape, -1, order.dtype).at[positions].max(order)
    return jnp.where(winner >= 0, values[jnp.maximum(winner, 0)], flat)


@_write_changed.defjvp
def _write_changed_jvp(primals, tangents):
    # As PyTorch's CopySlices: each view element's gradient is its storage element's (a gather),
    # and the storage elements under the view take no gradient from the old value.
    flat, positions, changed, values = primals
    d_flat, _, _, d_values = tangents
    covered = jnp.zeros(flat.shape, bool).at[positions].set(True)
    d_out = jnp.where(covered, jnp.zeros_like(d_flat).at[positions].add(d_values), d_flat)
    return _write_changed(flat, positions, changed, values), d_out


@op("select", is_view=True, saves="none", scalar_slots=False)
def select(x, index, *, dim):
    return lax.dynamic_index_in_dim(x, index, dim, keepdims=False)


@op("slice", is_view=True, saves="none", scalar_slots=False)
def slice_(x, start, *, dim, length, step):
    if length == 0:
        return lax.slice_in_dim(x, 0, 0, 1, dim)
    span = lax.dynamic_slice_in_dim(x, start, (length - 1) * step + 1, dim)
    return lax.slice_in_dim(span, 0, None, step, dim) if step != 1 else span


@op("unsqueeze", is_view=True, saves="none")
def unsqueeze(x, *, dim):
    return jnp.expand_dims(x, dim)


@op("squeeze", is_view=True, saves="none")
def squeeze(x):
    return jnp.squeeze(x)


@op("squeeze_dim", grad_fn="SqueezeBackward1", is_view=True, saves="none")
def squeeze_dim(x, *, dims):
    return jnp.squeeze(x, dims)


@op("squeeze_dims", grad_fn="SqueezeBackward2", is_view=True, saves="none")
def squeeze_dims(x, *, dims):
    return jnp.squeeze(x, dims)


@op("transpose", is_view=True, saves="none")
def transpose(x, *, dim0, dim1):
    return x if x.ndim == 0 else jnp.swapaxes(x, dim0, dim1)


@op("t", grad_fn="TBackward0", is_view=True, saves="none")
def t(x):
    return x.T


t.layout_view = True


@op("permute", is_view=True, saves="none")
def permute(x, *, dims):
    return jnp.transpose(x, dims)


@op("expand", is_view=True, saves="none")
def expand(x, *, shape):
    return jnp.broadcast_to(x, shape)


@op("view", is_view=True, saves="none")
def view(x, *, shape):
    return jnp.reshape(x, shape)


# ``reshape`` of a non-contiguous tensor whose layout allows a view (PyTorch's _reshape_alias)
@op("reshape_alias", grad_fn="ReshapeAliasBackward0", is_view=True, saves="none")
def reshape_alias(x, *, shape):
    return jnp.reshape(x, shape)


@op("diagonal", is_view=True, saves="none")
def diagonal(x, *, offset, dim1, dim2):
    return jnp.diagonal(x, offset, dim1, dim2)


@op("view_dtype", is_view=True, saves="none", differentiable=False)
def view_dtype(x, *, source, dtype):
    """``x.view(dtype)``: its bytes (of dtype ``source``, x's) read as ``dtype``, the last dim scaled
    by the ratio of the sizes."""
    dtype = jnp.dtype(dtype)
    if x.dtype == dtype:
        return x
    size = dtype.itemsize
    data = _bytes(x)
    if x.ndim:
        data = data.reshape(x.shape[:-1] + (x.shape[-1] * x.dtype.itemsize // size, size))
    return _from_bytes(data, dtype)


def _bytes(x):
    """``x``'s bytes (uint8) along a new last axis."""
    if x.dtype == jnp.bool_:
        return x.astype(jnp.uint8)[..., None]
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        parts = _bytes(jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1))
        return parts.reshape(x.shape + (-1,))
    if x.dtype.itemsize == 1:
        return lax.bitcast_convert_type(x, jnp.uint8)[..., None]
    return lax.bitcast_convert_type(x, jnp.uint8)


def _from_bytes(data, dtype):
    """The values of ``dtype`` whose bytes run along ``data``'s last axis."""
    if dtype == jnp.bool_:
        return data[..., 0] != 0
    if jnp.issubdtype(dtype, jnp.complexfloating):
        half = jnp.finfo(dtype).dtype
        parts = _from_bytes(data.reshape(data.shape[:-1] + (2, half.itemsize)), half)
        return lax.complex(parts[..., 0], parts[..., 1])
    if dtype.itemsize == 1:
        return lax.bitcast_convert_type(data[..., 0], dtype)
    return lax.bitcast_convert_type(data, dtype)


@op("alias", is_view=True, saves="none")
def alias(x):
    return x


@op("unbind", is_view=True, saves="none")
def unbind(x, *, dim):
    return tuple(jnp.moveaxis(x, dim, 0))


@op("split", is_view=True, saves="none")
def split(x, *, sizes, dim):
    bounds = []
    acc = 0
    for s in sizes[:-1]:
        acc += s
        bounds.append(acc)
    return tuple(jnp.split(x, bounds, axis=dim))


@op("split_with_sizes", grad_fn="SplitWithSizesBackward0", is_view=True, saves="none")
def split_with_sizes(x, *, sizes, dim):
    return split.fn(x, sizes=sizes, dim=dim)


@op("unfold", grad_fn="UnfoldBackward0", is_view=True, saves="none")
def unfold(x, *, dim, size, step):
    """Windows of ``size`` entries every ``step`` along ``dim``, as a new last axis."""
    if x.ndim == 0:
        return jnp.broadcast_to(x, (size,))
    n = (x.shape[dim] - size) // step + 1
    starts = jnp.arange(n) * step
    idx = starts[:, None] + jnp.arange(size)[None, :]          # (n, size)
    windows = jnp.take(x, idx.reshape(-1), axis=dim)
    windows = windows.reshape(x.shape[:dim] + (n, size) + x.shape[dim + 1:])
    return jnp.moveaxis(windows, dim + 1, -1)


@op("as_strided", grad_fn="AsStridedBackward0", is_view=True, saves="none", scalar_slots=False)
def as_strided_view(base, dyns, *, steps):
    """A view rebuilt from its base after the base was written in place."""
    return compose_view(steps, base, dyns)


# saves="unchecked": as PyTorch's CopySlices, a backward without retain_graph frees it (a second
# one raises), but its inputs get no version check (the base is written right after).
@op("copy_slices", grad_fn="CopySlices", saves="unchecked", scalar_slots=False)
def copy_slices(base, value, dyns, *, steps):
    """The base after writing ``value`` into the view that ``steps`` selects."""
    return scatter_view(steps, base, dyns, value)


@op("copy", grad_fn="CopyBackwards", saves="none")
def alias_copy(x):
    return x


@op("copy_from", grad_fn="CopyBackwards", saves="none", scalar_slots=False)
def copy_from(x, src):
    """``x.copy_(src)``: src broadcast and cast to x (x's old value gets no gradient)."""
    return jnp.broadcast_to(src.astype(x.dtype), x.shape)


@op("fill_tensor", grad_fn="FillBackward3", saves="none", scalar_slots=False)
def fill_tensor(x, value):
    """``x.fill_(value)`` with a 0-d Tensor value."""
    return jnp.broadcast_to(value.astype(x.dtype), x.shape)


@op("as_strided_gather", grad_fn="AsStridedBackward0", is_view=True, saves="none", scalar_slots=False)
def as_strided_gather(x, index, *, size, stride, offset):
    """PyTorch's ``as_strided``: the elements of ``x`` (row-major) at ``index``, of shape ``size``.

    ``size``, ``stride`` and ``offset`` are the result's layout in the storage (read by
    ``_storage/layout.py``); ``index`` is where each of its elements sits among x's.
    """
    return x.reshape(-1)[index]


@op("as_strided_scatter", grad_fn="AsStridedScatterBackward0", saves="none", scalar_slots=False)
def as_strided_scatter(x, src, index):
    """``x`` with ``src`` written at the elements ``index`` (row-major positions in x)."""
    return x.reshape(-1).at[index.reshape(-1)].set(src.astype(x.dtype).reshape(-1)).reshape(x.shape)


def _copy_twin(view, grad_fn=None, name=None):
    """The op computing ``view`` as a new tensor (PyTorch's ``*_copy`` functions):
    the same function, not a view, its node named ``<view's node>_copy``."""
    @functools.wraps(view.fn)
    def copied(*args, **cfg):
        return view.fn(*args, **cfg)
    return op(name or view.name + "_copy", grad_fn=grad_fn or view.grad_fn + "_copy", saves="none",
              scalar_slots=view.scalar_slots)(copied)


COPIES = {view: _copy_twin(view) for view in (
    select, slice_, unsqueeze, squeeze, squeeze_dim, squeeze_dims, transpose, t, permute, expand, view,
    reshape_alias, diagonal, alias, unbind, split, split_with_sizes, unfold, as_strided_gather)}
NARROW_COPY = _copy_twin(slice_, grad_fn="NarrowCopyBackward0", name="narrow_copy")
# PyTorch's unsafe splits share the input's memory without being views; these are new tensors
UNSAFE_SPLIT = _copy_twin(split, grad_fn="UnsafeSplitBackward0", name="unsafe_split")
UNSAFE_SPLIT_WITH_SIZES = _copy_twin(split_with_sizes, grad_fn="UnsafeSplitWithSizesBackward0",
                                     name="unsafe_split_with_sizes")


@op("fill_value", grad_fn="FillBackward0", saves="none", scalar_slots=False)
def fill_value(x, value):
    """``torch.fill(x, value)`` with a number: a new tensor of x's shape and dtype."""
    return jnp.full(x.shape, value, x.dtype)


FILL_TENSOR_OUT = _copy_twin(fill_tensor, grad_fn="FillBackward1", name="fill_tensor_value")

# the in-place view ops (``t_``, ``squeeze_``, ...): the view's value as the tensor's new value
INPLACE_VIEWS = {view: _copy_twin(view, grad_fn=grad_fn, name=view.name + "_inplace") for view, grad_fn in (
    (squeeze, "SqueezeBackward3"), (squeeze_dim, "SqueezeBackward4"), (squeeze_dims, "SqueezeBackward5"),
    (unsqueeze, "UnsqueezeBackward1"), (transpose, "TransposeBackward1"), (t, "TBackward1"),
    (as_strided_gather, "AsStridedBackward1"))}
