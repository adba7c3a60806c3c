"""Elementwise ops: arithmetic, unary math, rounding, ``where``, copies and fills.

Binary ops receive the promoted dtype as ``dtype`` and cast inside, so Python numbers pass
through ``jit`` as weakly typed arguments (no recompiles per value). Where PyTorch's derivative
differs from JAX's at a special point, the op says so and builds PyTorch's with ``jnp.where``
(which routes the gradient to the branch taken) or a custom JVP.

Comparisons, logical and bitwise ops live in ``comparison.py``, special functions (erf,
gamma, Bessel, xlogy, ...) in ``special.py``, elementwise extrema and clamps in ``clamps.py``.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax

from .registry import op, with_tangent


def _c(x, dtype):
    if getattr(x, "dtype", None) == jnp.bool_ and dtype != jnp.bool_:
        # through uint8: XLA rewrites convert(bool) * y (and / y) as a select, which loses y's NaN
        # and infinity (False * nan, False / False must be nan as in PyTorch)
        x = jnp.asarray(x, jnp.uint8)
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


@op("div", saves={"a": "b", "b": "any"})
def div(a, b, *, dtype):
    return _c(a, dtype) / _c(b, dtype)


@op("div_floor", grad_fn="DivBackward2", saves={"a": "b", "b": "any"})
def div_floor(a, b, *, dtype):
    a, b = _c(a, dtype), _c(b, dtype)
    if jnp.issubdtype(dtype, jnp.integer):
        return jnp.floor_divide(a, b)
    return jnp.floor(a / b)


@op("div_trunc", grad_fn="DivBackward2", saves={"a": "b", "b": "any"})
def div_trunc(a, b, *, dtype):
    a, b = _c(a, dtype), _c(b, dtype)
    if jnp.issubdtype(dtype, jnp.integer):
        return lax.div(*jnp.broadcast_arrays(a, b))
    return jnp.trunc(a / b)


def _no_derivative(aten, fn):
    """``fn(a, b, dtype)`` whose backward raises, as PyTorch's ``NotImplemented`` node does."""
    @functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
    def f(a, b, dtype):
        return fn(a, b, dtype)

    def f_fwd(a, b, dtype):
        return f(a, b, dtype), None

    def f_bwd(dtype, residuals, g):
        raise RuntimeError(f"derivative for aten::{aten} is not implemented")

    f.defvjp(f_fwd, f_bwd)
    return f


_floor_divide = _no_derivative("floor_divide", lambda a, b, dtype: div_floor.fn(a, b, dtype=dtype))


@op("floor_divide", grad_fn="NotImplemented", saves="none", scalar_slots=False)
def floor_divide(a, b, *, dtype):
    """``//``: PyTorch defines no derivative (its node is ``NotImplemented``; backward raises)."""
    return _floor_divide(a, b, dtype)


@op("remainder", grad_fn="RemainderBackward1", saves={"a": "b", "b": "b"})
def remainder(a, b, *, dtype):
    return jnp.remainder(_c(a, dtype), _c(b, dtype))


@op("remainder_scalar", grad_fn="RemainderBackward0", scalar_slots=False, saves={})
def remainder_scalar(a, b, *, dtype):
    return jnp.remainder(_c(a, dtype), _c(b, dtype))


@op("fmod", grad_fn="FmodBackward1", saves={"a": "b", "b": "b"})
def fmod(a, b, *, dtype):
    return jnp.fmod(_c(a, dtype), _c(b, dtype))


@op("fmod_scalar", grad_fn="FmodBackward0", scalar_slots=False, saves={})
def fmod_scalar(a, b, *, dtype):
    return jnp.fmod(_c(a, dtype), _c(b, dtype))


@op("pow", grad_fn="PowBackward0", scalar_slots=False)
def pow_scalar(a, exponent, *, dtype):
    a = _c(a, dtype)
    if isinstance(exponent, int) and not isinstance(exponent, bool) and jnp.issubdtype(dtype, jnp.integer):
        return lax.integer_pow(a, exponent) if exponent >= 0 else a ** exponent
    e = _c(exponent, dtype)
    if dtype == jnp.bool_:      # a bool tensor to a bool power: x where the power is True, else True
        return jnp.where(e, a, True)
    # x ** 0 is 1 with gradient 0 everywhere, as in PyTorch (JAX's 0 * x ** -1 is nan at 0)
    return jnp.where(e == 0, jnp.ones_like(a), a ** jnp.where(e == 0, 1, e))


@op("pow_tensor", grad_fn="PowBackward1", saves={"a": "any", "b": "any", "out": "any"})
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


@op("pow_scalar_base", grad_fn="PowBackward2", scalar_slots=False, saves={"b": "any", "out": "any"})
def pow_scalar_base(b, base, *, dtype):
    if not jnp.issubdtype(dtype, jnp.inexact):
        return _int_pow(_c(base, dtype), _c(b, dtype))
    return _safe_pow(_c(base, dtype), _c(b, dtype))


def _atan2_tangent(a, b, out, da, db):
    # PyTorch: b / (a² + b²) and -a / (a² + b²), with the reciprocal 0 at (0, 0)
    denominator = a * a + b * b
    zero = denominator == 0
    recip = jnp.where(zero, jnp.zeros_like(denominator), 1 / jnp.where(zero, jnp.ones_like(denominator), denominator))
    return b * recip * da - a * recip * db


_atan2 = with_tangent(jnp.arctan2, _atan2_tangent)


@op("atan2", saves={"a": "any", "b": "any"})
def atan2(a, b, *, dtype):
    a, b = _c(a, dtype), _c(b, dtype)
    return _atan2(a, b) if jnp.issubdtype(dtype, jnp.inexact) else jnp.arctan2(a, b)


# PyTorch: a / out and b / out, which is NaN at (0, 0) (JAX's rule gives a finite value)
_hypot = with_tangent(jnp.hypot, lambda a, b, out, da, db: a / out * da + b / out * db)


@op("hypot", saves={"a": "a", "b": "b", "out": "any"})
def hypot(a, b, *, dtype):
    return _hypot(_c(a, dtype), _c(b, dtype))


def _lerp(a, b, w):
    # PyTorch's two-sided formula, exact at both ends
    return jnp.where(jnp.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


@op("lerp", grad_fn="LerpBackward0", scalar_slots=False, saves={})
def lerp_scalar(a, b, weight, *, dtype):
    return _lerp(_c(a, dtype), _c(b, dtype), _c(weight, dtype))


@op("lerp_tensor", grad_fn="LerpBackward1", saves={"weight": "any", "a": "weight", "b": "weight"})
def lerp_tensor(a, b, weight, *, dtype):
    return _lerp(_c(a, dtype), _c(b, dtype), _c(weight, dtype))


@op("logaddexp", saves={"a": "any", "b": "any"})
def logaddexp(a, b, *, dtype):
    return jnp.logaddexp(_c(a, dtype), _c(b, dtype))


@op("logaddexp2", grad_fn="Logaddexp2Backward0", saves={"a": "any", "b": "any"})
def logaddexp2(a, b, *, dtype):
    return jnp.logaddexp2(_c(a, dtype), _c(b, dtype))


@jax.custom_jvp
def _copysign(a, b):
    return jnp.copysign(a, b)


@_copysign.defjvp
def _copysign_jvp(primals, tangents):
    # PyTorch: d/da is out / a with 0 where a == 0; b gets no gradient
    a, b = primals
    da, _ = tangents
    out = jnp.copysign(a, b)
    ratio = jnp.where(a == 0, jnp.zeros_like(a), out / jnp.where(a == 0, jnp.ones_like(a), a))
    return out, ratio * da


@op("copysign", saves={"a": "a", "out": "any"})
def copysign(a, b, *, dtype):
    return _copysign(_c(a, dtype), _c(b, dtype))


@op("copysign_scalar", grad_fn="CopysignBackward1", scalar_slots=False, saves={"a": "any", "out": "any"})
def copysign_scalar(a, b, *, dtype):
    return _copysign(_c(a, dtype), _c(b, dtype))


@op("ldexp", saves={"b": "a", "out": "any"})
def ldexp(a, b, *, dtype):
    return _c(a, dtype) * jnp.exp2(_c(b, dtype))


# PyTorch's derivative: the gradient passes to ``a`` unchanged, ``b`` gets zero
_nextafter = with_tangent(jnp.nextafter, lambda a, b, out, da, db: jnp.broadcast_to(da, out.shape))


@op("nextafter", saves="none")
def nextafter(a, b, *, dtype):
    return _nextafter(_c(a, dtype), _c(b, dtype))


def _heaviside_value(a, b, dtype):
    a, b = _c(a, dtype), _c(b, dtype)
    return jnp.where(a == 0, b, (a > 0).astype(dtype))


_heaviside = _no_derivative("heaviside", _heaviside_value)


@op("heaviside", grad_fn="NotImplemented", saves="none")
def heaviside(a, b, *, dtype):
    """PyTorch defines no derivative: the result of inputs that require grad does too, and its
    backward raises."""
    if not jnp.issubdtype(dtype, jnp.inexact):
        return _heaviside_value(a, b, dtype)
    return _heaviside(a, b, dtype)


@op("addcmul", saves={"t1": "t2", "t2": "t1"})
def addcmul(x, t1, t2, *, dtype, value):
    # the number is cast to the result dtype first (0.5 is 0 for integers), as PyTorch
    return _c(x, dtype) + _c(value, dtype) * _c(t1, dtype) * _c(t2, dtype)


@op("addcdiv", saves={"t1": "t2", "t2": "any"})
def addcdiv(x, t1, t2, *, dtype, value):
    return _c(x, dtype) + _c(value, dtype) * (_c(t1, dtype) / _c(t2, dtype))


def _int_binary(name, fn):
    def int_binary(a, b, *, dtype):
        return fn(_c(a, dtype), _c(b, dtype))
    int_binary.__name__ = name
    return op(name, differentiable=False)(int_binary)


gcd = _int_binary("gcd", jnp.gcd)
lcm = _int_binary("lcm", jnp.lcm)


# ---------------------------------------------------------------- Tensor-Scalar arithmetic
# PyTorch's C++ composites (losses, distances) call the Scalar overloads, whose nodes print
# AddBackward1, SubBackward1, MulBackward1, DivBackward1 and have no slot for the number.

@op("add_scalar", grad_fn="AddBackward1", saves="none", scalar_slots=False)
def add_scalar(x, *, other):
    return x + jnp.asarray(other, x.dtype)


@op("sub_scalar", grad_fn="SubBackward1", saves="none", scalar_slots=False)
def sub_scalar(x, *, other):
    return x - jnp.asarray(other, x.dtype)


@op("mul_scalar", grad_fn="MulBackward1", saves="none", scalar_slots=False)
def mul_scalar(x, *, other):
    return x * jnp.asarray(other, x.dtype)


@op("div_scalar", grad_fn="DivBackward1", saves="none", scalar_slots=False)
def div_scalar(x, *, other):
    return x / jnp.asarray(other, x.dtype)


# The composites trapezoid, gradient and cov call them too, but there the number promotes
# (an integer tensor times 0.5 is float), as the Scalar overloads do; same node names.

@op("mul_scalar_promoting", grad_fn="MulBackward1", saves="none", scalar_slots=False)
def mul_scalar_promoting(x, *, other, dtype):
    return x.astype(dtype) * jnp.asarray(other, dtype)


@op("div_scalar_promoting", grad_fn="DivBackward1", saves="none", scalar_slots=False)
def div_scalar_promoting(x, *, other, dtype):
    return x.astype(dtype) / jnp.asarray(other, dtype)


# ---------------------------------------------------------------- unary

def _unary(name, fn, saves="inputs", grad_fn=None, grad_reads=()):
    def unary(x, *, dtype):
        return fn(_c(x, dtype))
    unary.__name__ = name
    return op(name, saves=saves, grad_fn=grad_fn, grad_reads=grad_reads)(unary)


# PyTorch's gradient of abs at 0 is 0 (JAX's is 1)
_abs = with_tangent(jnp.abs, lambda x, out, t: jnp.sign(x) * t)


neg = _unary("neg", jnp.negative, saves="none")
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
relu = _unary("relu", jax.nn.relu, saves="output", grad_reads=("x",))
reciprocal = _unary("reciprocal", jnp.reciprocal, saves="output")
floor = _unary("floor", jnp.floor, saves="none")
ceil = _unary("ceil", jnp.ceil, saves="none")
trunc = _unary("trunc", jnp.trunc, saves="none")
frac = _unary("frac", lambda x: x - jnp.trunc(x), saves="none")
def _sign(x):
    """PyTorch's ``(0 < x) - (x < 0)``: 0 for NaN and for -0.0 (``jnp.sign`` gives NaN and -0.0);
    complex ``x`` is ``x / |x|``."""
    if x.dtype == bool or jnp.issubdtype(x.dtype, jnp.complexfloating):
        return x if x.dtype == bool else jnp.sign(x)
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


sign = _unary("sign", _sign, saves="none")
square = _unary("square", jnp.square, grad_fn="PowBackward0")
deg2rad = _unary("deg2rad", lambda x: x * jnp.asarray(jnp.pi / 180, x.dtype), saves="none",
                 grad_fn="Deg2RadBackward0")
rad2deg = _unary("rad2deg", lambda x: x * jnp.asarray(180 / jnp.pi, x.dtype), saves="none",
                 grad_fn="Rad2DegBackward0")
sgn = _unary("sgn", _sign, saves={"x": "any", "out": "any"})


@op("round", saves="none")
def round_(x, *, dtype, decimals=0):
    x = _c(x, dtype)
    if decimals == 0:
        return jnp.round(x)
    return jnp.round(x, decimals)


@op("round_decimals", grad_fn="RoundBackward1", saves="none")
def round_decimals(x, *, dtype, decimals):
    # PyTorch scales by 10**decimals, rounds half to even and scales back
    x = _c(x, dtype)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return x
    if decimals >= 0:
        scale = jnp.asarray(10.0 ** decimals, x.dtype)
        return jnp.round(x * scale) / scale
    scale = jnp.asarray(10.0 ** -decimals, x.dtype)
    return jnp.round(x / scale) * scale


@op("nan_to_num", grad_fn="NanToNumBackward0")
def nan_to_num(x, *, dtype, nan, posinf, neginf):
    # the gradient is 1 where x is finite and 0 where it was replaced, as in PyTorch
    x = _c(x, dtype)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return x
    info = jnp.finfo(x.dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    out = jnp.where(jnp.isnan(x), jnp.asarray(nan, x.dtype), x)
    out = jnp.where(x == jnp.inf, jnp.asarray(hi, x.dtype), out)
    return jnp.where(x == -jnp.inf, jnp.asarray(lo, x.dtype), out)


@op("frexp", grad_fn="FrexpBackward0", saves={"out1": "any"})
def frexp(x):
    """``(mantissa, exponent)`` with ``x = mantissa * 2**exponent``; the mantissa's derivative
    is ``2**-exponent`` (PyTorch's ``grad / exponent.exp2()``)."""
    frozen = lax.stop_gradient(x)
    mantissa, exponent = jnp.frexp(frozen)
    scale = jnp.exp2(-exponent.astype(x.dtype))
    return mantissa + (x - frozen) * scale, exponent.astype(jnp.int32)


# ---------------------------------------------------------------- where, copies and fills

@op("where", no_slot=(0,), saves={"cond": "any"})
def where(cond, a, b, *, dtype):
    return jnp.where(cond, _c(a, dtype), _c(b, dtype))


@op("to_copy", grad_fn="ToCopyBackward0", saves="none")
def to_copy(x, *, dtype):
    return x.astype(dtype)


@op("clone", saves="none")
def clone(x):
    return jnp.array(x, copy=True)


@op("copy_into", grad_fn="CopyBackwards", saves="none")
def copy_into(dst, src):
    """``dst`` overwritten by ``src`` (``dst`` gets a zero gradient): ``clone().copy_(src)``."""
    return jnp.broadcast_to(src, dst.shape).astype(dst.dtype)


@op("fill", grad_fn="FillBackward2", saves="none", scalar_slots=False)
def fill(x, value):
    return jnp.full(x.shape, value, x.dtype)


@op("zero", saves="none")
def zero(x):
    return jnp.zeros_like(x)


@op("masked_fill", grad_fn="MaskedFillBackward0", no_slot=(1,), scalar_slots=False, saves={"mask": "any"})
def masked_fill(x, mask, value):
    return jnp.where(mask, jnp.asarray(value, x.dtype), x)


# the value a 0-d tensor: its gradient is the sum of the gradient over the filled places
@op("masked_fill_tensor", grad_fn="MaskedFillBackward1", no_slot=(1,), saves={"mask": "any"})
def masked_fill_tensor(x, mask, value):
    return jnp.where(mask, value.astype(x.dtype), x)
