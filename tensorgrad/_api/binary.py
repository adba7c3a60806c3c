"""Torch-level elementwise functions of two (or three) tensors beyond arithmetic: fmod, fmax/fmin,
hypot, logaddexp, nextafter, lerp, copysign, float_power, ldexp, heaviside, gcd/lcm, the bit
shifts, addcmul/addcdiv and clamp_min/clamp_max.

Each function parses PyTorch's arguments, applies PyTorch's promotion and dtype checks, and
picks the op whose node PyTorch would record (``FmodBackward0`` for a number, ``...1`` for a
tensor).
"""

import builtins

from .. import _dtype
from .._ops import comparison as CMP
from .._ops import clamps as CL
from .._ops import elementwise as E
from .._tensor import Tensor, apply
from .creation import tensor as _tensor_factory
from .elementwise import pow as _pow
from .inplace import inplace_of
from .operands import _one_tensor, as_operand, result_type, _float_of, _nonzero_divisor, _shapes_first, _tensor_first
from .surface import declare


def _not_implemented(kernel, d):
    return NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{d.c_name}'")


def _need_tensor(fname, argname, value, position=2):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


# ---------------------------------------------------------------- binary

@declare("fmod", method=True, inplace=True, out=True)
def fmod(input, other):
    """The C remainder (the sign of the dividend); ``FmodBackward0`` for a number divisor."""
    _tensor_first("fmod", input, other)
    other = as_operand(other)
    d = result_type(input, other)
    if d is _dtype.bool_:
        _shapes_first(input, other)
        raise _not_implemented("fmod", d)
    _nonzero_divisor(input, other, d)
    if isinstance(other, Tensor):
        return apply(E.fmod, (input, other), (d.np,))
    return apply(E.fmod_scalar, (input, other), (d.np,))


def _nan_extreme(op, name):
    def extreme(input, other):
        _need_tensor(name, "input", input, 1)
        _need_tensor(name, "other", other)
        return apply(op, (input, other), (result_type(input, other).np,))
    extreme.__name__ = name
    extreme.__doc__ = (f"Elementwise {name[1:]}imum that ignores NaN (NaN only where both are NaN); "
                       "a tie gives the gradient to ``input``.")
    return extreme


fmax = _nan_extreme(CL.fmax, "fmax")
declare("fmax", method=True, out=True)(fmax)


fmin = _nan_extreme(CL.fmin, "fmin")
declare("fmin", method=True, out=True)(fmin)


def _float_binary(op, name, kernel=None):
    """A binary op that PyTorch computes only for floating results (integer pairs raise)."""
    def binary(input, other):
        _need_tensor(name, "input", input, 1)
        _need_tensor(name, "other", other)
        d = result_type(input, other)
        if d.kind < _dtype.FLOAT:
            _shapes_first(input, other)
            raise _not_implemented(kernel or name, d)
        return apply(op, (input, other), (d.np,))
    binary.__name__ = name
    return binary


hypot = _float_binary(E.hypot, "hypot")
declare("hypot", method=True, inplace=True, out=True)(hypot)


logaddexp = _float_binary(E.logaddexp, "logaddexp")
declare("logaddexp", method=True, inplace=True, out=True)(logaddexp)


logaddexp2 = _float_binary(E.logaddexp2, "logaddexp2")
declare("logaddexp2", method=True, out=True)(logaddexp2)


nextafter = _float_binary(E.nextafter, "nextafter")
declare("nextafter", method=True, inplace=True, out=True)(nextafter)


@declare("lerp", method=True, inplace=True, out=True)
def lerp(input, end, weight):
    """``input + weight * (end - input)``; ``LerpBackward0`` for a number weight, ``1`` for a tensor."""
    _tensor_first("lerp", input, end, weight, signatures=(
        "(Tensor input, Tensor end, Tensor weight, *, Tensor out = None)",
        "(Tensor input, Tensor end, Number weight, *, Tensor out = None)"))
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


@declare("copysign", method=True, inplace=True, out=True)
def copysign(input, other):
    """``|input|`` with the sign of ``other``; the gradient is 0 where ``input`` is 0."""
    _tensor_first("copysign", input, other)
    other = as_operand(other)
    d = _float_of(result_type(input, other))
    if isinstance(other, Tensor):
        return apply(E.copysign, (input, other), (d.np,))
    return apply(E.copysign_scalar, (input, other), (d.np,))


@declare("float_power", method=True, out=True)
def float_power(input, exponent):
    """``pow`` computed in float64 (complex128 for complex operands)."""
    _one_tensor("float_power", input, exponent, "exponent")
    a, b = as_operand(input), as_operand(exponent)
    wide = builtins.any(t.dtype.is_complex if isinstance(t, Tensor) else isinstance(t, complex) for t in (a, b))
    target, number = (_dtype.complex128, complex) if wide else (_dtype.float64, float)
    a = a.to(target) if isinstance(a, Tensor) else number(a)
    b = b.to(target) if isinstance(b, Tensor) else number(b)
    return _pow(a, b)


@declare("ldexp", method=True, inplace=True, out=True)
def ldexp(input, other):
    """``input * 2 ** other``."""
    _need_tensor("ldexp", "input", input, 1)
    _need_tensor("ldexp", "other", other)
    if other.dtype is _dtype.bool_ and input.dtype.kind == _dtype.FLOAT:
        # PyTorch's kernel for a floating input takes integer exponents only
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    d = _float_of(result_type(input, other))
    return apply(E.ldexp, (input, other), (d.np,))


@declare("heaviside", method=True, inplace=True, out=True)
def heaviside(input, values):
    _need_tensor("heaviside", "input", input, 1)
    _need_tensor("heaviside", "values", values)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    return apply(E.heaviside, (input, values), (input.dtype.np,))


def _integer_binary(op, name):
    def binary(input, other):
        _need_tensor(name, "input", input, 1)
        _need_tensor(name, "other", other)
        d = result_type(input, other)
        if d.kind != _dtype.INT:
            _shapes_first(input, other)
            raise _not_implemented(name, d)
        return apply(op, (input, other), (d.np,))
    binary.__name__ = name
    return binary


gcd = _integer_binary(E.gcd, "gcd")
declare("gcd", method=True, inplace=True, out=True)(gcd)


lcm = _integer_binary(E.lcm, "lcm")
declare("lcm", method=True, inplace=True, out=True)(lcm)


def _shift(op, name, kernel):
    def shift(input, other):
        a, b = as_operand(input), as_operand(other)
        if not isinstance(a, Tensor):
            a = _tensor_factory(a)
        d = result_type(a, b)
        if d.kind != _dtype.INT:
            _shapes_first(a, b)
            raise _not_implemented(kernel, d)
        return apply(op, (a, b), (d.np,))
    shift.__name__ = name
    return shift


bitwise_left_shift = _shift(CMP.bitwise_left_shift, "bitwise_left_shift", "lshift")
declare("bitwise_left_shift", method=True, inplace=True, out=True)(bitwise_left_shift)


bitwise_right_shift = _shift(CMP.bitwise_right_shift, "bitwise_right_shift", "rshift")
declare("bitwise_right_shift", method=True, inplace=True, out=True)(bitwise_right_shift)


@declare("addcmul", method=True, inplace=True, out=True)
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` (broadcasting)."""
    d = result_type(input, tensor1, tensor2)
    if d is _dtype.bool_:
        raise _not_implemented("addcmul_cpu_out".replace("_cpu", ""), d)
    return apply(E.addcmul, (input, tensor1, tensor2), (d.np, value))


@declare("addcdiv", method=True, inplace=True, out=True)
def addcdiv(input, tensor1, tensor2, *, value=1):
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

@declare("clamp_min", method=True, inplace=True, out=True)
def clamp_min(input, min):
    """``max(input, min)``; the gradient passes where ``input >= min``."""
    _tensor_first("clamp_min", input, min, argname="min")
    min = as_operand(min)
    d = result_type(input, min)
    if isinstance(min, Tensor):
        return apply(CL.clamp_min_tensor, (input, min), (d.np,))
    if d is _dtype.bool_:
        raise _not_implemented("clamp_min_scalar", d)
    return apply(CL.clamp_min, (input, min), (d.np,))


@declare("clamp_max", method=True, inplace=True, out=True)
def clamp_max(input, max):
    """``min(input, max)``; the gradient passes where ``input <= max``."""
    _tensor_first("clamp_max", input, max, argname="max")
    max = as_operand(max)
    d = result_type(input, max)
    if isinstance(max, Tensor):
        return apply(CL.clamp_max_tensor, (input, max), (d.np,))
    if d is _dtype.bool_:
        raise _not_implemented("clamp_max_scalar", d)
    return apply(CL.clamp_max, (input, max), (d.np,))


@declare(method=("__rrshift__",))
def _rrshift(self, other):
    return bitwise_right_shift(other, self)


@declare(method=("__rlshift__",))
def _rlshift(self, other):
    return bitwise_left_shift(other, self)


declare(method=("__lshift__",), inplace=("__ilshift__",))(bitwise_left_shift)
declare(method=("__rshift__",), inplace=("__irshift__",))(bitwise_right_shift)


@declare(method=("float_power_",))
def _float_power_(self, exponent):
    if self.dtype is not _dtype.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.c_name} but the operation's result "
                           "requires dtype Double")
    return inplace_of(float_power)(self, exponent)
