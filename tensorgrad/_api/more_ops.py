"""More torch-level functions: ``cov``/``corrcoef``, ``trapezoid``/``trapz``/``cumulative_trapezoid``,
``vander``, ``gradient``, ``put``, ``frexp``, ``histogram``, ``isin``, ``Tensor.unfold``, the
``Tensor.new_*`` constructors and the activations PyTorch also exposes at the top level.

Where PyTorch composes an op in C++ (cov, trapezoid, vander, gradient) the same composition is
recorded here, so the graph has PyTorch's nodes; the others are one op from ``_ops/more.py``.
"""

import builtins
import math as _math
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._ops import elementwise as E
from .._ops import indexing as IX
from .._ops import nn_activation as NA
from .._ops import sorting as SO
from .._ops import views as V
from .._tensor import Tensor, apply, check_inplace, commit_inplace, _wrap, _wrap_dim
from . import creation as C
from . import math as M
from . import shape as S
from .indexing import _host
from .math import _float_of, _named, result_type
from .reductions import cumprod as _cumprod, diff as _diff
from .surface import declare


def _need_tensor(fname, argname, value, position):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _is_real_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _smul(x, number):
    """``x * number`` through the Scalar overload (``MulBackward1``)."""
    return apply(E.mul_scalar_promoting, (x,), (number, result_type(x, number).np))


def _sdiv(x, number):
    """``x / number`` through the Scalar overload (``DivBackward1``), a true division."""
    return apply(E.div_scalar_promoting, (x,), (number, _float_of(result_type(x, number)).np))


def _slice(x, dim, start, stop=None):
    return S._slice(x, dim, start, stop, 1)


# ---------------------------------------------------------------- covariance

@declare("cov", method=True)
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the rows (variables) of ``input`` over its columns (observations),
    with frequency and/or observation weights; composed as PyTorch does."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype is _dtype.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if not isinstance(correction, (int, np.integer)) or isinstance(correction, bool):
        raise TypeError(f"cov(): argument 'correction' must be int, not {type(correction).__name__}")
    x = S.view(input, (1, -1)) if input.ndim < 2 else input
    n = x.shape[1]
    w = None
    for name, weights, want in (("fweights", fweights, "integral"), ("aweights", aweights, "floating point")):
        if weights is None:
            continue
        _need_tensor("cov", name, weights, 3 if name == "fweights" else 4)
        if weights.ndim > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                               f"{weights.ndim} dimensions")
        kind_ok = (weights.dtype.kind == _dtype.INT and weights.dtype is not _dtype.bool_ if want == "integral"
                   else weights.dtype.kind == _dtype.FLOAT)
        if not kind_ok:
            raise RuntimeError(f"cov(): expected {name} to have {want} dtype but got {name} with "
                               f"{weights.dtype.c_name} dtype")
        if weights.numel() != n:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                               f"input but got {weights.numel()} != {n}")
        values = _host(weights)
        if n and values is not None and values.min() < 0:
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = weights if w is None else M.mul(w, weights)
    w_sum = M.sum(w) if w is not None else _wrap(jnp.asarray(n, jnp.int64))
    if w is not None:
        total = _host(w_sum)
        if total is not None and total == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = M.div(M.sum(M.mul(x, w) if w is not None else x, 1), w_sum)
    if w is not None and correction != 0 and aweights is not None:
        norm = M.sub(w_sum, M.div(_smul(M.sum(M.mul(w, aweights)), correction), w_sum))
    else:
        norm = M.sub(w_sum, correction)
    value = _host(norm)
    if value is not None and value <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = M.mul(norm, 0)
    centered = M.sub(x, S.unsqueeze(avg, 1))
    c = M.mm(centered, S.t(M.mul(centered, w) if w is not None else centered))
    return S.squeeze(M.div(c, norm))


@declare("corrcoef", method=True)
def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input`` (``cov`` normalised, clipped to [-1, 1])."""
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return M.div(c, c)
    stddev = M.sqrt(S.diagonal(c))
    c = M.div(c, S.view(stddev, (-1, 1)))
    c = M.div(c, S.view(stddev, (1, -1)))
    return M.clamp(c, -1, 1)


# ---------------------------------------------------------------- integration

def _sample_points(name, y, x, dim):
    """``x`` viewed so its differences broadcast against ``y``'s along ``dim`` (PyTorch's rules)."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.ndim
        shape[dim] = x.shape[0]
        viewed = S.view(x, tuple(shape))
    elif x.ndim < y.ndim:
        viewed = S.view(x, (1,) * (y.ndim - x.ndim) + tuple(x.shape))
    else:
        viewed = x
    d = _wrap_dim(dim, viewed.ndim)
    return M.sub(_slice(viewed, d, 1), _slice(viewed, d, 0, -1))


def _check_dx(name, dx):
    if not _is_real_number(dx):
        if isinstance(dx, (bool, np.bool_, complex)):
            raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
        raise TypeError(f"{name}(): argument 'dx' must be Number, not {type(dx).__name__}")


def _integrand(name, y, x, dx):
    _need_tensor(name, "y", y, 1)
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: give either x or dx, not both")
    if x is not None:
        _need_tensor(name, "x", x, 2)


def _no_bool(name, y, x):
    if x is not None and (y.dtype is _dtype.bool_ or x.dtype is _dtype.bool_):
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not supported")
    if x is None and y.dtype is _dtype.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")


def _pair_sums(y, d):
    """``y[i] + y[i + 1]`` along ``d``."""
    return M.add(_slice(y, d, 0, -1), _slice(y, d, 1))


def _spacing(name, dx):
    dx = 1 if dx is None else dx
    _check_dx(name, dx)
    return dx


@declare("trapezoid")
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoidal rule, at points ``x`` or spacing ``dx``."""
    _integrand("trapezoid", y, x, dx)
    d = _wrap_dim(dim, y.ndim)
    if y.shape[d] == 0:
        return C.zeros(tuple(y.shape[:d]) + tuple(y.shape[d + 1:]), dtype=y.dtype)
    _no_bool("trapezoid", y, x)
    if x is not None:
        step = _sample_points("trapezoid", y, x, d)
        return _sdiv(M.sum(M.mul(_pair_sums(y, d), step), d), 2.0)
    dx = _spacing("trapezoid", dx)
    ends = _smul(M.add(S.select(y, d, 0), S.select(y, d, -1)), 0.5)
    return _smul(M.sub(M.sum(y, d), ends), float(dx))


@declare("trapz")
def trapz(y, x=None, *, dx=None, dim=-1):
    """The older name of ``trapezoid`` (``dx`` defaults to 1)."""
    return trapezoid(y, x, dx=dx, dim=dim)


@declare("cumulative_trapezoid")
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral of ``y`` along ``dim`` (one entry fewer than ``y``)."""
    _integrand("cumulative_trapezoid", y, x, dx)
    d = _wrap_dim(dim, y.ndim)
    _no_bool("cumulative_trapezoid", y, x)
    if x is not None:
        step = _sample_points("cumulative_trapezoid", y, x, d)
        return _sdiv(M.cumsum(M.mul(_pair_sums(y, d), step), d), 2.0)
    dx = _spacing("cumulative_trapezoid", dx)
    return M.cumsum(_smul(_pair_sums(y, d), dx / 2.0), d)


# ---------------------------------------------------------------- Vandermonde matrices

@declare("vander")
def vander(x, N=None, increasing=False):
    """Columns ``x**(N-1), ..., x, 1`` (reversed with ``increasing``), built as PyTorch does:
    ones, then the powers written in place with a cumulative product."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    d = x.dtype if x.dtype.kind == _dtype.FLOAT else _dtype.int64
    result = C.empty((x.shape[0], n), dtype=d)
    if n > 0:
        result.fill_(1)
        if n > 1:
            _slice(result, 1, 1).copy_(S.unsqueeze(x, 1))
            _slice(result, 1, 1).copy_(_cumprod(_slice(result, 1, 1), 1))
    if not increasing:
        return S.flip(result, (1,))
    return result


@declare("linalg.vander")
def linalg_vander(x, *, N=None):
    """``linalg.vander``: columns ``1, x, ..., x**(N-1)`` over the last axis of ``x`` (batched)."""
    if not (x.dtype in (_dtype.float32, _dtype.float64, _dtype.complex64, _dtype.complex128)
            or (x.dtype.kind == _dtype.INT and x.dtype is not _dtype.bool_)):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{x.dtype.c_name}")
    x_ = S.unsqueeze(x, -1) if x.ndim == 0 else x
    shape = tuple(x_.shape)
    n = shape[-1] if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = _cumprod(S.expand(S.unsqueeze(x_, -1), shape + (n - 1,)), -1)
    ones = C.ones(shape + (1,), dtype=powers.dtype)
    return S.cat([ones, powers], -1)


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
    return S.cat([first, _sdiv(center, 2), last], d)


def _gradient_coordinates(x, d, coords, edge_order):
    if coords.ndim != 1:
        raise RuntimeError(f"torch.gradient expected each element of spacing to have one dimension, but got an "
                           f"element with {coords.ndim} dimensions!")
    shape = [1] * x.ndim
    shape[d] = -1
    h = _diff(coords, 1, 0)
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
    return S.cat([first, center, last], d)


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


# ---------------------------------------------------------------- put, frexp

@declare("put", method=True, inplace=True)
def put(input, index, source, accumulate=False):
    """A copy of ``input`` with ``source`` written (or added, with ``accumulate``) at the flat
    positions ``index`` (negative ones count from the end)."""
    _need_tensor("put", "index", index, 2)
    _need_tensor("put", "source", source, 3)
    if index.dtype is not _dtype.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype.c_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{input.dtype.c_name} and source.dtype = {source.dtype.c_name}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    values = _host(index)
    if values is not None and values.size:
        bad = values[(values < -n) | (values >= n)]
        if bad.size:
            if n == 0:
                raise IndexError(f"out of range: tried to access index {bad.flat[0]} on an empty tensor")
            raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of {n} elements.")
    return apply(IX.put, (input, index._data, source), (bool(accumulate),))


@declare("frexp", method=True, out=True)
def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2**exponent`` and ``0.5 <= |mantissa| < 1``
    (named tuple ``frexp``; the exponent is int32)."""
    if input.dtype.kind != _dtype.FLOAT:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return _named("frexp", ("mantissa", "exponent"))(*apply(E.frexp, (input,)))


# ---------------------------------------------------------------- histogram, isin

@declare("histogram", method=True, out=True)
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)``: counts (or summed ``weight``) of the entries of ``input`` in ``bins``
    equal bins over ``range`` (the data's range by default), or between the edges of a 1-D
    tensor ``bins``; ``density`` normalises to unit integral. Not differentiable."""
    _need_tensor("histogram", "input", input, 1)
    if input.dtype not in (_dtype.float32, _dtype.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{input.dtype.c_name}'")
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError("histogram(): argument 'range' is not accepted together with a Tensor 'bins'")
        if bins.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {bins.ndim} "
                               f"dimensions in the bins tensor for dimension 0")
        if bins.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                               f"got input with dtype {input.dtype.c_name.lower()} and bins for dimension 0 with "
                               f"dtype {bins.dtype.c_name.lower()}")
        if bins.numel() - 1 <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins.numel() - 1} for dimension 0")
        edges = bins.detach()
    else:
        if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool):
            raise TypeError(f"histogram(): argument 'bins' must be int or Tensor, not {type(bins).__name__}")
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        edges = None
    if weight is not None:
        _need_tensor("histogram", "weight", weight, 4)
        if tuple(weight.shape) != tuple(input.shape):
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as "
                               f"the input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(input.shape)} and weight with shape {list(weight.shape)}")
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({input.dtype.c_name.lower()}), and "
                               f"weight({weight.dtype.c_name.lower()})")
    if edges is None:
        if range is not None:
            lo, hi = (builtins.float(v) for v in range)
        elif input.numel():
            data = np.asarray(input._data)
            lo, hi = builtins.float(data.min()), builtins.float(data.max())
        else:
            lo, hi = 0.0, 1.0
        if not (_math.isfinite(lo) and _math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo:g}, {hi:g}] is not finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for "
                               f"dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        # torch.linspace's layout: the first half counted up from lo, the second back from hi
        step = (hi - lo) / bins
        i = np.arange(bins + 1, dtype=np.float64)
        values = np.where(i < (bins + 1) // 2, lo + step * i, hi - step * (bins - i))
        edges = _wrap(jnp.asarray(values.astype(input._data.dtype)))
    w = None if weight is None else weight.detach()
    hist, bin_edges = apply(SO.histogram, (input.detach(), edges, w), (bool(density),))
    return _named("histogram", ("hist", "bin_edges"))(hist, bin_edges)


@declare("isin", out=True)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each entry of ``elements`` occurs in ``test_elements`` (a bool tensor shaped like
    ``elements``); either may be a Python number."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(f"isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__})")
    for t in (elements, test_elements):
        if isinstance(t, Tensor) and t.dtype is _dtype.bool_ or isinstance(t, (bool, np.bool_)):
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    d = result_type(elements, test_elements)
    a = elements if isinstance(elements, Tensor) else _wrap(jnp.asarray(elements, d.np))
    b = test_elements._data if isinstance(test_elements, Tensor) else jnp.asarray(test_elements, d.np)
    return apply(SO.isin, (a.detach(), b), (bool(invert), d.np))


# ---------------------------------------------------------------- Tensor-only

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


def _new_sizes(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


@declare(method=("new_zeros",))
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return C.zeros(*_new_sizes(size), dtype=dtype or self.dtype, device=device or self.device,
                   requires_grad=requires_grad)


@declare(method=("new_ones",))
def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return C.ones(*_new_sizes(size), dtype=dtype or self.dtype, device=device or self.device,
                  requires_grad=requires_grad)


@declare(method=("new_empty",))
def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return C.empty(*_new_sizes(size), dtype=dtype or self.dtype, device=device or self.device,
                   requires_grad=requires_grad)


@declare(method=("new_full",))
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    return C.full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                  requires_grad=requires_grad)


@declare(method=("new_tensor",))
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            UserWarning, stacklevel=2)
        data = data.detach()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return C.tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


# ---------------------------------------------------------------- activations at the top level

def _F():
    from ..nn import functional
    return functional


def _check_p(p):
    # the ATen op raises RuntimeError where nn.functional's Python check raises ValueError
    if p < 0.0 or p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


@declare("dropout")
def dropout(input, p, train):
    """``torch.dropout``: ``nn.functional.dropout`` with ``train`` required."""
    _check_p(p)
    return _F().dropout(input, p, train)


@declare("dropout_")
def dropout_(input, p, train):
    _check_p(p)
    return _F().dropout(input, p, train, inplace=True)


@declare("selu")
def selu(input):
    return _F().selu(input)


@declare("selu_")
def selu_(input):
    return _F().selu(input, inplace=True)


@declare("celu")
def celu(input, alpha=1.0):
    return _F().celu(input, alpha)


@declare("celu_")
def celu_(input, alpha=1.0):
    return _F().celu(input, alpha, inplace=True)


@declare("threshold", out=True)
def threshold(input, threshold, value):
    return _F().threshold(input, threshold, value)


@declare("threshold_")
def threshold_(input, threshold, value):
    return _F().threshold(input, threshold, value, inplace=True)


@declare("prelu", method=True)
def prelu(input, weight):
    return _F().prelu(input, weight)


@declare("rrelu")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``x`` above 0; below, ``x`` times a slope drawn from ``U(lower, upper)`` per entry
    (training) or ``(lower + upper) / 2`` (eval). The node is ``RreluWithNoiseBackward0``."""
    return _rrelu(input, lower, upper, training, False, generator)


@declare("rrelu_")
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu(input, lower, upper, training, True, generator)


def _rrelu(input, lower, upper, training, inplace, generator=None):
    if input.dtype.kind != _dtype.FLOAT:
        raise NotImplementedError(f"\"leaky_relu_cpu\" not implemented for '{input.dtype.c_name}'")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    dt = input._data.dtype
    if training:
        drawn = jax.random.uniform(C._key(generator), input._data.shape, jnp.float64, lower, upper)
        noise = jnp.where(input._data > 0, jnp.ones((), jnp.float64), drawn).astype(dt)
    else:
        noise = jnp.zeros((), dt)
    cfg = (bool(training), (float(lower) + float(upper)) / 2)
    if not inplace:
        return apply(NA.rrelu_with_noise, (input, noise), cfg)
    check_inplace(input)
    return commit_inplace(input, apply(NA.rrelu_with_noise_, (input, noise), cfg))
