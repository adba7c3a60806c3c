"""Elementwise ops. Binary ops receive the promoted dtype as ``dtype`` and cast inside,
so Python numbers pass through ``jit`` as weakly typed arguments (no recompiles per value)."""

import functools

import jax
import jax.numpy as jnp
from jax import lax

from .registry import op


def _c(x, dtype):
    return jnp.asarray(x, dtype)


# ---------------------------------------------------------------- binary arithmetic

# ``alpha`` is an operand without a graph slot, not configuration, so that a changing alpha
# (an optimizer's step size) does not compile a new kernel per value. None means 1.

def _scaled(b, alpha, dtype):
    b = _c(b, dtype)
    return b if alpha is None else b * _c(alpha, dtype)


@op("add", saves="none", no_slot=(2,))
def add(a, b, alpha, *, dtype):
    return _c(a, dtype) + _scaled(b, alpha, dtype)


@op("sub", saves="none", no_slot=(2,))
def sub(a, b, alpha, *, dtype):
    return _c(a, dtype) - _scaled(b, alpha, dtype)


@op("rsub", grad_fn="RsubBackward1", saves="none", scalar_slots=False)
def rsub(a, b, alpha, *, dtype):
    return _c(b, dtype) - _scaled(a, alpha, dtype)


@op("mul")
def mul(a, b, *, dtype):
    return _c(a, dtype) * _c(b, dtype)


@op("div")
def div(a, b, *, dtype):
    return _c(a, dtype) / _c(b, dtype)


@op("div_floor", grad_fn="DivBackward2")
def div_floor(a, b, *, dtype):
    a, b = _c(a, dtype), _c(b, dtype)
    if jnp.issubdtype(dtype, jnp.integer):
        return jnp.floor_divide(a, b)
    return jnp.floor(a / b)


@op("div_trunc", grad_fn="DivBackward2")
def div_trunc(a, b, *, dtype):
    a, b = _c(a, dtype), _c(b, dtype)
    if jnp.issubdtype(dtype, jnp.integer):
        return lax.div(*jnp.broadcast_arrays(a, b))
    return jnp.trunc(a / b)


@op("floor_divide", grad_fn="NotImplemented", saves="none", scalar_slots=False)
def floor_divide(a, b, *, dtype):
    """``//``: PyTorch defines no derivative (its node is ``NotImplemented``; backward raises)."""
    return _floor_divide(a, b, dtype)


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _floor_divide(a, b, dtype):
    return div_floor.fn(a, b, dtype=dtype)


def _floor_divide_fwd(a, b, dtype):
    return _floor_divide(a, b, dtype), None


def _floor_divide_bwd(dtype, residuals, g):
    raise RuntimeError("derivative for aten::floor_divide is not implemented")


_floor_divide.defvjp(_floor_divide_fwd, _floor_divide_bwd)


@op("remainder", grad_fn="RemainderBackward1")
def remainder(a, b, *, dtype):
    return jnp.remainder(_c(a, dtype), _c(b, dtype))


@op("pow", grad_fn="PowBackward0", scalar_slots=False)
def pow_scalar(a, exponent, *, dtype):
    a = _c(a, dtype)
    if isinstance(exponent, int) and not isinstance(exponent, bool) and jnp.issubdtype(dtype, jnp.integer):
        return lax.integer_pow(a, exponent) if exponent >= 0 else a ** exponent
    e = _c(exponent, dtype)
    # x ** 0 is 1 with gradient 0 everywhere, as in PyTorch (JAX's 0 * x ** -1 is nan at 0)
    return jnp.where(e == 0, jnp.ones_like(a), a ** jnp.where(e == 0, 1, e))


@op("pow_tensor", grad_fn="PowBackward1", saves="output")
def pow_tensor(a, b, *, dtype):
    a, b = _c(a, dtype), _c(b, dtype)
    return _safe_pow(a, b) if jnp.issubdtype(dtype, jnp.inexact) else _int_pow(a, b)


def _int_pow(a, b):
    # PyTorch truncates integer powers with negative exponents: 1 and -1 stay units, all else is 0
    pos = a ** jnp.maximum(b, 0)
    unit = jnp.where((a == 1) | (b % 2 == 0), 1, -1)
    return jnp.where(b < 0, jnp.where(jnp.abs(a) == 1, unit, 0), pos).astype(pos.dtype)


@jax.custom_jvp
def _safe_pow(a, b):
    return a ** b


@_safe_pow.defjvp
def _safe_pow_jvp(primals, tangents):
    # PyTorch masks the exponent's gradient where the base is 0 (0 ** x has gradient 0 in x).
    a, b = primals
    da, db = tangents
    out = a ** b
    dpow_da = jnp.where(b == 0, 0.0, b * a ** jnp.where(b == 0, 1.0, b - 1))
    log_a = jnp.log(jnp.where(a == 0, 1.0, a))
    dpow_db = jnp.where(a == 0, 0.0, out * log_a)
    return out, dpow_da * da + dpow_db * db


@op("pow_scalar_base", grad_fn="PowBackward2", saves="output", scalar_slots=False)
def pow_scalar_base(b, base, *, dtype):
    if not jnp.issubdtype(dtype, jnp.inexact):
        return _int_pow(_c(base, dtype), _c(b, dtype))
    return _safe_pow(_c(base, dtype), _c(b, dtype))


@op("maximum")
def maximum(a, b, *, dtype):
    return jnp.maximum(_c(a, dtype), _c(b, dtype))


@op("minimum")
def minimum(a, b, *, dtype):
    return jnp.minimum(_c(a, dtype), _c(b, dtype))


@op("atan2")
def atan2(a, b, *, dtype):
    return jnp.arctan2(_c(a, dtype), _c(b, dtype))


# ---------------------------------------------------------------- comparisons and logic

def _compare(name, fn):
    def compare(a, b, *, dtype):
        return fn(_c(a, dtype), _c(b, dtype))
    compare.__name__ = name
    return op(name, differentiable=False)(compare)


eq = _compare("eq", jnp.equal)
ne = _compare("ne", jnp.not_equal)
lt = _compare("lt", jnp.less)
le = _compare("le", jnp.less_equal)
gt = _compare("gt", jnp.greater)
ge = _compare("ge", jnp.greater_equal)
logical_and = _compare("logical_and", jnp.logical_and)
logical_or = _compare("logical_or", jnp.logical_or)
logical_xor = _compare("logical_xor", jnp.logical_xor)
bitwise_and = _compare("bitwise_and", jnp.bitwise_and)
bitwise_or = _compare("bitwise_or", jnp.bitwise_or)
bitwise_xor = _compare("bitwise_xor", jnp.bitwise_xor)


@op("isclose", differentiable=False)
def isclose(a, b, *, dtype, rtol, atol, equal_nan):
    return jnp.isclose(_c(a, dtype), _c(b, dtype), rtol=rtol, atol=atol, equal_nan=equal_nan)


@op("logical_not", differentiable=False)
def logical_not(x):
    return jnp.logical_not(x)


@op("bitwise_not", differentiable=False)
def bitwise_not(x):
    return jnp.invert(x)


@op("isnan", differentiable=False)
def isnan(x):
    return jnp.isnan(x)


@op("isinf", differentiable=False)
def isinf(x):
    return jnp.isinf(x)


@op("isfinite", differentiable=False)
def isfinite(x):
    return jnp.isfinite(x)


# ---------------------------------------------------------------- unary

def _unary(name, fn, saves="inputs", grad_fn=None):
    def unary(x, *, dtype):
        return fn(_c(x, dtype))
    unary.__name__ = name
    return op(name, saves=saves, grad_fn=grad_fn)(unary)


neg = _unary("neg", jnp.negative, saves="none")
@jax.custom_jvp
def _abs(x):
    return jnp.abs(x)


@_abs.defjvp
def _abs_jvp(primals, tangents):
    # PyTorch's gradient of abs at 0 is 0 (JAX's is 1)
    (x,), (t,) = primals, tangents
    return jnp.abs(x), jnp.sign(x) * t


abs_ = _unary("abs", lambda x: _abs(x) if jnp.issubdtype(x.dtype, jnp.floating) else jnp.abs(x))
exp = _unary("exp", jnp.exp, saves="output")
exp2 = _unary("exp2", jnp.exp2, saves="output")
expm1 = _unary("expm1", jnp.expm1, saves="output")
log = _unary("log", jnp.log)
log2 = _unary("log2", jnp.log2)
log10 = _unary("log10", jnp.log10)
log1p = _unary("log1p", jnp.log1p, grad_fn="Log1PBackward0")
sqrt = _unary("sqrt", jnp.sqrt, saves="output")
rsqrt = _unary("rsqrt", lax.rsqrt, saves="output")
sin = _unary("sin", jnp.sin)
cos = _unary("cos", jnp.cos)
tan = _unary("tan", jnp.tan, saves="output")
asin = _unary("asin", jnp.arcsin)
acos = _unary("acos", jnp.arccos)
atan = _unary("atan", jnp.arctan)
sinh = _unary("sinh", jnp.sinh)
cosh = _unary("cosh", jnp.cosh)
tanh = _unary("tanh", jnp.tanh, saves="output")
asinh = _unary("asinh", jnp.arcsinh)
acosh = _unary("acosh", jnp.arccosh)
atanh = _unary("atanh", jnp.arctanh)
sigmoid = _unary("sigmoid", jax.nn.sigmoid, saves="output")
relu = _unary("relu", jax.nn.relu, saves="output")
reciprocal = _unary("reciprocal", jnp.reciprocal, saves="output")
erf = _unary("erf", jax.scipy.special.erf)
erfc = _unary("erfc", jax.scipy.special.erfc)
erfinv = _unary("erfinv", jax.scipy.special.erfinv, saves="output")
floor = _unary("floor", jnp.floor, saves="none")
ceil = _unary("ceil", jnp.ceil, saves="none")
trunc = _unary("trunc", jnp.trunc, saves="none")
frac = _unary("frac", lambda x: x - jnp.trunc(x), saves="none")
sign = _unary("sign", lambda x: x if x.dtype == bool else jnp.sign(x), saves="none")
square = _unary("square", jnp.square, grad_fn="PowBackward0")
lgamma = _unary("lgamma", jax.scipy.special.gammaln)
digamma = _unary("digamma", lambda x: jnp.where(x == 0, -jnp.inf, jax.scipy.special.digamma(x)))


@op("round", saves="none")
def round_(x, *, dtype, decimals=0):
    x = _c(x, dtype)
    if decimals == 0:
        return jnp.round(x)
    return jnp.round(x, decimals)


@op("clamp", grad_fn="ClampBackward1", scalar_slots=False)
def clamp(x, lo, hi, *, dtype):
    # PyTorch's gradient is 1 on the closed interval [min, max] and 0 outside
    x = _c(x, dtype)
    clipped = x
    inside = jnp.ones(x.shape, bool)
    if lo is not None:
        lo = _c(lo, dtype)
        clipped = jnp.maximum(clipped, lo)
        inside = inside & (x >= lo)
    if hi is not None:
        hi = _c(hi, dtype)
        clipped = jnp.minimum(clipped, hi)
        inside = inside & (x <= hi)
    if not jnp.issubdtype(dtype, jnp.inexact):
        return clipped
    return jnp.where(inside, x, lax.stop_gradient(clipped))


@op("where", no_slot=(0,))
def where(cond, a, b, *, dtype):
    return jnp.where(cond, _c(a, dtype), _c(b, dtype))


@op("to_copy", grad_fn="ToCopyBackward0", saves="none")
def to_copy(x, *, dtype):
    return x.astype(dtype)


@op("clone", saves="none")
def clone(x):
    return jnp.array(x, copy=True)


@op("fill", grad_fn="FillBackward2", saves="none", scalar_slots=False)
def fill(x, value):
    return jnp.full(x.shape, value, x.dtype)


@op("zero", saves="none")
def zero(x):
    return jnp.zeros_like(x)


@op("masked_fill", grad_fn="MaskedFillBackward0", no_slot=(1,), scalar_slots=False)
def masked_fill(x, mask, value):
    return jnp.where(mask, jnp.asarray(value, x.dtype), x)


# the value a 0-d tensor: its gradient is the sum of the gradient over the filled places
@op("masked_fill_tensor", grad_fn="MaskedFillBackward1", no_slot=(1,))
def masked_fill_tensor(x, mask, value):
    return jnp.where(mask, value.astype(x.dtype), x)
