"""Rows of torch.special's Bessel/Airy functions, orthogonal polynomials, Hurwitz zeta and the
incomplete gamma functions (``sp_`` prefix).

PyTorch records no node for the Bessel functions and polynomials (``grad=False``; that their
outputs never require grad is in ``tests/test_special_windows.py``); zeta and igamma
differentiate in their second argument only, and backward through the first raises.
"""

import numpy as np

from op_table import FLOAT, Err, Op, Sample, arr


def _special(name):
    return lambda m, *a: getattr(m.special, name)(*a)


def _bessel_samples(make):
    """One array across the branches of Cephes' approximations (|x| up to 12) and, for floats,
    PyTorch's special values; the gradient dtype adds a 0-d sample."""
    x = make(3, 4)
    if make.dtype not in FLOAT:
        return [Sample((x,))]
    x = (x * np.asarray([0.5, 3.0, 6.0], make.dtype)[:, None]).astype(make.dtype).ravel()
    edges = np.asarray([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-7, -2.5, 2.09, 8.5], make.dtype)
    samples = [Sample((np.concatenate([x, edges]),))]
    return samples + [Sample((make(),))] if make.full else samples


def _bessel_row(name, domain):
    errors = (Err((1.5,), note="a Python number where a Tensor is required"),
              Err((arr(3, dtype="float16"),), note="float16 is not implemented"))
    return Op(f"sp_{name}", _special(name), _bessel_samples, grad=False, domain=domain, errors=errors)


BESSEL = [("airy_ai", "real"), ("bessel_j0", "real"), ("bessel_j1", "real"), ("bessel_y0", "positive"),
          ("bessel_y1", "positive"), ("modified_bessel_i0", "real"), ("modified_bessel_i1", "real"),
          ("modified_bessel_k0", "positive"), ("modified_bessel_k1", "positive"),
          ("scaled_modified_bessel_k0", "positive"), ("scaled_modified_bessel_k1", "positive"),
          ("spherical_bessel_j0", "real")]


def _degrees(make, values):
    return np.asarray(values).astype(make.dtype)


def _polynomial_samples(make):
    """For floats: random ``x`` and PyTorch's special points against degrees up to 30 (negative,
    non-integer, NaN and infinite ones too), and the ``(Number, Tensor)`` form; the gradient
    dtype adds the ``(Tensor, Number)`` form; integers and booleans: one grid."""
    if make.dtype not in FLOAT:
        return [Sample((make(3, 1), _degrees(make, [0, 1, 2, 3, 5])))]
    x = np.concatenate([make(4), np.asarray([-1.0, 1.0, 0.0, 0.5, 1.5, -3.0, np.nan], make.dtype)])[:, None]
    degrees = np.asarray([-2, 0, 1, 2, 3, 5, 7, 10, 12, 25, 30, 2.5, -0.5, np.nan, np.inf], make.dtype)
    samples = [Sample((x, degrees)), Sample((0.3, _degrees(make, [2, 7])))]
    return samples + [Sample((make(3), 4))] if make.full else samples


POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
               "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


def _polynomial_row(name):
    errors = (Err((0.5, 2), note="two numbers"), Err((arr(2, 3), arr(4)), note="shapes do not broadcast"),
              Err((arr(3, dtype="float16"), 2), note="float16 is not implemented"))
    # |x| at most 1.5, n at most 30: the values stay where float32 keeps its digits
    return Op(f"sp_{name}", _special(name), _polynomial_samples, grad=False, domain="unit", errors=errors,
              tol={"float32": (1e-4, 1e-4)})


def _zeta_samples(make):
    x = (make(2, 3) + 1).astype(make.dtype) if make.dtype in FLOAT else make(2, 3)
    q = make(2, 3)
    if not make.full:
        return [Sample((x, q), frozen=(0,))]
    samples = [Sample((x, q), frozen=(0,)), Sample((2.5, q)), Sample((x, 1.5), grad=False)]
    if make.dtype in FLOAT:
        edges = np.asarray([1.0, 0.5, 2.0, 2.0, 3.0, np.inf, np.inf], make.dtype)
        shifts = np.asarray([1.0, 1.0, 0.0, -1.5, -2.0, 0.5, 1.0], make.dtype)
        samples.append(Sample((edges, shifts), grad=False))
    return samples


def _gamma_samples(make):
    a, x = make(2, 3), make(2, 3)
    samples = [Sample((a, x), frozen=(0,)), Sample((a, make(3)), frozen=(0,))]
    if not make.full:
        return samples[:1]
    edges = np.asarray([0.0, 0.0, 1.0, np.inf, 2.0, -1.0, 30.0, 1000.0], make.dtype)
    at = np.asarray([0.0, 1.0, 0.0, 2.0, np.inf, 1.0, 30.0, 1000.0], make.dtype)
    return samples + [Sample((edges, at), grad=False)]


def _backward_through_first(fn):
    def call(m, a, x):
        a = a.double().requires_grad_()
        return fn(m)(a, x.double()).sum().backward()
    return Err((arr(3), arr(3)), call=call, note="no derivative for the first argument")


def _gamma_row(name, fn):
    errors = (Err((arr(3), 1.5), note="other must be a Tensor"),
              Err((arr(3, dtype="int64"), arr(3, dtype="int64")), note="integers are not implemented"),
              _backward_through_first(fn))
    return Op(f"sp_{name}", lambda m, a, x: fn(m)(a, x), _gamma_samples, dtypes=FLOAT, domain="positive",
              errors=errors)


ROWS = ([_bessel_row(name, domain) for name, domain in BESSEL]
        + [_polynomial_row(name) for name in POLYNOMIALS]
        + [Op("sp_zeta", _special("zeta"), _zeta_samples, domain="positive",
              errors=(Err((2.0, 3.0), note="two numbers"), Err((arr(3, dtype="float16"), 1.0), note="float16"),
                      _backward_through_first(lambda m: m.special.zeta))),
           _gamma_row("igamma", lambda m: m.igamma),
           _gamma_row("igammac", lambda m: m.igammac),
           _gamma_row("gammainc", lambda m: m.special.gammainc),
           _gamma_row("gammaincc", lambda m: m.special.gammaincc),
           Op("sp_igamma_method", lambda m, a, x: a.igamma(x), _gamma_samples, dtypes=FLOAT, domain="positive"),
           Op("sp_igammac_", lambda m, a, x: a.clone().igammac_(x), _gamma_samples, dtypes=FLOAT,
              domain="positive")])
