"""Special functions: the erf and gamma families, Bessel functions, ``sinc``, ``logit``,
``xlogy``, ``xlog1py``, entropy and the normal distribution's ``ndtri``/``log_ndtr``.

Arguments receive the promoted dtype as ``dtype`` and cast inside (as in ``elementwise.py``).
Where PyTorch's derivative differs from JAX's at a special point, the op says so and builds
PyTorch's with ``jnp.where`` (which routes the gradient to the branch taken) or a custom JVP.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import numpy.polynomial.polynomial as npoly
from jax import lax
from jax.scipy import special as jsp

from .registry import op, with_tangent


def _c(x, dtype):
    return jnp.asarray(x, dtype)


def _unary(name, fn, saves="inputs", grad_fn=None):
    def unary(x, *, dtype):
        return fn(_c(x, dtype))
    unary.__name__ = name
    return op(name, saves=saves, grad_fn=grad_fn)(unary)


# ---------------------------------------------------------------- the gamma family

def _cot_derivative(n):
    """Coefficients (lowest first) of the polynomial ``P`` with ``d^n/dy^n cot(y) = P(cot(y))``
    (from ``cot' = -(1 + cot²)``)."""
    coeffs = np.array([0.0, 1.0])
    for _ in range(n):
        coeffs = -npoly.polymul(npoly.polyder(coeffs), [1.0, 0.0, 1.0])
    return coeffs


def _polygamma_value(n, x, own):
    """``polygamma(n, x)`` with PyTorch's values at the poles and for negative ``x``.

    JAX's series is right for ``x > 0`` only; below 0 the reflection formula
    ``ψ⁽ⁿ⁾(x) = (-1)ⁿ ψ⁽ⁿ⁾(1 - x) - π dⁿ/dxⁿ cot(πx)`` gives it (cot read at the fractional
    part of x, where it is accurate). PyTorch's poles: digamma is ``-inf`` at +0, ``+inf`` at
    -0 and NaN at the negative integers; polygamma(n >= 2) is ``(-1)ⁿ⁺¹ inf`` at every
    non-positive integer; trigamma reflects through ``π² / sin²(πx)``, which stays finite (and
    huge) at the negative integers, as PyTorch's does. ``x`` is float64 (PyTorch computes in
    double for float32 too), ``own`` the input in its own dtype, in which PyTorch's trigamma
    takes its sine.
    """
    negative = x < 0
    y = jnp.where(negative, 1 - x, x)
    direct = jsp.digamma(y) if n == 0 else jsp.polygamma(n, y)
    frac = x - jnp.trunc(x)
    pi = jnp.asarray(np.pi, x.dtype)
    if n == 1:
        pi_own = jnp.asarray(np.pi, own.dtype)
        reflection = (pi_own * pi_own / jnp.square(jnp.sin(pi_own * own))).astype(x.dtype)
    else:
        cot = jnp.cos(pi * frac) / jnp.sin(pi * frac)
        reflection = -(pi ** (n + 1)) * npoly.polyval(cot, _cot_derivative(n).astype(x.dtype))
    value = jnp.where(negative, (-1) ** n * direct + reflection, direct)
    pole = (x == jnp.trunc(x)) & (x <= 0)
    if n == 0:
        at_pole = jnp.where(x == 0, jnp.copysign(jnp.asarray(jnp.inf, x.dtype), -x), jnp.nan)
    elif n == 1:
        at_pole = jnp.where(x == 0, jnp.inf, value)
    else:
        at_pole = jnp.full_like(x, jnp.inf if n % 2 else -jnp.inf)
    return jnp.where(pole, at_pole, value)


@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def _polygamma(n, x):
    return _polygamma_value(n, x.astype(jnp.float64), x).astype(x.dtype)


@_polygamma.defjvp
def _polygamma_jvp(n, primals, tangents):
    (x,), (t,) = primals, tangents
    return _polygamma(n, x), _polygamma(n + 1, x) * t


# lgamma' is digamma, with its poles: -inf at +0, +inf at -0, NaN at the negative integers;
# the value in float64, as PyTorch's float32 lgamma is accurate near its zeros
_lgamma = with_tangent(lambda x: jsp.gammaln(x.astype(jnp.float64)).astype(x.dtype),
                       lambda x, out, t: _polygamma(0, x) * t)


# ---------------------------------------------------------------- unary

# i0' = i1 (0 at 0; JAX's rule gives 1 there)
_i0 = with_tangent(jsp.i0, lambda x, out, t: jsp.i1(x) * t)

erf = _unary("erf", jax.scipy.special.erf)
erfc = _unary("erfc", jax.scipy.special.erfc)
erfinv = _unary("erfinv", jax.scipy.special.erfinv, saves={"x": "any"})
lgamma = _unary("lgamma", _lgamma)
digamma = _unary("digamma", lambda x: _polygamma(0, x))
sinc = _unary("sinc", jnp.sinc)
i0 = _unary("i0", _i0, grad_fn="I0Backward0")


def _entr_value(x):
    neg = jnp.full_like(x, -jnp.inf)
    safe = jnp.where(x > 0, x, jnp.ones_like(x))
    return jnp.where(x > 0, -safe * jnp.log(safe), jnp.where(x == 0, jnp.zeros_like(x), jnp.where(x < 0, neg, x)))


# PyTorch: -(log(x) + 1) everywhere (inf at 0, NaN below 0)
_entr = with_tangent(_entr_value, lambda x, out, t: -(jnp.log(x) + 1) * t)
entr = _unary("special_entr", _entr, grad_fn="SpecialEntrBackward0")
ndtri = _unary("special_ndtri", jsp.ndtri, grad_fn="SpecialNdtriBackward0", saves={"out": "any"})
log_ndtr = _unary("special_log_ndtr", jsp.log_ndtr, grad_fn="SpecialLogNdtrBackward0", saves={"x": "any", "out": "any"})
i0e = _unary("special_i0e", jsp.i0e, grad_fn="SpecialI0EBackward0", saves={"x": "any", "out": "any"})
i1 = _unary("special_i1", jsp.i1, grad_fn="SpecialI1Backward0", saves={"x": "any", "out": "any"})
i1e = _unary("special_i1e", jsp.i1e, grad_fn="SpecialI1EBackward0", saves={"x": "any", "out": "any"})
erfcx = _unary("special_erfcx", jsp.erfcx, grad_fn="SpecialErfcxBackward0", saves={"x": "any", "out": "any"})


# PyTorch: grad / (x (1 - x)), +inf at 0 and at 1 (JAX's rule gives NaN there)
_logit = with_tangent(lambda x: jnp.log(x / (1 - x)), lambda x, out, t: t / (x * (1 - x)))


@op("logit")
def logit(x, *, dtype, eps):
    x = _c(x, dtype)
    if eps is not None:
        # clamp with a pass-through gradient on the closed interval [eps, 1 - eps], as PyTorch
        lo = jnp.asarray(eps, x.dtype)
        hi = jnp.asarray(1 - eps, x.dtype)
        x = jnp.where(x < lo, lax.stop_gradient(lo), jnp.where(x > hi, lax.stop_gradient(hi), x))
    return _logit(x)


@op("polygamma", scalar_slots=False)
def polygamma(x, *, dtype, n):
    return _polygamma(n, _c(x, dtype))


@op("mvlgamma")
def mvlgamma(x, *, dtype, p):
    return jsp.multigammaln(_c(x, dtype), p)


# ---------------------------------------------------------------- x * log(y)

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


@op("xlogy", saves={"a": "any", "b": "any"})
def xlogy(a, b, *, dtype):
    return _xlogy(_c(a, dtype), _c(b, dtype))


@op("xlogy_scalar_self", grad_fn="XlogyBackward1", scalar_slots=False, saves={"b": "any"})
def xlogy_scalar_self(b, a, *, dtype):
    return _xlogy(_c(a, dtype), _c(b, dtype))


@op("xlogy_scalar_other", grad_fn="XlogyBackward2", scalar_slots=False, saves={"a": "any"})
def xlogy_scalar_other(a, b, *, dtype):
    return _xlogy(_c(a, dtype), _c(b, dtype))


_xlog1py = x_times_log(jnp.log1p, lambda y: 1 + y)


@op("special_xlog1py", grad_fn="SpecialXlog1PyBackward0", saves={"a": "any", "b": "any"})
def xlog1py(a, b, *, dtype):
    return _xlog1py(jnp.asarray(a, dtype), jnp.asarray(b, dtype))


@op("special_xlog1py_scalar_self", grad_fn="SpecialXlog1PyBackward1", scalar_slots=False, saves={"b": "any"})
def xlog1py_scalar_self(b, a, *, dtype):
    return _xlog1py(jnp.asarray(a, dtype), jnp.asarray(b, dtype))


@op("special_xlog1py_scalar_other", grad_fn="SpecialXlog1PyBackward2", scalar_slots=False, saves={"a": "any"})
def xlog1py_scalar_other(a, b, *, dtype):
    return _xlog1py(jnp.asarray(a, dtype), jnp.asarray(b, dtype))


# ---------------------------------------------------------------- zeta, the incomplete gamma functions

def no_derivative(message):
    """The identity on an array whose backward raises PyTorch's ``NotImplementedError(message)``
    (its ``not_implemented`` derivative): an op passes the argument PyTorch does not
    differentiate through it; when that argument needs no gradient the function is not traced
    through and nothing raises."""
    @jax.custom_vjp
    def f(x):
        return x

    def f_fwd(x):
        return x, None

    def f_bwd(residuals, g):
        raise NotImplementedError(message)

    f.defvjp(f_fwd, f_bwd)
    return f


def _first_of(cases, otherwise):
    """The value of the first ``(mask, value)`` whose mask holds, else ``otherwise``."""
    out = otherwise
    for mask, value in reversed(cases):
        out = jnp.where(mask, jnp.asarray(value, out.dtype), out)
    return out


def _zeta_value(x, q):
    """The Hurwitz zeta function with PyTorch's (Cephes') values outside JAX's domain."""
    inf = jnp.inf
    pole = (q <= 0) & (q == jnp.floor(q))
    big = x == inf
    cases = [(x == 1, inf), (x < 1, jnp.nan), (pole, inf), ((q <= 0) & (x != jnp.floor(x)), jnp.nan),
             (big & (q < 0), inf), (big & (q > 0) & (q < 1), inf), (big & (q == 1), 1.0)]
    return _first_of(cases, jsp.zeta(x, q))


@jax.custom_jvp
def _zeta(x, q):
    return _zeta_value(x, q)


@_zeta.defjvp
def _zeta_jvp(primals, tangents):
    # d/dq = -x zeta(x + 1, q); the x tangent enters with a zero coefficient, so that its
    # transpose reaches ``no_derivative``'s backward (which raises)
    (x, q), (tx, tq) = primals, tangents
    return _zeta(x, q), -x * _zeta(x + 1, q) * tq + jnp.zeros_like(x) * tx


_zeta_x = no_derivative("the derivative for 'zeta' is not implemented.")


def _zeta_op(x, q, dtype):
    return _zeta(_zeta_x(_c(x, dtype)), _c(q, dtype))


@op("special_zeta", grad_fn="SpecialZetaBackward0")
def zeta(x, q, *, dtype):
    return _zeta_op(x, q, dtype)


@op("special_zeta_scalar_self", grad_fn="SpecialZetaBackward1", scalar_slots=False, saves={"q": "any"})
def zeta_scalar_self(q, x, *, dtype):
    return _zeta_op(x, q, dtype)


@op("special_zeta_scalar_other", grad_fn="SpecialZetaBackward2", scalar_slots=False, saves={"x": "any"})
def zeta_scalar_other(x, q, *, dtype):
    return _zeta_op(x, q, dtype)


def _incomplete_gamma(a, x, upper):
    """PyTorch's ``calc_igamma``/``calc_igammac``: its values at the domain's edges, JAX's
    regularized incomplete gamma function elsewhere, in float64 (JAX's float32 loses digits
    where ``a`` and ``x`` are large and close)."""
    wide = jnp.float64
    a64, x64 = a.astype(wide), x.astype(wide)
    lower_value, upper_value = (0.0, 1.0) if not upper else (1.0, 0.0)
    inner = jsp.gammaincc(a64, x64) if upper else jsp.gammainc(a64, x64)
    cases = [((x64 < 0) | (a64 < 0), jnp.nan),
             ((a64 == 0) & (x64 > 0), upper_value), (a64 == 0, jnp.nan),
             (x64 == 0, lower_value),
             (jnp.isinf(a64) & jnp.isinf(x64), jnp.nan), (jnp.isinf(a64), lower_value),
             (jnp.isinf(x64), upper_value)]
    return _first_of(cases, inner).astype(a.dtype)


def _igamma_jvp_rule(upper):
    @jax.custom_jvp
    def f(a, x):
        return _incomplete_gamma(a, x, upper)

    @f.defjvp
    def f_jvp(primals, tangents):
        # d/dx P(a, x) = exp((a - 1) log(x) - x - lgamma(a)), PyTorch's formula; Q's is its negative
        (a, x), (ta, tx) = primals, tangents
        density = jnp.exp((a - 1) * jnp.log(x) - x - jsp.gammaln(a))
        return f(a, x), (-density if upper else density) * tx + jnp.zeros_like(a) * ta

    return f


_igamma, _igammac = _igamma_jvp_rule(False), _igamma_jvp_rule(True)
_igamma_a = no_derivative("the derivative for 'igamma: input' is not implemented.")
_igammac_a = no_derivative("the derivative for 'igammac: input' is not implemented.")


@op("igamma")
def igamma(a, x, *, dtype):
    return _igamma(_igamma_a(_c(a, dtype)), _c(x, dtype))


@op("igammac")
def igammac(a, x, *, dtype):
    return _igammac(_igammac_a(_c(a, dtype)), _c(x, dtype))
