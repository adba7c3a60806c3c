"""Torch-level elementwise functions beyond the basics: special functions, float-only
binaries (hypot, logaddexp, ...), fmod/fmax/fmin, lerp, copysign, xlogy, shifts, clamps.

Each function parses PyTorch's arguments, applies PyTorch's promotion and dtype checks, and
picks the op whose node PyTorch would record (``FmodBackward0`` for a number, ``...1`` for a
tensor).
"""

from .. import _dtype
from .._ops import comparison as CMP
from .._ops import elementwise as E
from .._ops import special as SP
from .._tensor import Tensor, apply
from .creation import tensor as _tensor_factory
from .inplace import inplace_of
from .math import as_operand, result_type, _float_of, pow as _pow

__all__ = ['nan_to_num', 'logit', 'sgn', 'sinc', 'deg2rad', 'rad2deg', 'i0', 'signbit', 'isposinf', 'isneginf',
           'positive', 'polygamma', 'mvlgamma', 'fmod', 'fmax', 'fmin', 'hypot', 'lerp', 'logaddexp',
           'logaddexp2', 'copysign', 'xlogy', 'float_power', 'ldexp', 'nextafter', 'heaviside', 'gcd', 'lcm',
           'bitwise_left_shift', 'bitwise_right_shift', 'addcmul', 'addcdiv', 'clamp_min', 'clamp_max',
           'special_i0']


def _not_implemented(kernel, d):
    return NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{d.c_name}'")


def _need_tensor(fname, argname, value, position=2):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _floating(op, input, *, out=None):
    return apply(op, (input,), (_float_of(input.dtype).np,))


# ---------------------------------------------------------------- unary

def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN, +inf and -inf by ``nan``, ``posinf`` (default: the dtype's largest finite
    value) and ``neginf`` (its most negative); the gradient is 0 at replaced entries."""
    return apply(E.nan_to_num, (input,), (input.dtype.np, nan, posinf, neginf))


def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped into ``[eps, 1 - eps]``."""
    return apply(SP.logit, (input,), (_float_of(input.dtype).np, None if eps is None else float(eps)))


def sgn(input, *, out=None):
    """The sign (for real tensors the same as ``sign``; node ``SgnBackward0``)."""
    return apply(E.sgn, (input,), (input.dtype.np,))


def sinc(input, *, out=None):
    return _floating(SP.sinc, input)


def deg2rad(input, *, out=None):
    return _floating(E.deg2rad, input)


def rad2deg(input, *, out=None):
    return _floating(E.rad2deg, input)


def i0(input, *, out=None):
    """The modified Bessel function of the first kind, order 0."""
    return _floating(SP.i0, input)


special_i0 = i0


def signbit(input, *, out=None):
    return apply(CMP.signbit, (input,))


def isposinf(input, *, out=None):
    return apply(CMP.isposinf, (input,))


def isneginf(input, *, out=None):
    return apply(CMP.isneginf, (input,))


def positive(input):
    """``+input``: the tensor itself (bool tensors are rejected, as in PyTorch)."""
    if input.dtype is _dtype.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of the digamma function."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return apply(SP.polygamma, (input,), (_float_of(input.dtype).np, int(n)))


def _polygamma_method(self, n):
    return polygamma(n, self)


def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma function of dimension ``p``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input.dtype is _dtype.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    return apply(SP.mvlgamma, (input,), (_float_of(input.dtype).np, int(p)))


# ---------------------------------------------------------------- binary

def fmod(input, other, *, out=None):
    """The C remainder (the sign of the dividend); ``FmodBackward0`` for a number divisor."""
    other = as_operand(other)
    d = result_type(input, other)
    if d is _dtype.bool_:
        raise _not_implemented("fmod", d)
    if isinstance(other, Tensor):
        return apply(E.fmod, (input, other), (d.np,))
    return apply(E.fmod_scalar, (input, other), (d.np,))


def _nan_extreme(op, name):
    def extreme(input, other, *, out=None):
        _need_tensor(name, "other", other)
        return apply(op, (input, other), (result_type(input, other).np,))
    extreme.__name__ = name
    extreme.__doc__ = (f"Elementwise {name[1:]}imum that ignores NaN (NaN only where both are NaN); "
                       "a tie gives the gradient to ``input``.")
    return extreme


fmax = _nan_extreme(E.fmax, "fmax")
fmin = _nan_extreme(E.fmin, "fmin")


def _float_binary(op, name, kernel=None):
    """A binary op that PyTorch computes only for floating results (integer pairs raise)."""
    def binary(input, other, *, out=None):
        _need_tensor(name, "other", other)
        d = result_type(input, other)
        if d.kind < _dtype.FLOAT:
            raise _not_implemented(kernel or name, d)
        return apply(op, (input, other), (d.np,))
    binary.__name__ = name
    return binary


hypot = _float_binary(E.hypot, "hypot")
logaddexp = _float_binary(E.logaddexp, "logaddexp")
logaddexp2 = _float_binary(E.logaddexp2, "logaddexp2")
nextafter = _float_binary(E.nextafter, "nextafter")


def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)``; ``LerpBackward0`` for a number weight, ``1`` for a tensor."""
    _need_tensor("lerp", "end", end)
    d = input.dtype
    if end.dtype is not d:
        raise RuntimeError(f"expected dtype {d.name} for `end` but got dtype {end.dtype.name}")
    if d.kind < _dtype.FLOAT:
        raise _not_implemented("lerp_kernel_scalar" if not isinstance(weight, Tensor) else "lerp_kernel_tensor", d)
    if isinstance(weight, Tensor):
        if weight.dtype is not d:
            raise RuntimeError(f"expected dtype {d.name} for `weight` but got dtype {weight.dtype.name}")
        return apply(E.lerp_tensor, (input, end, weight), (d.np,))
    return apply(E.lerp_scalar, (input, end, as_operand(weight)), (d.np,))


def copysign(input, other, *, out=None):
    """``|input|`` with the sign of ``other``; the gradient is 0 where ``input`` is 0."""
    other = as_operand(other)
    d = _float_of(result_type(input, other))
    if isinstance(other, Tensor):
        return apply(E.copysign, (input, other), (d.np,))
    return apply(E.copysign_scalar, (input, other), (d.np,))


def xlogy(input, other, *, out=None):
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    a, b = as_operand(input), as_operand(other)
    d = _float_of(result_type(a, b))
    if not isinstance(a, Tensor):
        return apply(SP.xlogy_scalar_self, (b, a), (d.np,))
    if not isinstance(b, Tensor):
        return apply(SP.xlogy_scalar_other, (a, b), (d.np,))
    return apply(SP.xlogy, (a, b), (d.np,))


def float_power(input, exponent, *, out=None):
    """``pow`` computed in float64 (complex128 for complex operands)."""
    a, b = as_operand(input), as_operand(exponent)
    if isinstance(a, Tensor):
        a = a.to(_dtype.float64)
    else:
        a = float(a)
    if isinstance(b, Tensor):
        b = b.to(_dtype.float64)
    else:
        b = float(b)
    return _pow(a, b)


def ldexp(input, other, *, out=None):
    """``input * 2 ** other``."""
    _need_tensor("ldexp", "other", other)
    d = _float_of(result_type(input, other))
    return apply(E.ldexp, (input, other), (d.np,))


def heaviside(input, values, *, out=None):
    _need_tensor("heaviside", "values", values)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    return apply(E.heaviside, (input, values), (input.dtype.np,))


def _integer_binary(op, name):
    def binary(input, other, *, out=None):
        _need_tensor(name, "other", other)
        d = result_type(input, other)
        if d.kind != _dtype.INT:
            raise _not_implemented(name, d)
        return apply(op, (input, other), (d.np,))
    binary.__name__ = name
    return binary


gcd = _integer_binary(E.gcd, "gcd")
lcm = _integer_binary(E.lcm, "lcm")


def _shift(op, name, kernel):
    def shift(input, other, *, out=None):
        a, b = as_operand(input), as_operand(other)
        if not isinstance(a, Tensor):
            a = _tensor_factory(a)
        d = result_type(a, b)
        if d.kind != _dtype.INT:
            raise _not_implemented(kernel, d)
        return apply(op, (a, b), (d.np,))
    shift.__name__ = name
    return shift


bitwise_left_shift = _shift(CMP.bitwise_left_shift, "bitwise_left_shift", "lshift")
bitwise_right_shift = _shift(CMP.bitwise_right_shift, "bitwise_right_shift", "rshift")


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 * tensor2`` (broadcasting)."""
    d = result_type(input, tensor1, tensor2)
    if d is _dtype.bool_:
        raise _not_implemented("addcmul_cpu_out".replace("_cpu", ""), d)
    return apply(E.addcmul, (input, tensor1, tensor2), (d.np, value))


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 / tensor2``; integer ``tensor1``/``tensor2`` are rejected."""
    if tensor1.dtype.kind <= _dtype.INT and tensor2.dtype.kind <= _dtype.INT:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
            "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented "
            "as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
            "latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    d = result_type(input, tensor1, tensor2)
    return apply(E.addcdiv, (input, tensor1, tensor2), (d.np, value))


# ---------------------------------------------------------------- clamps

def clamp_min(input, min, *, out=None):
    """``max(input, min)``; the gradient passes where ``input >= min``."""
    min = as_operand(min)
    d = result_type(input, min)
    if isinstance(min, Tensor):
        return apply(E.clamp_min_tensor, (input, min), (d.np,))
    if d is _dtype.bool_:
        raise _not_implemented("clamp_min_scalar", d)
    return apply(E.clamp_min, (input, min), (d.np,))


def clamp_max(input, max, *, out=None):
    """``min(input, max)``; the gradient passes where ``input <= max``."""
    max = as_operand(max)
    d = result_type(input, max)
    if isinstance(max, Tensor):
        return apply(E.clamp_max_tensor, (input, max), (d.np,))
    if d is _dtype.bool_:
        raise _not_implemented("clamp_max_scalar", d)
    return apply(E.clamp_max, (input, max), (d.np,))


def _rshift(self, other):
    return bitwise_right_shift(other, self)


def _rlshift(self, other):
    return bitwise_left_shift(other, self)


# Tensor methods, attached by _api/methods.py
METHODS = {
    "nan_to_num": nan_to_num, "logit": logit, "sgn": sgn, "sinc": sinc, "deg2rad": deg2rad,
    "rad2deg": rad2deg, "i0": i0, "signbit": signbit, "isposinf": isposinf, "isneginf": isneginf,
    "positive": positive, "polygamma": _polygamma_method, "mvlgamma": mvlgamma, "fmod": fmod, "fmax": fmax,
    "fmin": fmin, "hypot": hypot, "lerp": lerp, "logaddexp": logaddexp, "logaddexp2": logaddexp2,
    "copysign": copysign, "xlogy": xlogy, "float_power": float_power, "ldexp": ldexp, "nextafter": nextafter,
    "heaviside": heaviside, "gcd": gcd, "lcm": lcm, "bitwise_left_shift": bitwise_left_shift,
    "bitwise_right_shift": bitwise_right_shift, "addcmul": addcmul, "addcdiv": addcdiv,
    "clamp_min": clamp_min, "clamp_max": clamp_max,
    "__lshift__": bitwise_left_shift, "__rshift__": bitwise_right_shift,
    "__rlshift__": _rlshift, "__rrshift__": _rshift,
}

_INPLACE_OF = (
    "nan_to_num", "logit", "sgn", "sinc", "deg2rad", "rad2deg", "i0", "polygamma", "mvlgamma", "fmod", "hypot",
    "lerp", "logaddexp", "copysign", "xlogy", "ldexp", "nextafter", "heaviside", "gcd", "lcm",
    "bitwise_left_shift", "bitwise_right_shift", "addcmul", "addcdiv", "clamp_min", "clamp_max")


def _float_power_(self, exponent):
    if self.dtype is not _dtype.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.c_name} but the operation's result "
                           "requires dtype Double")
    return inplace_of(float_power)(self, exponent)


# in-place twins, by attribute name
INPLACE = {name + "_": inplace_of(METHODS[name]) for name in _INPLACE_OF}
INPLACE["float_power_"] = _float_power_
INPLACE["__ilshift__"] = inplace_of(bitwise_left_shift)
INPLACE["__irshift__"] = inplace_of(bitwise_right_shift)
