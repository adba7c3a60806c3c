"""Torch-level reductions: sums, means, extremes, all/any, norms, logsumexp, var/std and their
``*_mean`` forms, nanmean, count_nonzero, aminmax, dist/cdist/renorm, cov/corrcoef,
trapezoid/trapz and ``Tensor.sum_to_size``.

Where PyTorch composes an op in C++ (cov, trapezoid) the same composition is recorded here, so
the graph has PyTorch's nodes.
"""

import builtins
import math
import numbers
import warnings

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._ops import reduction as R
from .._ops import elementwise as E
from .._tensor import Tensor, apply, _wrap, _wrap_dim
from . import creation as C
from . import elementwise as M
from . import shape as S
from .comparison import isnan, logical_not
from .elementwise import maximum, minimum
from .indexing import _host
from .joining import broadcast_shapes
from .matmul import mm
from .operands import result_type, _float_of, _named, _need_tensor
from .surface import declare, out_with


def _require_float(name, input, what="expected input to have floating point or complex dtype but got"):
    if input.dtype.kind < _dtype.FLOAT:
        raise RuntimeError(f"{name}(): {what} {input.dtype.c_name}")


def _dim_of(input, dim):
    return _wrap_dim(dim, input.ndim)


def _nonempty_dim(name, input, dim):
    if input.ndim and input.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


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


# ---------------------------------------------------------------- sums, means, extremes, norms

def _dims(dim, ndim):
    """Normalize ``dim`` (int, tuple, list or None) to a sorted tuple of non-negative axes."""
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    out = []
    for d in dim:
        d = _wrap_dim(int(d), ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    # a 0-d tensor accepts dim 0 or -1 and has no axis to reduce
    return tuple(out) if ndim else ()


def _sum_dtype(d, dtype):
    if dtype is not None:
        return _dtype.to_dtype(dtype)
    return _dtype.int64 if d.kind <= _dtype.INT else d


@declare("sum", method=True, out=out_with("dim"))
def sum(input, dim=None, keepdim=False, *, dtype=None):
    d = _sum_dtype(input.dtype, dtype)
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0 and input.ndim == 0):
        return apply(R.sum_all, (input,), (d.np,))
    return apply(R.sum_dim, (input,), (_dims(dim, input.ndim), keepdim, d.np))


@declare("nansum", method=True, out=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum treating NaN as 0 (``NansumBackward0``; NaN entries get no gradient)."""
    if input.dtype.kind == _dtype.COMPLEX:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    d = _sum_dtype(input.dtype, dtype)
    return apply(R.nansum, (input,), (None if dim is None else _dims(dim, input.ndim), keepdim, d.np))


@declare("mean", method=True, out=True)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    d = input.dtype if dtype is None else _dtype.to_dtype(dtype)
    if d.kind < _dtype.FLOAT:
        raise RuntimeError(
            f"mean(): could not infer output dtype. {'Input' if dtype is None else 'Optional'} dtype must be either "
            f"a floating point or complex dtype. Got: {d.c_name}")
    if dim is None:
        return apply(R.mean_all, (input,), (d.np,))
    return apply(R.mean_dim, (input,), (_dims(dim, input.ndim), keepdim, d.np))


@declare("prod", method=True, out=out_with("dim"))
def prod(input, dim=None, keepdim=False, *, dtype=None):
    d = _sum_dtype(input.dtype, dtype)
    if dim is None:
        return apply(R.prod, (input,), (d.np,))
    return apply(R.prod_dim, (input,), (_wrap_dim(dim, input.ndim), keepdim, d.np))


def _extreme(op_all, op_dim, binary, name):
    def extreme(input, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            return binary(input, dim)
        if dim is not None and not isinstance(dim, (int, np.integer)):
            raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                            f"{type(dim).__name__}), but expected (Tensor input, int dim, bool keepdim = False) "
                            "or (Tensor input, Tensor other)")
        if dim is None:
            if input.numel() == 0:
                raise RuntimeError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                    "reduction dim with the 'dim' argument.")
            return apply(op_all, (input,))
        dim = _wrap_dim(dim, input.ndim)
        _nonempty_dim(name, input, dim)
        values, indices = apply(op_dim, (input,), (dim, keepdim))
        return _named(name)(values, indices)
    extreme.__name__ = name
    return extreme


max = _extreme(R.max_all, R.max_dim, maximum, "max")
declare("max", method=True, out=True)(max)


min = _extreme(R.min_all, R.min_dim, minimum, "min")
declare("min", method=True, out=True)(min)


def _amax_dims(name, input, dim):
    """amax/amin's reduced dims (None: all), with PyTorch's errors for an empty one (named as given)."""
    dims = _dims(dim, input.ndim) if dim != () else None
    if input.numel() == 0:
        if dims is None:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                               "the reduction dim with the 'dim' argument.")
        for given, d in zip(dim if isinstance(dim, (tuple, list)) else (dim,), dims):
            if input.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {given} to have non-zero size.")
    return dims


@declare("amax", method=True, out=True)
def amax(input, dim=(), keepdim=False):
    return apply(R.amax, (input,), (_amax_dims("amax", input, dim), keepdim))


@declare("amin", method=True, out=True)
def amin(input, dim=(), keepdim=False):
    return apply(R.amin, (input,), (_amax_dims("amin", input, dim), keepdim))


def _check_arg_extreme(name, input, dim):
    if input.dtype is _dtype.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None and input.numel() == 0:
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")


@declare("argmax", method=True, out=True)
def argmax(input, dim=None, keepdim=False):
    _check_arg_extreme("argmax", input, dim)
    dim = None if dim is None else _wrap_dim(dim, input.ndim)
    if dim is not None:
        _nonempty_dim("argmax", input, dim)
    return apply(R.argmax, (input,), (dim, keepdim))


@declare("argmin", method=True, out=True)
def argmin(input, dim=None, keepdim=False):
    _check_arg_extreme("argmin", input, dim)
    dim = None if dim is None else _wrap_dim(dim, input.ndim)
    if dim is not None:
        _nonempty_dim("argmin", input, dim)
    return apply(R.argmin, (input,), (dim, keepdim))


@declare("all", method=True, out=True)
def all(input, dim=None, keepdim=False):
    return apply(R.all_, (input,), (_dims(dim, input.ndim), keepdim))


@declare("any", method=True, out=True)
def any(input, dim=None, keepdim=False):
    return apply(R.any_, (input,), (_dims(dim, input.ndim), keepdim))


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The vector norm over all elements or ``dim`` (``"fro"`` is the 2-norm); ``torch.norm``
    (``_api/linalg.py``) adds the nuclear norm."""
    if p == "fro" or p is None:
        p = 2
    d = input.dtype if dtype is None else _dtype.to_dtype(dtype)
    if d.kind < _dtype.FLOAT:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {d.c_name}")
    _check_norm_identity(input.shape, float(p), dim)
    return apply(R.vector_norm, (input,), (float(p), _dims(dim, input.ndim), keepdim, d.to_real().np))


def _check_norm_identity(shape, p, dim):
    """The ``inf`` and negative norms have no value over an empty set (PyTorch's message, which
    names the first empty dim as given)."""
    if not (p < 0 or p == float("inf")):
        return
    where = None
    if dim is None or (not isinstance(dim, (int, np.integer)) and len(dim) == 0):
        if math.prod(shape) == 0:
            where = "an empty tensor because the operation"
    else:
        for d in (dim,) if isinstance(dim, (int, np.integer)) else dim:
            if shape and shape[_wrap_dim(int(d), len(shape))] == 0:
                where = f"the dimension {d}because this dimension is empty and the operation"
                break
    if where is not None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on {where} does not have an identity")


@declare("logsumexp", method=True, out=True)
@declare("special.logsumexp", out=True)
def logsumexp(input, dim, keepdim=False):
    if input.dtype.kind < _dtype.FLOAT:
        input = input.to(_dtype.get_default_dtype())
    return apply(R.logsumexp, (input,), (_dims(dim, input.ndim), keepdim))


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def _check_var(input):
    if input.dtype.kind < _dtype.FLOAT:
        raise RuntimeError("std and var only support floating point and complex dtypes")


_DOF_WARNING = ("{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
                "(input numel divided by output numel). (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)")


def _variance(op, input, dim, unbiased, correction, keepdim):
    _check_var(input)
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    dims = _dims(dim, input.ndim)
    correction = _correction(unbiased, correction)
    out_numel = 1
    for i, size in enumerate(input.shape):
        if dims is not None and i not in dims:
            out_numel *= size
    if (input.numel() // out_numel if out_numel else 0) - correction <= 0:
        warnings.warn(_DOF_WARNING.format(op.name), UserWarning, stacklevel=3)
    return apply(op, (input,), (dims, correction, keepdim))


@declare("var", method=True, out=True)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _variance(R.var, input, dim, unbiased, correction, keepdim)


@declare("std", method=True, out=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _variance(R.std, input, dim, unbiased, correction, keepdim)


# ---------------------------------------------------------------- more sums and means

@declare("nanmean", method=True, out=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over the non-NaN entries: ``nansum / count`` as PyTorch computes it."""
    d = input.dtype if dtype is None else _dtype.to_dtype(dtype)
    if d.kind < _dtype.FLOAT:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got {d.c_name}")
    count = sum(logical_not(isnan(input)), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def _moments(op, name, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if input.dtype.kind < _dtype.FLOAT:
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    dims = None if dim is None else _dims(dim, input.ndim)
    return apply(op, (input,), (dims, _correction(unbiased, correction), keepdim))


@declare("std_mean")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` in one pass (both outputs share a ``StdMeanBackward0`` node)."""
    return _moments(R.std_mean, "std_mean", input, dim, unbiased, keepdim, correction)


@declare("var_mean")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` in one pass (both outputs share a ``VarMeanBackward0`` node)."""
    return _moments(R.var_mean, "var_mean", input, dim, unbiased, keepdim, correction)


@declare("count_nonzero", method=True)
def count_nonzero(input, dim=None):
    dims = None if dim is None else _dims(dim, input.ndim)
    return apply(R.count_nonzero, (input,), (dims,))


@declare("aminmax", method=True, out=True)
def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` as the named tuple ``aminmax``; ties share the gradient evenly."""
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                               "no identity.")
        if keepdim:
            values = apply(R.aminmax, (input.reshape(-1),), (0, True))
            return _named("aminmax", ("min", "max"))(*(v.reshape((1,) * input.ndim) for v in values))
        return _named("aminmax", ("min", "max"))(*apply(R.aminmax, (input,), (None, False)))
    d = _dim_of(input, dim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    return _named("aminmax", ("min", "max"))(*apply(R.aminmax, (input,), (d if input.ndim else None, keepdim)))


# ---------------------------------------------------------------- distances and norms

@declare("dist", method=True)
def dist(input, other, p=2):
    """``||input - other||_p`` (broadcasting), one node ``DistBackward0``."""
    _need_tensor("dist", "input", input, 1)
    _need_tensor("dist", "other", other, 2)
    if input.dtype is _dtype.bool_ and other.dtype is _dtype.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    d = result_type(input, other)
    if d.kind < _dtype.FLOAT:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {d.c_name} instead.")
    _check_norm_identity(broadcast_shapes(input.shape, other.shape), float(p), None)
    return apply(R.dist, (input, other), (float(p), d.np))


@declare("renorm", method=True, inplace=True, out=True)
def renorm(input, p, dim, maxnorm):
    """Scale each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` down to norm ``maxnorm``."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = _wrap_dim(dim, input.ndim)
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    if input.dtype.kind < _dtype.FLOAT:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{input.dtype.c_name}")
    return apply(R.renorm, (input,), (float(p), d, float(maxnorm)))


@declare("cdist", numpy_names=False)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise ``p``-norm distances between the rows of ``x1`` and ``x2`` (batched)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
        if x.dtype.kind != _dtype.FLOAT:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {x.dtype.c_name}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"cdist: expected both inputs to have same dtype, but got {x1.dtype.c_name} and "
                           f"{x2.dtype.c_name}")
    return apply(R.cdist, (x1, x2), (float(p),))


@declare("pdist")
def pdist(input, p=2):
    """The ``p``-norm distances between every pair of rows of a matrix (``i < j``, row-major),
    the upper triangle of ``cdist(input, input)`` without its diagonal."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if input.dtype.kind != _dtype.FLOAT:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return apply(R.pdist, (input,), (float(p),))


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
    w_sum = sum(w) if w is not None else _wrap(jnp.asarray(n, jnp.int64))
    if w is not None:
        total = _host(w_sum)
        if total is not None and total == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = M.div(sum(M.mul(x, w) if w is not None else x, 1), w_sum)
    if w is not None and correction != 0 and aweights is not None:
        norm = M.sub(w_sum, M.div(_smul(sum(M.mul(w, aweights)), correction), w_sum))
    else:
        norm = M.sub(w_sum, correction)
    value = _host(norm)
    if value is not None and value <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = M.mul(norm, 0)
    centered = M.sub(x, S.unsqueeze(avg, 1))
    c = mm(centered, S.t(M.mul(centered, w) if w is not None else centered))
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
        return _sdiv(sum(M.mul(_pair_sums(y, d), step), d), 2.0)
    dx = _spacing("trapezoid", dx)
    ends = _smul(M.add(S.select(y, d, 0), S.select(y, d, -1)), 0.5)
    return _smul(M.sub(sum(y, d), ends), float(dx))


@declare("trapz")
def trapz(y, x=None, *, dx=None, dim=-1):
    """The older name of ``trapezoid`` (``dx`` defaults to 1)."""
    return trapezoid(y, x, dx=dx, dim=dim)


# ---------------------------------------------------------------- Tensor-only

@declare(method=("sum_to_size",))
def sum_to_size(self, *size):
    """Sum ``self`` down to ``size`` (which ``self`` must be expandable from)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    ok = lead >= 0 and builtins.all(s == 1 or s == n for s, n in zip(size, shape[lead:]))
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if size == shape:
        return self
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1]
    out = sum(self, dims, keepdim=True)
    return S.view(out, size) if lead else out
