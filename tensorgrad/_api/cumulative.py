"""Torch-level scans along a dim: cumsum, cumprod, logcumsumexp, cummax/cummin, diff,
cumulative_trapezoid and the numerical ``gradient``.

Where PyTorch composes an op in C++ (cumulative_trapezoid, gradient) the same composition is
recorded here, so the graph has PyTorch's nodes.
"""

from .. import _dtype
from .._ops import cumulative as CU
from .._tensor import Tensor, apply, _wrap_dim
from . import elementwise as M
from . import shape as S
from .comparison import logical_xor
from .creation import empty_like
from .inplace import inplace_of
from .joining import cat
from .operands import _named, _need_tensor
from .reduction import (_dim_of, _integrand, _is_real_number, _no_bool, _pair_sums, _sample_points, _sdiv, _slice,
    _smul, _spacing, _sum_dtype)
from .surface import declare


# ---------------------------------------------------------------- cumulative

@declare("cumsum", method=True, inplace=True, out=True)
def cumsum(input, dim, *, dtype=None):
    d = _sum_dtype(input.dtype, dtype)
    return apply(CU.cumsum, (input,), (_wrap_dim(dim, input.ndim), d.np))


@declare("cumprod", method=True, out=True)
def cumprod(input, dim, *, dtype=None):
    """The running product along ``dim`` (integers and bools accumulate in int64)."""
    d = _sum_dtype(input.dtype, dtype)
    return apply(CU.cumprod, (input,), (_dim_of(input, dim), d.np))


@declare(method=("cumprod_",))
def _cumprod_(self, dim, *, dtype=None):
    # the in-place twin keeps self's dtype
    if self.dtype is _dtype.bool_ and dtype is None:
        raise NotImplementedError("\"cumprod_out_cpu\" not implemented for 'Bool'")
    return inplace_of(cumprod)(self, dim, dtype=self.dtype if dtype is None else dtype)


@declare("logcumsumexp", method=True, out=True)
def logcumsumexp(input, dim):
    if input.dtype.kind < _dtype.FLOAT:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{input.dtype.c_name}'")
    return apply(CU.logcumsumexp, (input,), (_dim_of(input, dim),))


def _cum_extreme(op, name):
    def cum(input, dim):
        return _named(name)(*apply(op, (input,), (_dim_of(input, dim),)))
    cum.__name__ = name
    cum.__doc__ = f"The running {name[3:]} along ``dim`` and the index of its latest occurrence."
    return cum


cummax = _cum_extreme(CU.cummax, "cummax")
declare("cummax", method=True, out=True)(cummax)


cummin = _cum_extreme(CU.cummin, "cummin")
declare("cummin", method=True, out=True)(cummin)


# ---------------------------------------------------------------- differences

@declare("diff", method=True, out=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first)."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is None:
            continue
        if not isinstance(extra, Tensor):
            raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(extra).__name__}")
        if extra.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:
        # PyTorch returns a copy of the input (CopyBackwards, version 1); it checks dim only when joining
        if prepend is not None or append is not None:
            _dim_of(input, dim)
        out = empty_like(input)
        out.copy_(input)
        return out
    d = _dim_of(input, dim)
    parts = [x for x in (prepend, input, append) if x is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi = S.narrow(x, d, 1, length - 1)
        lo = S.narrow(x, d, 0, length - 1)
        x = logical_xor(hi, lo) if x.dtype is _dtype.bool_ else hi - lo
    return x


# ---------------------------------------------------------------- cumulative integration

@declare("cumulative_trapezoid")
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral of ``y`` along ``dim`` (one entry fewer than ``y``)."""
    _integrand("cumulative_trapezoid", y, x, dx)
    d = _wrap_dim(dim, y.ndim)
    _no_bool("cumulative_trapezoid", y, x)
    if x is not None:
        step = _sample_points("cumulative_trapezoid", y, x, d)
        return _sdiv(cumsum(M.mul(_pair_sums(y, d), step), d), 2.0)
    dx = _spacing("cumulative_trapezoid", dx)
    return cumsum(_smul(_pair_sums(y, d), dx / 2.0), d)


# ---------------------------------------------------------------- numerical gradient

def _gradient_dims(input, spacing_size, dim, edge_order):
    """PyTorch's argument checks; returns the wrapped dims."""
    if input.dtype is _dtype.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dims = list(range(input.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if spacing_size is not None:
        if dim is None and spacing_size != input.ndim:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                               f"equal to 'self.dim() = {input.ndim}', since dim argument was not given, but got a "
                               f"list of length {spacing_size}")
        if dim is not None and spacing_size != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{spacing_size} and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    wrapped = [_wrap_dim(d, input.ndim) for d in dims]
    if len(set(wrapped)) != len(wrapped):
        seen = next(d for d in wrapped if wrapped.count(d) > 1)
        raise RuntimeError(f"dim {seen} appears multiple times in the list of dims")
    for d in wrapped:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    return wrapped


def _gradient_uniform(x, d, h, edge_order):
    center = _sdiv(M.sub(_slice(x, d, 2), _slice(x, d, 0, -2)), h)
    if edge_order == 1:
        first = _sdiv(M.sub(_slice(x, d, 1, 2), _slice(x, d, 0, 1)), h)
        last = _sdiv(M.sub(_slice(x, d, -1), _slice(x, d, -2, -1)), h)
    else:
        first = _sdiv(M.sub(M.add(_smul(_slice(x, d, 0, 1), -1.5), _smul(_slice(x, d, 1, 2), 2)),
                            _smul(_slice(x, d, 2, 3), 0.5)), h)
        last = _sdiv(M.add(M.sub(_smul(_slice(x, d, -3, -2), 0.5), _smul(_slice(x, d, -2, -1), 2)),
                           _smul(_slice(x, d, -1), 1.5)), h)
    return cat([first, _sdiv(center, 2), last], d)


def _gradient_coordinates(x, d, coords, edge_order):
    if coords.ndim != 1:
        raise RuntimeError(f"torch.gradient expected each element of spacing to have one dimension, but got an "
                           f"element with {coords.ndim} dimensions!")
    shape = [1] * x.ndim
    shape[d] = -1
    h = diff(coords, 1, 0)
    h1, h2 = _slice(h, 0, 0, -1), _slice(h, 0, 1)
    a = S.reshape(M.div(M.neg(h2), M.mul(h1, M.add(h1, h2))), shape)
    b = S.reshape(M.div(M.sub(h2, h1), M.mul(h1, h2)), shape)
    c = S.reshape(M.div(h1, M.mul(h2, M.add(h1, h2))), shape)
    center = M.add(M.add(M.mul(a, _slice(x, d, 0, -2)), M.mul(b, _slice(x, d, 1, -1))), M.mul(c, _slice(x, d, 2)))
    if edge_order == 1:
        first = M.div(M.sub(_slice(x, d, 1, 2), _slice(x, d, 0, 1)), S.select(h, 0, 0))
        last = M.div(M.sub(_slice(x, d, -1), _slice(x, d, -2, -1)), S.select(h, 0, -1))
    else:
        h0, h1_ = S.select(h, 0, 0), S.select(h, 0, 1)
        a = M.div(M.neg(M.add(_smul(h0, 2.0), h1_)), M.mul(h0, M.add(h0, h1_)))
        b = M.div(M.add(h0, h1_), M.mul(h0, h1_))
        c = M.div(M.neg(h0), M.mul(h1_, M.add(h0, h1_)))
        first = M.add(M.add(M.mul(a, _slice(x, d, 0, 1)), M.mul(b, _slice(x, d, 1, 2))), M.mul(c, _slice(x, d, 2, 3)))
        hl, hl2 = S.select(h, 0, -1), S.select(h, 0, -2)
        a = M.div(hl, M.mul(hl2, M.add(hl, hl2)))
        b = M.div(M.neg(M.add(hl, hl2)), M.mul(hl, hl2))
        c = M.div(M.add(_smul(hl, 2), hl2), M.mul(hl, M.add(hl, hl2)))
        last = M.add(M.add(M.mul(a, _slice(x, d, -3, -2)), M.mul(b, _slice(x, d, -2, -1))), M.mul(c, _slice(x, d, -1)))
    return cat([first, center, last], d)


@declare("gradient")
def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """Second-order central differences of ``input`` along each of ``dim`` (all by default),
    one-sided (first or second order) at the ends; ``spacing`` is a number, one number per dim,
    or one 1-D coordinate tensor per dim. Returns a tuple, one tensor per dim."""
    _need_tensor("gradient", "input", input, 1)
    if isinstance(spacing, Tensor):
        raise TypeError("gradient(): argument 'spacing' must be a number or a sequence of numbers or tensors, "
                        "not Tensor")
    if spacing is None or _is_real_number(spacing):
        listed = dim is not None and not isinstance(dim, int)
        dims = _gradient_dims(input, len(dim) if listed else None, dim, edge_order)
        h = 1.0 if spacing is None else spacing
        return tuple(_gradient_uniform(input, d, h, edge_order) for d in dims)
    spacing = list(spacing)
    dims = _gradient_dims(input, len(spacing), dim, edge_order)
    if all(isinstance(s, Tensor) for s in spacing):
        return tuple(_gradient_coordinates(input, d, s, edge_order) for d, s in zip(dims, spacing))
    if all(_is_real_number(s) for s in spacing):
        return tuple(_gradient_uniform(input, d, s, edge_order) for d, s in zip(dims, spacing))
    raise TypeError("gradient(): argument 'spacing' must be a number, a sequence of numbers or a sequence of "
                    "tensors")
