"""More elementwise ops: special functions, float-only binaries, clamps with tensor bounds.

Binary ops receive the promoted dtype as ``dtype`` and cast inside (as in ``elementwise.py``).
Where PyTorch's derivative differs from JAX's at a special point, the op says so and builds
PyTorch's with ``jnp.where`` (which routes the gradient to the branch taken) or a custom JVP.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy import special as jsp

from .registry import op


def _c(x, dtype):
    return jnp.asarray(x, dtype)


def _unary(name, fn, saves="inputs", grad_fn=None):
    def unary(x, *, dtype):
        return fn(_c(x, dtype))
    unary.__name__ = name
    return op(name, saves=saves, grad_fn=grad_fn)(unary)


# ---------------------------------------------------------------- unary

sinc = _unary("sinc", jnp.sinc)
deg2rad = _unary("deg2rad", lambda x: x * jnp.asarray(jnp.pi / 180, x.dtype), saves="none",
                 grad_fn="Deg2RadBackward0")
rad2deg = _unary("rad2deg", lambda x: x * jnp.asarray(180 / jnp.pi, x.dtype), saves="none",
                 grad_fn="Rad2DegBackward0")
i0 = _unary("i0", jsp.i0, grad_fn="I0Backward0")
sgn = _unary("sgn", lambda x: x if x.dtype == jnp.bool_ else jnp.sign(x), saves="none")


@op("signbit", differentiable=False)
def signbit(x):
    return jnp.signbit(x)


@op("isposinf", differentiable=False)
def isposinf(x):
    return jnp.isposinf(x)


@op("isneginf", differentiable=False)
def isneginf(x):
    return jnp.isneginf(x)


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


@op("logit")
def logit(x, *, dtype, eps):
    x = _c(x, dtype)
    if eps is not None:
        # clamp with a pass-through gradient on the closed interval [eps, 1 - eps], as PyTorch
        lo = jnp.asarray(eps, x.dtype)
        hi = jnp.asarray(1 - eps, x.dtype)
        x = jnp.where(x < lo, lax.stop_gradient(lo), jnp.where(x > hi, lax.stop_gradient(hi), x))
    return jnp.log(x / (1 - x))


@op("polygamma", scalar_slots=False)
def polygamma(x, *, dtype, n):
    x = _c(x, dtype)
    if n == 0:
        return jsp.digamma(x)
    # the pole at 0 is +inf (odd n) or -inf (even n), as PyTorch
    pole = jnp.asarray(jnp.inf if n % 2 else -jnp.inf, x.dtype)
    return jnp.where(x == 0, pole, jsp.polygamma(n, x))


@op("mvlgamma")
def mvlgamma(x, *, dtype, p):
    return jsp.multigammaln(_c(x, dtype), p)


# ---------------------------------------------------------------- clamps with tensor bounds

@op("clamp_tensor", grad_fn="ClampBackward0")
def clamp_tensor(x, lo, hi, *, dtype, has_lo, has_hi):
    """``clamp`` with tensor bounds; an absent bound is passed as 0 with ``has_*`` False.

    PyTorch routes the gradient to x where ``lo <= x <= hi``, to lo where ``x < lo < hi`` and
    to hi where ``x > hi`` or ``hi < lo``; ``where`` does the routing here.
    """
    x = _c(x, dtype)
    lo = _c(lo, dtype)
    hi = _c(hi, dtype)
    if has_lo and has_hi:
        value = jnp.minimum(jnp.maximum(x, lo), hi)
        x_in = (x >= lo) & (x <= hi)
        to_lo = (x < lo) & (lo < hi)
        to_hi = (x > hi) | (hi < lo)
        return jnp.where(x_in, x, jnp.where(to_lo, lo, jnp.where(to_hi, hi, lax.stop_gradient(value))))
    if has_lo:
        return _clamp_one(x, lo, jnp.maximum(x, lo), x >= lo)
    return _clamp_one(x, hi, jnp.minimum(x, hi), x <= hi)


def _clamp_one(x, bound, value, keep):
    # x's gradient where it is kept (the bound is inclusive), the bound's elsewhere; NaN in x
    # propagates through ``value``
    return jnp.where(keep, x, jnp.where(jnp.isnan(x), lax.stop_gradient(value), bound))


@op("clamp_min_tensor", grad_fn="ClampMinBackward1")
def clamp_min_tensor(x, lo, *, dtype):
    x, lo = _c(x, dtype), _c(lo, dtype)
    return _clamp_one(x, lo, jnp.maximum(x, lo), x >= lo)


@op("clamp_max_tensor", grad_fn="ClampMaxBackward1")
def clamp_max_tensor(x, hi, *, dtype):
    x, hi = _c(x, dtype), _c(hi, dtype)
    return _clamp_one(x, hi, jnp.minimum(x, hi), x <= hi)


@op("clamp_min", grad_fn="ClampMinBackward0", scalar_slots=False)
def clamp_min(x, lo, *, dtype):
    x = _c(x, dtype)
    lo = lax.stop_gradient(jnp.broadcast_to(_c(lo, dtype), x.shape))
    return _clamp_one(x, lo, jnp.maximum(x, lo), x >= lo)


@op("clamp_max", grad_fn="ClampMaxBackward0", scalar_slots=False)
def clamp_max(x, hi, *, dtype):
    x = _c(x, dtype)
    hi = lax.stop_gradient(jnp.broadcast_to(_c(hi, dtype), x.shape))
    return _clamp_one(x, hi, jnp.minimum(x, hi), x <= hi)


# ---------------------------------------------------------------- binary

@op("fmod", grad_fn="FmodBackward1")
def fmod(a, b, *, dtype):
    return jnp.fmod(_c(a, dtype), _c(b, dtype))


@op("fmod_scalar", grad_fn="FmodBackward0", scalar_slots=False)
def fmod_scalar(a, b, *, dtype):
    return jnp.fmod(_c(a, dtype), _c(b, dtype))


@op("remainder_scalar", grad_fn="RemainderBackward0", scalar_slots=False)
def remainder_scalar(a, b, *, dtype):
    return jnp.remainder(_c(a, dtype), _c(b, dtype))


@op("fmax")
def fmax(a, b, *, dtype):
    # ties and NaN in b give the gradient to a, as PyTorch
    a, b = _c(a, dtype), _c(b, dtype)
    return jnp.where((a >= b) | jnp.isnan(b), a, b)


@op("fmin")
def fmin(a, b, *, dtype):
    a, b = _c(a, dtype), _c(b, dtype)
    return jnp.where((a <= b) | jnp.isnan(b), a, b)


@jax.custom_jvp
def _hypot(a, b):
    return jnp.hypot(a, b)


@_hypot.defjvp
def _hypot_jvp(primals, tangents):
    # PyTorch: a / out and b / out, which is NaN at (0, 0) (JAX's rule gives a finite value)
    a, b = primals
    da, db = tangents
    out = jnp.hypot(a, b)
    return out, a / out * da + b / out * db


@op("hypot")
def hypot(a, b, *, dtype):
    return _hypot(_c(a, dtype), _c(b, dtype))


def _lerp(a, b, w):
    # PyTorch's two-sided formula, exact at both ends
    return jnp.where(jnp.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


@op("lerp", grad_fn="LerpBackward0", scalar_slots=False)
def lerp_scalar(a, b, weight, *, dtype):
    return _lerp(_c(a, dtype), _c(b, dtype), _c(weight, dtype))


@op("lerp_tensor", grad_fn="LerpBackward1")
def lerp_tensor(a, b, weight, *, dtype):
    return _lerp(_c(a, dtype), _c(b, dtype), _c(weight, dtype))


@op("logaddexp")
def logaddexp(a, b, *, dtype):
    return jnp.logaddexp(_c(a, dtype), _c(b, dtype))


@op("logaddexp2", grad_fn="Logaddexp2Backward0")
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


@op("copysign")
def copysign(a, b, *, dtype):
    return _copysign(_c(a, dtype), _c(b, dtype))


@op("copysign_scalar", grad_fn="CopysignBackward1", scalar_slots=False)
def copysign_scalar(a, b, *, dtype):
    return _copysign(_c(a, dtype), _c(b, dtype))


def x_times_log(log, log_denominator):
    """``x * log(y)`` as PyTorch's xlogy/xlog1py: 0 where ``x == 0`` (unless ``y`` is NaN);
    d/dx = ``log(y)`` where ``x != 0``, else 0; d/dy = ``x / log_denominator(y)`` (``log``'s
    derivative is ``1 / log_denominator``)."""
    @jax.custom_jvp
    def f(x, y):
        out = x * log(y)
        return jnp.where((x == 0) & ~jnp.isnan(y), jnp.zeros_like(out), out)

    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        dx, dy = tangents
        dlog = jnp.where(x != 0, log(y), jnp.zeros_like(y))
        return f(x, y), dlog * dx + x / log_denominator(y) * dy

    return f


_xlogy = x_times_log(jnp.log, lambda y: y)


@op("xlogy")
def xlogy(a, b, *, dtype):
    return _xlogy(_c(a, dtype), _c(b, dtype))


@op("xlogy_scalar_self", grad_fn="XlogyBackward1", scalar_slots=False)
def xlogy_scalar_self(b, a, *, dtype):
    return _xlogy(_c(a, dtype), _c(b, dtype))


@op("xlogy_scalar_other", grad_fn="XlogyBackward2", scalar_slots=False)
def xlogy_scalar_other(a, b, *, dtype):
    return _xlogy(_c(a, dtype), _c(b, dtype))


@op("ldexp")
def ldexp(a, b, *, dtype):
    return _c(a, dtype) * jnp.exp2(_c(b, dtype))


@op("nextafter", differentiable=False)
def nextafter(a, b, *, dtype):
    return jnp.nextafter(_c(a, dtype), _c(b, dtype))


@op("heaviside", differentiable=False)
def heaviside(a, b, *, dtype):
    a, b = _c(a, dtype), _c(b, dtype)
    return jnp.where(a == 0, b, (a > 0).astype(dtype))


@op("addcmul")
def addcmul(x, t1, t2, *, dtype, value):
    # the number is cast to the result dtype first (0.5 is 0 for integers), as PyTorch
    return _c(x, dtype) + _c(value, dtype) * _c(t1, dtype) * _c(t2, dtype)


@op("addcdiv")
def addcdiv(x, t1, t2, *, dtype, value):
    return _c(x, dtype) + _c(value, dtype) * (_c(t1, dtype) / _c(t2, dtype))


def _shift(name, fn):
    def shift(a, b, *, dtype):
        a, b = _c(a, dtype), _c(b, dtype)
        bits = jnp.iinfo(dtype).bits
        # PyTorch gives 0 (left) or the sign fill (right) for shifts past the width
        wide = (b >= bits) | (b < 0)
        safe = jnp.where(wide, jnp.zeros_like(b), b)
        out = fn(a, safe)
        if name == "bitwise_left_shift":
            return jnp.where(wide, jnp.zeros_like(out), out)
        return jnp.where(wide, jnp.where(a < 0, -jnp.ones_like(out), jnp.zeros_like(out)), out)
    shift.__name__ = name
    return op(name, differentiable=False)(shift)


bitwise_left_shift = _shift("bitwise_left_shift", jnp.left_shift)
bitwise_right_shift = _shift("bitwise_right_shift", jnp.right_shift)


def _int_binary(name, fn):
    def int_binary(a, b, *, dtype):
        return fn(_c(a, dtype), _c(b, dtype))
    int_binary.__name__ = name
    return op(name, differentiable=False)(int_binary)


gcd = _int_binary("gcd", jnp.gcd)
lcm = _int_binary("lcm", jnp.lcm)
