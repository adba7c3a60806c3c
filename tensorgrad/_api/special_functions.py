"""``torch.special``'s Bessel and Airy functions, orthogonal polynomials and Hurwitz zeta, and
the regularized incomplete gamma functions (``torch.igamma``/``igammac``, also
``special.gammainc``/``gammaincc``).

As in PyTorch: integers and booleans compute in the default float dtype (igamma's excepted,
whose kernel refuses them), float16/bfloat16/complex are refused by the Bessel functions, the
polynomials and zeta, and none of the Bessel functions or polynomials records a node (their
outputs never require grad); zeta and igamma differentiate in their second argument only.
"""

from .. import _dtype
from .._ops import bessel as B, polynomials as P, special as SP
from .._tensor import Tensor, apply
from .operands import _float_of, _not_implemented, _tensor_input, _tensor_other, as_operand, result_type
from .surface import declare


def _checked_float(kernel, d):
    """The float dtype an op computes in, or PyTorch's error for a dtype its kernel refuses."""
    d = _float_of(d)
    if d.kind == _dtype.COMPLEX or d in (_dtype.float16, _dtype.bfloat16):
        raise _not_implemented(f"{kernel}_cpu", d)
    return d


# ---------------------------------------------------------------- Bessel and Airy functions

def _bessel(op, name):
    def special(input):
        _tensor_input(f"special_{name}", input)
        return apply(op, (input,), (_checked_float(name, input.dtype).np,))
    special.__name__ = name
    special.__doc__ = f"PyTorch's ``torch.special.{name}`` (Cephes' approximation; not differentiable)."
    return declare(f"special.{name}", out=True)(special)


airy_ai = _bessel(B.airy_ai, "airy_ai")
bessel_j0 = _bessel(B.bessel_j0, "bessel_j0")
bessel_j1 = _bessel(B.bessel_j1, "bessel_j1")
bessel_y0 = _bessel(B.bessel_y0, "bessel_y0")
bessel_y1 = _bessel(B.bessel_y1, "bessel_y1")
modified_bessel_i0 = _bessel(B.modified_bessel_i0, "modified_bessel_i0")
modified_bessel_i1 = _bessel(B.modified_bessel_i1, "modified_bessel_i1")
modified_bessel_k0 = _bessel(B.modified_bessel_k0, "modified_bessel_k0")
modified_bessel_k1 = _bessel(B.modified_bessel_k1, "modified_bessel_k1")
scaled_modified_bessel_k0 = _bessel(B.scaled_modified_bessel_k0, "scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _bessel(B.scaled_modified_bessel_k1, "scaled_modified_bessel_k1")
spherical_bessel_j0 = _bessel(B.spherical_bessel_j0, "spherical_bessel_j0")


# ---------------------------------------------------------------- two arguments, one may be a number

def _tensor_or_number(fname, a, b, names):
    """The operands of ``f(Tensor, Tensor)``, ``f(Number, Tensor)``, ``f(Tensor, Number)``;
    PyTorch's TypeError for two numbers (or anything else)."""
    a, b = as_operand(a), as_operand(b)
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return a, b
    first, second = names
    got = ", ".join(type(v).__name__ for v in (a, b))
    signatures = (f"(Tensor {first}, Tensor {second}, *, Tensor out = None)",
                  f"(Number {first}, Tensor {second}, *, Tensor out = None)",
                  f"(Tensor {first}, Number {second}, *, Tensor out = None)")
    raise TypeError(f"{fname}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    + "".join(f" * {s}\n" for s in signatures))


def _polynomial(op, name):
    def polynomial(x, n):
        x, n = _tensor_or_number(f"special_{name}", x, n, ("x", "n"))
        d = _checked_float(name, result_type(x, n))
        return apply(op, (x, n), (d.np,))
    polynomial.__name__ = name
    polynomial.__doc__ = (f"PyTorch's ``torch.special.{name}(x, n)``: ``n`` truncated to an integer, 0 where "
                          f"it is negative (not differentiable).")
    return declare(f"special.{name}", out=True)(polynomial)


chebyshev_polynomial_t = _polynomial(P.chebyshev_polynomial_t, "chebyshev_polynomial_t")
chebyshev_polynomial_u = _polynomial(P.chebyshev_polynomial_u, "chebyshev_polynomial_u")
chebyshev_polynomial_v = _polynomial(P.chebyshev_polynomial_v, "chebyshev_polynomial_v")
chebyshev_polynomial_w = _polynomial(P.chebyshev_polynomial_w, "chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _polynomial(P.shifted_chebyshev_polynomial_t, "shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _polynomial(P.shifted_chebyshev_polynomial_u, "shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _polynomial(P.shifted_chebyshev_polynomial_v, "shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _polynomial(P.shifted_chebyshev_polynomial_w, "shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _polynomial(P.hermite_polynomial_h, "hermite_polynomial_h")
hermite_polynomial_he = _polynomial(P.hermite_polynomial_he, "hermite_polynomial_he")
laguerre_polynomial_l = _polynomial(P.laguerre_polynomial_l, "laguerre_polynomial_l")
legendre_polynomial_p = _polynomial(P.legendre_polynomial_p, "legendre_polynomial_p")


@declare("special.zeta", out=True)
def zeta(input, other):
    """The Hurwitz zeta function ``sum_k (other + k) ** -input``; differentiable in ``other``
    only (``input``'s derivative raises, as in PyTorch)."""
    x, q = _tensor_or_number("special_zeta", input, other, ("input", "other"))
    d = _checked_float("zeta", result_type(x, q))
    if not isinstance(x, Tensor):
        return apply(SP.zeta_scalar_self, (q, x), (d.np,))
    if not isinstance(q, Tensor):
        return apply(SP.zeta_scalar_other, (x, q), (d.np,))
    return apply(SP.zeta, (x, q), (d.np,))


# ---------------------------------------------------------------- the incomplete gamma functions

def _incomplete_gamma(op, name, input, other):
    _tensor_input(name, input)
    _tensor_other(name, other)
    d = result_type(input, other)
    if d.kind < _dtype.FLOAT or d.kind == _dtype.COMPLEX:
        raise _not_implemented(f"{op.name}_cpu", d)
    return apply(op, (input, other), (d.np,))


@declare("igamma", method=True, inplace=True, out=True)
def igamma(input, other):
    """The regularized lower incomplete gamma function ``P(input, other)``; differentiable in
    ``other`` only."""
    return _incomplete_gamma(SP.igamma, "igamma", input, other)


@declare("special.gammainc", out=True)
def gammainc(input, other):
    """``torch.special.gammainc``: ``igamma``."""
    return _incomplete_gamma(SP.igamma, "special_gammainc", input, other)


@declare("igammac", method=True, inplace=True, out=True)
def igammac(input, other):
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P(input, other)``;
    differentiable in ``other`` only."""
    return _incomplete_gamma(SP.igammac, "igammac", input, other)


@declare("special.gammaincc", out=True)
def gammaincc(input, other):
    """``torch.special.gammaincc``: ``igammac``."""
    return _incomplete_gamma(SP.igammac, "special_gammaincc", input, other)
