"""Special functions: the erf and gamma families, Bessel functions, ``sinc``, ``logit``,
``xlogy``, ``xlog1py``, entropy and the normal distribution's ``ndtri``/``log_ndtr``.

Arguments receive the promoted dtype as ``dtype`` and cast inside (as in ``elementwise.py``).
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

erf = _unary("erf", jax.scipy.special.erf)
erfc = _unary("erfc", jax.scipy.special.erfc)
erfinv = _unary("erfinv", jax.scipy.special.erfinv, saves="output")
lgamma = _unary("lgamma", jax.scipy.special.gammaln)
digamma = _unary("digamma", lambda x: jnp.where(x == 0, -jnp.inf, jax.scipy.special.digamma(x)))
sinc = _unary("sinc", jnp.sinc)
i0 = _unary("i0", jsp.i0, grad_fn="I0Backward0")


@jax.custom_jvp
def _entr(x):
    neg = jnp.full_like(x, -jnp.inf)
    safe = jnp.where(x > 0, x, jnp.ones_like(x))
    return jnp.where(x > 0, -safe * jnp.log(safe), jnp.where(x == 0, jnp.zeros_like(x), jnp.where(x < 0, neg, x)))


@_entr.defjvp
def _entr_jvp(primals, tangents):
    # PyTorch: -(log(x) + 1) everywhere (inf at 0, NaN below 0)
    (x,), (dx,) = primals, tangents
    return _entr(x), -(jnp.log(x) + 1) * dx


entr = _unary("special_entr", _entr, grad_fn="SpecialEntrBackward0")
ndtri = _unary("special_ndtri", jsp.ndtri, grad_fn="SpecialNdtriBackward0")
log_ndtr = _unary("special_log_ndtr", jsp.log_ndtr, grad_fn="SpecialLogNdtrBackward0")
i0e = _unary("special_i0e", jsp.i0e, grad_fn="SpecialI0EBackward0")
i1 = _unary("special_i1", jsp.i1, grad_fn="SpecialI1Backward0")
i1e = _unary("special_i1e", jsp.i1e, grad_fn="SpecialI1EBackward0")
erfcx = _unary("special_erfcx", jsp.erfcx, grad_fn="SpecialErfcxBackward0")


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


@op("xlogy")
def xlogy(a, b, *, dtype):
    return _xlogy(_c(a, dtype), _c(b, dtype))


@op("xlogy_scalar_self", grad_fn="XlogyBackward1", scalar_slots=False)
def xlogy_scalar_self(b, a, *, dtype):
    return _xlogy(_c(a, dtype), _c(b, dtype))


@op("xlogy_scalar_other", grad_fn="XlogyBackward2", scalar_slots=False)
def xlogy_scalar_other(a, b, *, dtype):
    return _xlogy(_c(a, dtype), _c(b, dtype))


_xlog1py = x_times_log(jnp.log1p, lambda y: 1 + y)


@op("special_xlog1py", grad_fn="SpecialXlog1PyBackward0")
def xlog1py(a, b, *, dtype):
    return _xlog1py(jnp.asarray(a, dtype), jnp.asarray(b, dtype))


@op("special_xlog1py_scalar_self", grad_fn="SpecialXlog1PyBackward1", scalar_slots=False)
def xlog1py_scalar_self(b, a, *, dtype):
    return _xlog1py(jnp.asarray(a, dtype), jnp.asarray(b, dtype))


@op("special_xlog1py_scalar_other", grad_fn="SpecialXlog1PyBackward2", scalar_slots=False)
def xlog1py_scalar_other(a, b, *, dtype):
    return _xlog1py(jnp.asarray(a, dtype), jnp.asarray(b, dtype))
