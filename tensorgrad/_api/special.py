"""Torch-level special functions that are also methods: the erf family, lgamma/digamma/polygamma/
mvlgamma, i0, logit, sinc and xlogy (with their ``torch.special`` names). The functions that live
only in ``torch.special`` are in ``tensorgrad/special.py``.
"""

from .. import _dtype
from .._ops import special as SP
from .._tensor import Tensor, apply
from .elementwise import _floating, _unary_float
from .operands import _one_tensor, as_operand, result_type, _float_of, _tensor_input
from .surface import declare


erf = _unary_float(SP.erf)
declare("erf", "special.erf", method=True, inplace=True, out=True)(erf)


erfc = _unary_float(SP.erfc)
declare("erfc", "special.erfc", method=True, inplace=True, out=True)(erfc)


erfinv = _unary_float(SP.erfinv)
declare("erfinv", "special.erfinv", method=True, inplace=True, out=True)(erfinv)


lgamma = _unary_float(SP.lgamma)
declare("lgamma", "special.gammaln", method=True, inplace=True, out=True)(lgamma)


digamma = _unary_float(SP.digamma)
declare("digamma", "special.digamma", "special.psi", method=True, inplace=True, out=True)(digamma)


@declare("logit", "special.logit", method=True, inplace=True, out=True)
def logit(input, eps=None):
    """``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped into ``[eps, 1 - eps]``."""
    return apply(SP.logit, (input,), (_float_of(input.dtype).np, None if eps is None else float(eps)))


@declare("sinc", "special.sinc", method=True, inplace=True, out=True)
def sinc(input):
    return _floating(SP.sinc, input)


@declare("i0", "special.i0", method=("i0",), inplace=True, out=True)
@declare("special_i0", numpy_names=False)
def i0(input):
    """The modified Bessel function of the first kind, order 0."""
    return _floating(SP.i0, input)


special_i0 = i0


@declare("polygamma", out=True)
@declare("special.polygamma", out=True)
def polygamma(n, input):
    """The ``n``-th derivative of the digamma function."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return apply(SP.polygamma, (input,), (_float_of(input.dtype).np, int(n)))


@declare(method=("polygamma",), inplace=True)
def _polygamma_method(self, n):
    return polygamma(n, self)


@declare("mvlgamma", method=True, inplace=True, out=True)
@declare("special.multigammaln", out=True)
def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension ``p``."""
    _tensor_input("mvlgamma", input)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input.dtype is _dtype.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    return apply(SP.mvlgamma, (input,), (_float_of(input.dtype).np, int(p)))


@declare("xlogy", "special.xlogy", method=True, inplace=True, out=True)
def xlogy(input, other):
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    _one_tensor("xlogy", input, other)
    a, b = as_operand(input), as_operand(other)
    d = _float_of(result_type(a, b))
    if not isinstance(a, Tensor):
        return apply(SP.xlogy_scalar_self, (b, a), (d.np,))
    if not isinstance(b, Tensor):
        return apply(SP.xlogy_scalar_other, (a, b), (d.np,))
    return apply(SP.xlogy, (a, b), (d.np,))
