"""Views and reshaping (view, reshape, squeeze, transpose, permute, expand, diagonal, select,
narrow, unfold, ...), flips, repeat/tile, roll/rot90, tril/triu and the diag family.
"""

import builtins
import math as _math
import warnings


from .. import _dtype
from .._ops import shape as S
from .._ops import views as V
from .._storage.layout import conj_bits
from .._tensor import Tensor, apply, _wrap_dim
from . import strides as _strides
from .conversion import clone
from .inplace import inplace_checked
from .surface import declare


# ---------------------------------------------------------------- views

def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _infer_shape(shape, numel):
    """Resolve one ``-1`` and check the element count, with PyTorch's messages."""
    if builtins.sum(1 for s in shape if s == -1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


@declare("view", method=True, numpy_names=False)
def view(input, *shape):
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _view_dtype(input, shape[0])
    shape = _infer_shape(_shape_arg(shape), input.numel())
    if not _strides.can_view(input, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.")
    return apply(V.view, (input,), (shape,))


def _view_dtype(input, dtype):
    """``input.view(dtype)``: its memory read as ``dtype``, with PyTorch's checks (a view that never
    requires grad)."""
    conj, neg = conj_bits(input._view)
    if conj:
        raise RuntimeError("torch.Tensor.view is not supported for conjugate view tensors when converting to a "
                           "different dtype.")
    if neg:
        raise RuntimeError("torch.Tensor.view is not supported for tensors with negative bit set when converting "
                           "to a different dtype.")
    old, new = input.dtype.itemsize, dtype.itemsize
    what = f"to view {input.dtype.c_name} as {dtype.c_name} (different element sizes)"
    if old != new:
        if input.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        strides, ratio = input.stride(), builtins.max(old, new) // builtins.min(old, new)
        if old < new and input.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {input.shape[-1]}")
        if old < new and input.storage_offset() % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got "
                               f"{input.storage_offset()}")
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        for d, st in enumerate(strides[:-1]):
            if old < new and st % ratio:
                raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} {what}, but got {st}")
    # PyTorch's result shares input's memory and version counter but is no view for autograd
    return apply(V.view_dtype, (input.detach(),), (input.dtype.np, dtype.np))


@declare("reshape", method=True)
def reshape(input, *shape):
    """As PyTorch: a ``view`` of a contiguous tensor, a ``_reshape_alias`` view of another one
    whose layout allows it, else a copy (``_unsafe_view`` of a clone)."""
    shape = _infer_shape(_shape_arg(shape), input.numel())
    if input._view is None or _strides.is_contiguous(input):
        return apply(V.view, (input,), (shape,))
    if not _strides.can_view(input, shape):
        return apply(S.reshape_copy, (clone(input),), (shape,))
    return apply(V.reshape_alias, (input,), (shape,))


@declare(method=("view_as",))
def view_as(input, other):
    return view(input, tuple(other.shape))


@declare(method=("reshape_as",))
def reshape_as(input, other):
    return reshape(input, tuple(other.shape))


@declare("flatten", method=True)
def flatten(input, start_dim=0, end_dim=-1):
    nd = input.ndim
    if nd == 0:
        return reshape(input, 1)
    s = _wrap_dim(start_dim, nd)
    e = _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = tuple(input.shape)
    return reshape(input, shape[:s] + (_math.prod(shape[s:e + 1]),) + shape[e + 1:])


@declare("unflatten", method=True)
def unflatten(input, dim, sizes):
    dim = _wrap_dim(dim, input.ndim)
    shape = tuple(input.shape)
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        inferred = _infer_shape(sizes, shape[dim])
    except RuntimeError as e:
        # PyTorch's handle_unflatten_exception
        if "is invalid for input of size" in str(e):
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                               f"({shape[dim]}) in the input tensor") from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    return view(input, shape[:dim] + inferred + shape[dim + 1:])


@declare("squeeze", method=True)
def squeeze(input, dim=None):
    if dim is None:
        return apply(V.squeeze, (input,))
    if isinstance(dim, (tuple, list)):
        dims = tuple(_wrap_dim(d, input.ndim) for d in dim)
        for i, d in enumerate(dims):
            if d in dims[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        dims = tuple(d for d in dims if input.ndim and input.shape[d] == 1)
        return apply(V.squeeze_dims, (input,), (dims,))
    d = _wrap_dim(dim, input.ndim)
    dims = (d,) if input.ndim and input.shape[d] == 1 else ()
    return apply(V.squeeze_dim, (input,), (dims,))


@declare("unsqueeze", method=True)
def unsqueeze(input, dim):
    return apply(V.unsqueeze, (input,), (_wrap_dim(dim, input.ndim + 1),))


@declare("swapaxes", "swapdims", "transpose", method=True)
def transpose(input, dim0, dim1):
    nd = input.ndim
    return apply(V.transpose, (input,), (_wrap_dim(dim0, nd), _wrap_dim(dim1, nd)))


swapaxes = swapdims = transpose


@declare("t", method=True)
def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return apply(V.t, (input,))


@declare("permute", method=True)
def permute(input, *dims):
    dims = _shape_arg(dims)
    nd = input.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
            f"desired ordering of dimensions i.e. input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    dims = tuple(_wrap_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return apply(V.permute, (input,), (dims,))


@declare("moveaxis", "movedim", method=True)
def movedim(input, source, destination):
    nd = input.ndim
    given_src = (source,) if isinstance(source, int) else tuple(source)
    given_dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(given_src) != len(given_dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(given_src)} dims) should "
                           f"contain the same number of dims as destination ({list(given_dst)} dims)")
    src = [_wrap_dim(s, nd) for s in given_src]
    dst = [_wrap_dim(d, nd) for d in given_dst]
    for which, wrapped, given in (("source", src, given_src), ("destination", dst, given_dst)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{which}` ({list(given)})")
    if nd == 0:
        return apply(V.alias, (input,))     # PyTorch's alias of a 0-d tensor
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(k for k in range(nd) if k not in src)
    return permute(input, *[next(rest) if o is None else o for o in order])


moveaxis = movedim


_WARNED_ONCE = set()


def _warn_once(text, stacklevel):
    """A warning PyTorch gives once a process (``TORCH_WARN_ONCE``)."""
    if text not in _WARNED_ONCE:
        _WARNED_ONCE.add(text)
        warnings.warn(text, UserWarning, stacklevel=stacklevel + 1)


def deprecated_0d(name, advice, line):
    """PyTorch's warning for ``T``/``mT``/``H``/``mH`` of a 0-d tensor (read by the caller's caller)."""
    _warn_once(f"Tensor.{name} is deprecated on 0-D tensors. {advice} (Triggered internally at "
               f"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:{line}.)", 3)


def matrix_T(input):
    """``Tensor.T``: a matrix transposed, another tensor's dims reversed (deprecated, as PyTorch warns)."""
    if input.ndim == 2:
        return permute(input, 1, 0)
    if input.ndim == 0:
        deprecated_0d("T", "This function is the identity in these cases.", 4321)
        return permute(input)
    _warn_once(
        "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will "
        "throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
        "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. (Triggered "
        "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)", 2)
    return permute(input, *reversed(range(input.ndim)))


def matrix_mT(input):
    """``Tensor.mT``: the last two dims swapped (a 0-d tensor itself, as PyTorch warns)."""
    if input.ndim == 0:
        deprecated_0d("mT", "This function is the identity in these cases.", 4373)
        return input
    if input.ndim == 1:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(input, -2, -1)


@declare(method=("expand",))
def expand(input, *sizes):
    sizes = _shape_arg(sizes)
    shape = tuple(input.shape)
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.{input.dtype.legacy}{{{list(shape)}}}, size={list(sizes)}): the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    out = []
    for i, s in enumerate(sizes):
        cur = shape[i - lead] if i >= lead else 1
        if s == -1:
            if i < lead:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}")
            s = cur
        elif cur != 1 and s != cur:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}")
        out.append(s)
    return apply(V.expand, (input,), (tuple(out),))


@declare(method=("expand_as",))
def expand_as(input, other):
    return expand(input, tuple(other.shape))


@declare("broadcast_to", method=True)
def broadcast_to(input, size):
    return expand(input, tuple(size))


@declare("diagonal", method=True)
def diagonal(input, offset=0, dim1=0, dim2=1):
    nd = input.ndim
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply(V.diagonal, (input,), (offset, d1, d2))


@declare("select", method=True)
def select(input, dim, index):
    dim = _wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    return apply(V.select, (input, index % size), (dim,))


def _slice(input, dim, start, stop, step):
    size = input.shape[dim]
    if step <= 0:
        raise ValueError("step must be greater than zero")
    start, stop, step = slice(start, stop, step).indices(size)
    length = builtins.max(0, (stop - start + step - 1) // step)
    return apply(V.slice_, (input, start), (dim, length, step))


@declare("narrow", method=True)
def narrow(input, dim, start, length):
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = _wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if isinstance(start, Tensor):
        if start.ndim != 0 or start.dtype.kind != _dtype.INT:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(input, dim, start, start + length, 1)


@declare("ravel", method=True)
def ravel(input):
    return reshape(input, -1)


# ---------------------------------------------------------------- flips and repeats

@declare("flip", method=True)
def flip(input, dims):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    wrapped = []
    for d in dims:
        d = _wrap_dim(d, input.ndim)
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.append(d)
    return apply(S.flip, (input,), (tuple(wrapped),))


@declare(method=("repeat",))
def repeat(input, *sizes):
    sizes = _shape_arg(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    return apply(S.repeat, (input,), (sizes,))


# ---------------------------------------------------------------- Tensor.unfold

@declare(method=("unfold",))
def unfold(self, dimension, size, step):
    """A view of every ``size``-long window along ``dimension``, ``step`` apart, as a new last axis."""
    d = _wrap_dim(dimension, self.ndim)
    length = self.shape[d] if self.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return apply(V.unfold, (self,), (d, int(size), int(step)))


# ---------------------------------------------------------------- repeats and rearrangements

@declare("tile", method=True)
def tile(input, dims):
    """``repeat`` with ``dims`` padded by leading 1s to the input's rank."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


@declare("fliplr", method=True)
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@declare("flipud", method=True)
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


@declare("roll", method=True)
def roll(input, shifts, dims=None):
    """Shift entries cyclically by ``shifts`` along ``dims`` (the flattened tensor if None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return apply(S.roll, (input,), (shifts[0], None))
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    dims = tuple(_wrap_dim(d, input.ndim) for d in dims)
    return apply(S.roll, (input,), (shifts, dims))


@declare("rot90", method=True)
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first toward the second)."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (_wrap_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return apply(S.rot90, (input,), (int(k) % 4, (d0, d1)))


# ---------------------------------------------------------------- triangles and diagonals

def _triangle(op, name):
    def triangle(input, diagonal=0):
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return apply(op, (input,), (int(diagonal),))
    triangle.__name__ = name
    return triangle


tril = _triangle(S.tril, "tril")
declare("tril", method=True, inplace=True, inplace_of=inplace_checked, out=True)(tril)


tril.__doc__ = "The lower triangle (on and below ``diagonal``) of the last two dims; zeros elsewhere."


triu = _triangle(S.triu, "triu")
declare("triu", method=True, inplace=True, inplace_of=inplace_checked, out=True)(triu)


triu.__doc__ = "The upper triangle (on and above ``diagonal``) of the last two dims; zeros elsewhere."


@declare("diag_embed", method=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices whose diagonal ``offset`` (in dims ``dim1``, ``dim2`` of the output) holds the
    last dim of ``input``."""
    nd = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.ndim == 0:
        input = reshape(input, 1)
    return apply(S.diag_embed, (input,), (int(offset), d1, d2))


@declare("diag", method=True, out=True)
def diag(input, diagonal=0):
    """A 1-D input becomes a matrix with it on diagonal ``diagonal``; a matrix gives that diagonal."""
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return apply(S.diag, (input,), (int(diagonal),))


@declare("diagflat", method=True)
def diagflat(input, offset=0):
    return diag_embed(reshape(input, -1), offset)
