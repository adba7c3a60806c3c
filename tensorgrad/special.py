"""``tensorgrad.special``: PyTorch's ``torch.special`` namespace.

Most entries are the torch-level functions under their SciPy names (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ...) and record the same nodes as in PyTorch; ``entr``, ``ndtri``,
``log_ndtr``, ``i0e``, ``i1``, ``i1e``, ``erfcx`` and ``xlog1py`` are ops of their own
(``SpecialEntrBackward0``, ...), and ``ndtr`` is composed as PyTorch composes it.
"""

from . import _dtype
from ._api import extra_math as _X
from ._api import math as _M
from ._api.math import as_operand as _as_operand, result_type as _result_type, _float_of
from ._api import shape as _S
from ._ops import elementwise as _E
from ._ops import special as _SP
from ._tensor import Tensor as _Tensor, apply as _apply

__all__ = ["entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammaln", "digamma", "psi",
           "polygamma", "multigammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit",
           "logsumexp", "ndtr", "ndtri", "round", "sinc", "softmax", "xlog1py", "xlogy"]

erf = _M.erf
erfc = _M.erfc
erfinv = _M.erfinv
exp2 = _M.exp2
expm1 = _M.expm1
log1p = _M.log1p
gammaln = _M.lgamma
digamma = _M.digamma
psi = _M.digamma
expit = _M.sigmoid
logsumexp = _M.logsumexp
i0 = _X.i0
sinc = _X.sinc
logit = _X.logit
xlogy = _X.xlogy
polygamma = _X.polygamma
multigammaln = _X.mvlgamma


def _floating(op, input):
    if not isinstance(input, _Tensor):
        raise TypeError(f"special_{op.name.removeprefix('special_')}(): argument 'input' (position 1) must be "
                        f"Tensor, not {type(input).__name__}")
    return _apply(op, (input,), (_float_of(input.dtype).np,))


def entr(input, *, out=None):
    """``-x log(x)`` for ``x > 0``, 0 at 0 and ``-inf`` below."""
    return _floating(_SP.entr, input)


def ndtri(input, *, out=None):
    """The inverse of the standard normal CDF."""
    return _floating(_SP.ndtri, input)


def log_ndtr(input, *, out=None):
    """The log of the standard normal CDF, accurate far into the left tail."""
    return _floating(_SP.log_ndtr, input)


def i0e(input, *, out=None):
    """``exp(-|x|) i0(x)``."""
    return _floating(_SP.i0e, input)


def i1(input, *, out=None):
    """The modified Bessel function of the first kind, order 1."""
    return _floating(_SP.i1, input)


def i1e(input, *, out=None):
    """``exp(-|x|) i1(x)``."""
    return _floating(_SP.i1e, input)


def erfcx(input, *, out=None):
    """The scaled complementary error function ``exp(x**2) erfc(x)``."""
    return _floating(_SP.erfcx, input)


def ndtr(input, *, out=None):
    """The standard normal CDF, composed as PyTorch does: ``(1 + erf(x / sqrt(2))) * 0.5``."""
    if input.dtype.kind < _dtype.FLOAT:
        input = _S.to(input, _dtype.get_default_dtype())
    scaled = _apply(_E.mul_scalar, (input,), (0.7071067811865476,))
    return _apply(_E.mul_scalar, (_apply(_E.add_scalar, (_M.erf(scaled),), (1.0,)),), (0.5,))


def xlog1py(input, other, *, out=None):
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    a, b = _as_operand(input), _as_operand(other)
    if not isinstance(a, _Tensor) and not isinstance(b, _Tensor):
        raise TypeError("special_xlog1py() received an invalid combination of arguments: two numbers")
    d = _float_of(_result_type(a, b))
    if not isinstance(a, _Tensor):
        return _apply(_SP.xlog1py_scalar_self, (b, a), (d.np,))
    if not isinstance(b, _Tensor):
        return _apply(_SP.xlog1py_scalar_other, (a, b), (d.np,))
    return _apply(_SP.xlog1py, (a, b), (d.np,))


def softmax(input, dim, *, dtype=None):
    from .nn.functional import softmax as _softmax
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    from .nn.functional import log_softmax as _log_softmax
    return _log_softmax(input, dim, dtype=dtype)


def round(input, *, decimals=0, out=None):
    """Round half to even to ``decimals`` places (PyTorch's ``RoundBackward1`` node, even for 0)."""
    if input.dtype.kind < _dtype.FLOAT:
        raise NotImplementedError(f"\"round_vml_cpu\" not implemented for '{input.dtype.c_name}'")
    return _apply(_E.round_decimals, (input,), (input.dtype.np, int(decimals)))
