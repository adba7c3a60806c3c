"""The orthogonal polynomials of ``torch.special`` (Chebyshev T/U/V/W and their shifted forms,
Hermite H/He, Laguerre L, Legendre P) as PyTorch's CPU kernels compute them.

``n`` is truncated to an integer as PyTorch's ``static_cast<int64_t>`` does (NaN, infinities and
values beyond int64 become a negative degree, whose polynomial is 0). Each polynomial has
PyTorch's closed forms (at ``|x| == 1``, for large ``n`` inside ``(-1, 1)`` the trigonometric
form) and otherwise its three-term recurrence, run by one ``lax.while_loop`` up to the largest
degree among the elements (an element stops at its own degree, or when its value is NaN).
PyTorch defines no derivative: the ops are non-differentiable.
"""

import jax.numpy as jnp
import numpy as np
from jax import lax

from .registry import op


def degree(n):
    """``n`` truncated toward zero, with -1 where PyTorch's int64 cast of it is out of range."""
    t = jnp.trunc(n)
    return jnp.where(jnp.isfinite(t) & (jnp.abs(t) < 2.0 ** 63), t, -1.0).astype(n.dtype)


def _recurrence(n, q1, step):
    """The value of degree ``n`` of ``P_0 = 1``, ``P_1 = q1``, ``P_{j+1} = step(j, P_{j-1}, P_j)``
    (elements of degree below 2 get ``q1``)."""
    def cond(state):
        return jnp.any(state[-1])

    def body(state):
        j, p, q, active = state
        r = step(j.astype(q.dtype), p, q)
        p = jnp.where(active, q, p)
        q = jnp.where(active, r, q)
        j = j + 1
        return j, p, q, active & (j.astype(n.dtype) < n) & ~jnp.isnan(q)

    active = (n >= 2) & ~jnp.isnan(q1)
    state = (jnp.asarray(1, jnp.int32), jnp.ones_like(q1), q1, active)
    return lax.while_loop(cond, body, state)[2]


def _pick(cases, otherwise):
    """The value of the first ``(mask, value)`` whose mask holds, else ``otherwise``."""
    out = otherwise
    for mask, value in reversed(cases):
        out = jnp.where(mask, value, out)
    return out


def _polynomial(name, cases, q1, step):
    """Register ``name(x, n)``: ``cases(x, n)`` are PyTorch's closed forms in order, before the
    recurrence; elements a case covers do not run the recurrence."""
    def polynomial(x, n, *, dtype):
        x, n = jnp.broadcast_arrays(jnp.asarray(x, dtype), jnp.asarray(n, dtype))
        n = degree(n)
        zero = jnp.zeros_like(x)
        one = jnp.ones_like(x)
        closed = [(n < 0, zero)] + cases(x, n) + [(n == 0, one)]
        covered = jnp.zeros(x.shape, bool)
        for mask, _ in closed:
            covered = covered | mask
        looped = _recurrence(jnp.where(covered, zero, n), q1(x), lambda j, p, q: step(x, j, p, q))
        return _pick(closed, looped)
    polynomial.__name__ = name
    return op(f"special_{name}", saves="none", differentiable=False)(polynomial)


def _even(n):
    return jnp.fmod(n, 2.0) == 0


def _signed(positive, value):
    return jnp.where(positive, value, -value)


# ---------------------------------------------------------------- Chebyshev T, U, V, W

def _t_cases(x, n, y, at_plus, at_minus, trig_from):
    """T's closed forms in the variable ``y`` (``x`` or the shifted ``2x - 1``): ``at_plus``
    and ``at_minus`` are the masks of ``y == 1`` and ``y == -1``."""
    one = jnp.ones_like(x)
    inside = (n > trig_from) & (jnp.abs(y) < 1)
    return [(at_plus, one), (at_minus, _signed(_even(n), one)),
            (inside, jnp.cos(n * jnp.arccos(_inside(inside, y))))]


def _inside(mask, y):
    return jnp.where(mask, y, jnp.zeros_like(y))


def _u_cases(x, n, y, at_plus, at_minus, trig_from):
    inside = (n > trig_from) & (jnp.abs(y) < 1)
    yi = _inside(inside, y)
    theta = jnp.arccos(yi)
    sin = jnp.sin(theta)
    trig = jnp.where(sin != 0, jnp.sin((n + 1) * theta) / jnp.where(sin != 0, sin, 1.0),
                     (n + 1) * jnp.cos((n + 1) * theta) / yi)
    return [(at_plus, n + 1), (at_minus, _signed(_even(n), n + 1)), (inside, trig)]


def _v_cases(x, n, y, at_plus, at_minus, trig_from):
    one = jnp.ones_like(x)
    inside = (n > trig_from) & (jnp.abs(y) < 1)
    theta = jnp.arccos(_inside(inside, y))
    edge = _signed(_even(n), n + n + 1)
    trig = jnp.where(jnp.sin(theta / 2) != 1, jnp.cos((n + 0.5) * theta) / jnp.cos(theta / 2), edge)
    return [(at_plus, one), (at_minus, edge), (inside, trig)]


def _w_cases(x, n, y, at_plus, at_minus, trig_from, shifted=False):
    one = jnp.ones_like(x)
    inside = (n > trig_from) & (jnp.abs(y) < 1)
    theta = jnp.arccos(_inside(inside, y))
    # PyTorch's fallback where cos(theta / 2) == 1 (theta tiny): the value at y == 1 unshifted,
    # at y == -1 (x == 0) shifted
    edge = _signed(_even(n), one) if shifted else jnp.where(y > 0, n + n + 1, _signed(_even(n), one))
    half = jnp.sin(theta / 2)
    trig = jnp.where(jnp.cos(theta / 2) != 1, jnp.sin((n + 0.5) * theta) / jnp.where(half != 0, half, 1.0), edge)
    return [(at_plus, n + n + 1), (at_minus, _signed(_even(n), one)), (inside, trig)]


def _chebyshev(kind, cases, trig_from, q1):
    def unshifted(x, n):
        # PyTorch tests |x| == 1 first, then the sign
        edge = jnp.abs(x) == 1
        return cases(x, n, x, edge & (x > 0), edge & ~(x > 0), trig_from)
    return _polynomial(f"chebyshev_polynomial_{kind}", unshifted, q1, lambda x, j, p, q: (x + x) * q - p)


def _shifted(kind, cases, trig_from, q1):
    def shifted(x, n):
        y = x + x - 1
        kw = {"shifted": True} if kind == "w" else {}
        return cases(x, n, y, x == 1, x == 0, trig_from, **kw)

    def step(x, j, p, q):
        y = x + x - 1
        return (y + y) * q - p
    return _polynomial(f"shifted_chebyshev_polynomial_{kind}", shifted, lambda x: q1(x + x - 1), step)


chebyshev_polynomial_t = _chebyshev("t", _t_cases, 6, lambda x: x)
chebyshev_polynomial_u = _chebyshev("u", _u_cases, 8, lambda x: x + x)
chebyshev_polynomial_v = _chebyshev("v", _v_cases, 8, lambda x: x + x - 1)
chebyshev_polynomial_w = _chebyshev("w", _w_cases, 8, lambda x: x + x + 1)
shifted_chebyshev_polynomial_t = _shifted("t", _t_cases, 6, lambda y: y)
shifted_chebyshev_polynomial_u = _shifted("u", _u_cases, 6, lambda y: y + y)
shifted_chebyshev_polynomial_v = _shifted("v", _v_cases, 6, lambda y: y + y - 1)
shifted_chebyshev_polynomial_w = _shifted("w", _w_cases, 4, lambda y: y + y + 1)


# ---------------------------------------------------------------- Hermite, Laguerre, Legendre

def _hermite_limit(x):
    """PyTorch's largest Hermite degree: beyond it the value is NaN."""
    return 128 if x.dtype == np.float32 else 512


def _hermite_cases(first):
    def cases(x, n):
        return [(n == 1, first(x)), (n > _hermite_limit(x), jnp.full_like(x, jnp.nan))]
    return cases


hermite_polynomial_h = _polynomial("hermite_polynomial_h", _hermite_cases(lambda x: x + x), lambda x: x + x,
                                   lambda x, j, p, q: (x + x) * q - (j + j) * p)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _hermite_cases(lambda x: x), lambda x: x,
                                    lambda x, j, p, q: x * q - j * p)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", lambda x, n: [(x == 0, jnp.ones_like(x))],
                                    lambda x: 1 - x,
                                    lambda x, j, p, q: (((j + j) + (1 - x)) * q - j * p) / (j + 1))


def _legendre_cases(x, n):
    one = jnp.ones_like(x)
    return [(jnp.abs(x) == 1, _signed((x > 0) | _even(n), one))]


legendre_polynomial_p = _polynomial("legendre_polynomial_p", _legendre_cases, lambda x: x,
                                    lambda x, j, p, q: ((j + j + 1) * x * q - j * p) / (j + 1))
