"""``tensorgrad.special``: PyTorch's ``torch.special`` namespace.

Most entries are the torch-level functions under their SciPy names (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ...) and record the same nodes as in PyTorch; ``entr``, ``ndtri``,
``log_ndtr``, ``i0e``, ``i1``, ``i1e``, ``erfcx`` and ``xlog1py`` are ops of their own
(``SpecialEntrBackward0``, ...), and ``ndtr`` is composed as PyTorch composes it.
"""

from . import _dtype
from ._api.conversion import to as _to
from ._api.operands import as_operand as _as_operand, result_type as _result_type, _float_of
from ._api.special import erf as _erf
from ._ops import elementwise as _E
from ._ops import special as _SP
from ._tensor import Tensor as _Tensor, apply as _apply
from ._api.surface import declare as _declare




def _floating(op, input):
    if not isinstance(input, _Tensor):
        raise TypeError(f"special_{op.name.removeprefix('special_')}(): argument 'input' (position 1) must be "
                        f"Tensor, not {type(input).__name__}")
    return _apply(op, (input,), (_float_of(input.dtype).np,))


@_declare("special.entr", out=True)
def entr(input):
    """``-x log(x)`` for ``x > 0``, 0 at 0 and ``-inf`` below."""
    return _floating(_SP.entr, input)


@_declare("special.ndtri", out=True)
def ndtri(input):
    """The inverse of the standard normal CDF."""
    return _floating(_SP.ndtri, input)


@_declare("special.log_ndtr", out=True)
def log_ndtr(input):
    """The log of the standard normal CDF, accurate far into the left tail."""
    return _floating(_SP.log_ndtr, input)


@_declare("special.i0e", out=True)
def i0e(input):
    """``exp(-|x|) i0(x)``."""
    return _floating(_SP.i0e, input)


@_declare("special.i1", out=True)
def i1(input):
    """The modified Bessel function of the first kind, order 1."""
    return _floating(_SP.i1, input)


@_declare("special.i1e", out=True)
def i1e(input):
    """``exp(-|x|) i1(x)``."""
    return _floating(_SP.i1e, input)


@_declare("special.erfcx", out=True)
def erfcx(input):
    """The scaled complementary error function ``exp(x**2) erfc(x)``."""
    return _floating(_SP.erfcx, input)


@_declare("special.ndtr", out=True)
def ndtr(input):
    """The standard normal CDF, composed as PyTorch does: ``(1 + erf(x / sqrt(2))) * 0.5``."""
    if input.dtype.kind < _dtype.FLOAT:
        input = _to(input, _dtype.get_default_dtype())
    scaled = _apply(_E.mul_scalar, (input,), (0.7071067811865476,))
    return _apply(_E.mul_scalar, (_apply(_E.add_scalar, (_erf(scaled),), (1.0,)),), (0.5,))


@_declare("special.xlog1py", out=True)
def xlog1py(input, other):
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


@_declare("special.round", out=True)
def round(input, *, decimals=0):
    """Round half to even to ``decimals`` places (PyTorch's ``RoundBackward1`` node, even for 0)."""
    if input.dtype.kind < _dtype.FLOAT:
        raise NotImplementedError(f"\"round_vml_cpu\" not implemented for '{input.dtype.c_name}'")
    return _apply(_E.round_decimals, (input,), (input.dtype.np, int(decimals)))

