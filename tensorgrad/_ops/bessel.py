"""Bessel and Airy functions as PyTorch's CPU kernels compute them: Cephes' rational and
Chebyshev approximations (the tables in ``cephes_tables.py``), evaluated in the input's dtype,
with PyTorch's values at 0, at negative arguments and at infinity.

PyTorch defines no derivative for any of them, so the ops are registered non-differentiable:
their outputs never require grad. Every branch is computed on an argument that is safe for it
and the branch PyTorch takes is picked with ``jnp.where``.
"""

import jax.numpy as jnp
import numpy as np
from jax import lax

from . import cephes_tables as C
from .registry import op

_QUARTER_PI = 0.785398163397448309615660845819875721
_THREE_QUARTER_PI = 2.356194490192344928846982537459627163
_SQRT_2_OVER_PI = 0.797884560802865355879892119868763737
_TWO_OVER_PI = 0.636619772367581343075535053490057448


def _horner(coeffs, z):
    """``sum coeffs[i] z^(n-1-i)``: the highest power first, as Cephes' ``polevl``."""
    acc = jnp.zeros_like(z)
    for c in coeffs:
        acc = acc * z + jnp.asarray(c, z.dtype)
    return acc


def chebyshev_series(coeffs, y):
    """Cephes' ``chbevl``: the Chebyshev series ``coeffs`` (highest order first) at ``y / 2``."""
    p = jnp.zeros_like(y)
    q = jnp.zeros_like(y)
    a = jnp.full_like(y, coeffs[0])
    for c in coeffs[1:]:
        p, q = q, a
        a = y * q - p + jnp.asarray(c, y.dtype)
    return 0.5 * (a - p)


def _const(x, value):
    return jnp.full_like(x, value)


def _safe(mask, x, fill):
    """``x`` where ``mask`` holds, else ``fill``: keeps the branch not taken finite."""
    return jnp.where(mask, x, jnp.asarray(fill, x.dtype))


# ---------------------------------------------------------------- J0, J1, Y0, Y1

def _hankel(x, pp, pq, qp, qq, phase, z, second_kind):
    """The large-argument form ``sqrt(2 / (pi x)) (P cos(x - phase) - 5/x Q sin(x - phase))``
    (for the second kind: ``P sin + 5/x Q cos``)."""
    p = _horner(pp, z) / _horner(pq, z)
    q = _horner(qp, z) / _horner(qq, z)
    shifted = x - jnp.asarray(phase, x.dtype)
    if second_kind:
        value = p * jnp.sin(shifted) + 5.0 / x * q * jnp.cos(shifted)
    else:
        value = p * jnp.cos(shifted) - 5.0 / x * q * jnp.sin(shifted)
    return value * jnp.asarray(_SQRT_2_OVER_PI, x.dtype) / jnp.sqrt(x)


def _j0(x):
    x = jnp.abs(x)
    small = x <= 5.0
    s = _safe(small, x, 1.0)
    ss = s * s
    near = (ss - 5.78318596294678452118e+00) * (ss - 3.04712623436620863991e+01) * _horner(C.J0_RP, ss) / _horner(
        C.J0_RQ, ss)
    near = jnp.where(s < 1e-5, 1.0 - ss / 4.0, near)
    b = _safe(~small, x, 5.0)
    far = _hankel(b, C.J0_PP, C.J0_PQ, C.J0_QP, C.J0_QQ, _QUARTER_PI, 25.0 / (b * b), False)
    return jnp.where(small, near, far)


def _j1(x):
    sign = jnp.where(x < 0, -1.0, 1.0).astype(x.dtype)
    x = jnp.abs(x)
    small = x <= 5.0
    s = _safe(small, x, 1.0)
    ss = s * s
    near = _horner(C.J1_RP, ss) / _horner(C.J1_RQ, ss) * s * (ss - 1.46819706421238932572e+01) * (
        ss - 4.92184563216946036703e+01)
    b = _safe(~small, x, 5.0)
    far = _hankel(b, C.J1_PP, C.J1_PQ, C.J1_QP, C.J1_QQ, _THREE_QUARTER_PI, 5.0 / b * (5.0 / b), False)
    return sign * jnp.where(small, near, far)


def _y0(x):
    small = x <= 5.0
    s = _safe(small & (x > 0), x, 1.0)
    ss = s * s
    near = _horner(C.Y0_YP, ss) / _horner(C.Y0_YQ, ss) + _TWO_OVER_PI * jnp.log(s) * _j0(s)
    near = jnp.where(x == 0, -jnp.inf, jnp.where(x < 0, jnp.nan, near))
    b = _safe(~small, x, 5.0)
    far = _hankel(b, C.J0_PP, C.J0_PQ, C.J0_QP, C.J0_QQ, _QUARTER_PI, 25.0 / (b * b), True)
    return jnp.where(small, near, far)


def _y1(x):
    small = x <= 5.0
    s = _safe(small & (x > 0), x, 1.0)
    ss = s * s
    near = s * (_horner(C.Y1_YP, ss) / _horner(C.Y1_YQ, ss)) + _TWO_OVER_PI * (_j1(s) * jnp.log(s) - 1.0 / s)
    near = jnp.where(x == 0, -jnp.inf, jnp.where(x < 0, jnp.nan, near))
    b = _safe(~small, x, 5.0)
    far = _hankel(b, C.J1_PP, C.J1_PQ, C.J1_QP, C.J1_QQ, _THREE_QUARTER_PI, 5.0 / b * (5.0 / b), True)
    return jnp.where(small, near, far)


# ---------------------------------------------------------------- I0, I1, K0, K1

def _i0(x):
    a = jnp.abs(x)
    small = a <= 8.0
    near = chebyshev_series(C.I0_A, _safe(small, a, 0.0) / 2.0 - 2.0)
    b = _safe(~small, a, 8.0)
    far = chebyshev_series(C.I0_B, 32.0 / b - 2.0) / jnp.sqrt(b)
    return jnp.exp(a) * jnp.where(small, near, far)


def _i1(x):
    a = jnp.abs(x)
    small = a <= 8.0
    near = chebyshev_series(C.I1_A, _safe(small, a, 0.0) / 2.0 - 2.0) * a
    b = _safe(~small, a, 8.0)
    far = chebyshev_series(C.I1_B, 32.0 / b - 2.0) / jnp.sqrt(b)
    value = jnp.where(small, near, far) * jnp.exp(a)
    return jnp.where(x < 0, -value, value)


def _k(x, order, scaled):
    """K0 or K1 (``scaled``: times ``exp(x)``): ``inf`` at 0, NaN below."""
    small = x <= 2.0
    s = _safe(small & (x > 0), x, 1.0)
    if order == 0:
        near = chebyshev_series(C.K0_A, s * s - 2.0) - jnp.log(0.5 * s) * _i0(s)
    else:
        near = jnp.log(0.5 * s) * _i1(s) + chebyshev_series(C.K1_A, s * s - 2.0) / s
    if scaled:
        near = near * jnp.exp(s)
    b = _safe(~small, x, 2.0)
    far = chebyshev_series(C.K0_B if order == 0 else C.K1_B, 8.0 / b - 2.0) / jnp.sqrt(b)
    if not scaled:
        far = jnp.exp(-b) * far
    value = jnp.where(small, near, far)
    return jnp.where(x == 0, jnp.inf, jnp.where(x < 0, jnp.nan, value))


# ---------------------------------------------------------------- Airy Ai

def _airy_series(x):
    """The Maclaurin series ``c1 f(x) - c2 g(x)``, summed until a term of ``f`` falls below the
    dtype's epsilon relative to ``f`` (each element stops on its own, as PyTorch's loop)."""
    eps = np.finfo(x.dtype).eps
    z = x * x * x
    one = jnp.ones_like(x)

    def cond(state):
        return jnp.any(state[-1]) & (state[0] < 400)

    def body(state):
        i, f, g, k, m, n, active = state
        m2 = m * z
        k2 = k + 1.0
        m2 = m2 / k2
        n2 = n * z
        k2 = k2 + 1.0
        n2 = n2 / k2
        m2 = m2 / k2
        f2 = f + m2
        k2 = k2 + 1.0
        n2 = n2 / k2
        g2 = g + n2
        still = active & (jnp.abs(m2 / f2) > eps)
        pick = lambda new, old: jnp.where(active, new, old)  # noqa: E731
        return i + 1, pick(f2, f), pick(g2, g), pick(k2, k), pick(m2, m), pick(n2, n), still

    state = (0, one, x, one, one, x, jnp.ones(x.shape, bool))
    _, f, g, *_ = lax.while_loop(cond, body, state)
    return 0.355028053887817239260 * f - 0.258819403792806798405 * g


def _airy_ai(x):
    dt = x.dtype
    left = x < -2.09
    xl = _safe(left, x, -3.0)
    root = jnp.sqrt(-xl)
    zl = 1.0 / (-2.0 * xl * root / 3.0)
    zz = zl * zl
    t = -2.0 * xl * root / 3.0 + 0.25 * jnp.asarray(np.pi, dt)
    oscillating = 5.64189583547756286948e-01 / jnp.sqrt(root) * (
        jnp.sin(t) * (1.0 + zz * _horner(C.AIRY_AFN, zz) / _horner(C.AIRY_AFD, zz))
        - jnp.cos(t) * (zl * _horner(C.AIRY_AGN, zz) / _horner(C.AIRY_AGD, zz)))
    right = x >= 2.09
    xr = _safe(right & (x <= 103.892), x, 3.0)
    zeta = 2.0 * xr * jnp.sqrt(xr) / 3.0
    decaying = 5.64189583547756286948e-01 * (_horner(C.AIRY_AN, 1.0 / zeta) / _horner(C.AIRY_AD, 1.0 / zeta)) / (
        2.0 * jnp.sqrt(jnp.sqrt(xr)) * jnp.exp(zeta))
    series_range = (x >= -2.09) & (x < 2.09)
    series = _airy_series(_safe(series_range, x, 0.0))
    value = jnp.where(left, oscillating, jnp.where(right, decaying, series))
    value = jnp.where(x > 103.892, 0.0, value)
    return jnp.where(jnp.isinf(x) | jnp.isnan(x), jnp.nan, value).astype(dt)


def _spherical_j0(x):
    small = jnp.abs(x) < 0.5
    s = _safe(small, x, 0.0)
    ss = s * s
    series = 1.0 + ss * (-1.0 / 6.0 + ss * (1.0 / 120.0 + ss * (-1.0 / 5040.0 + ss * (
        1.0 / 362880.0 + ss * (-1.0 / 39916800.0 + ss * (1.0 / 6227020800.0))))))
    b = _safe(~small, x, 1.0)
    value = jnp.where(small, series, jnp.sin(b) / b)
    return jnp.where(jnp.isinf(x), 0.0, value).astype(x.dtype)


def _register(name, fn):
    def special(x, *, dtype):
        x = jnp.asarray(x, dtype)
        return fn(x).astype(dtype)
    special.__name__ = name
    return op(f"special_{name}", saves="none", differentiable=False)(special)


airy_ai = _register("airy_ai", _airy_ai)
bessel_j0 = _register("bessel_j0", _j0)
bessel_j1 = _register("bessel_j1", _j1)
bessel_y0 = _register("bessel_y0", _y0)
bessel_y1 = _register("bessel_y1", _y1)
modified_bessel_i0 = _register("modified_bessel_i0", _i0)
modified_bessel_i1 = _register("modified_bessel_i1", _i1)
modified_bessel_k0 = _register("modified_bessel_k0", lambda x: _k(x, 0, False))
modified_bessel_k1 = _register("modified_bessel_k1", lambda x: _k(x, 1, False))
scaled_modified_bessel_k0 = _register("scaled_modified_bessel_k0", lambda x: _k(x, 0, True))
scaled_modified_bessel_k1 = _register("scaled_modified_bessel_k1", lambda x: _k(x, 1, True))
spherical_bessel_j0 = _register("spherical_bessel_j0", _spherical_j0)
