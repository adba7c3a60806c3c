"""Torch-level elementwise functions: arithmetic with PyTorch's promotion, the unary functions,
round, clamp and where.
"""

import jax

from .. import _dtype
from .._ops import clamps as CL
from .._ops import elementwise as E
from .._tensor import Tensor, apply
from .creation import tensor as _tensor_factory
from .indexing import nonzero
from .operands import (_one_tensor, as_operand, result_type, _binary, _float_of, _named, _nonzero_divisor, _not_implemented,
    _shapes_first, _tensor_first, _tensor_input, _tensor_other)
from .surface import declare, out_with


# ---------------------------------------------------------------- arithmetic

_BOOL_SUB = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")


def _alpha(name, d, alpha):
    """``alpha`` checked (PyTorch's ``alpha_check``) as the op's operand: None for 1. A 0-d tensor
    is PyTorch's Number: its value, or (inside a trace: a scheduled learning rate of a compiled
    optimizer step) the tensor itself."""
    if isinstance(alpha, Tensor):
        if alpha.ndim:
            raise TypeError(f"{name}(): argument 'alpha' must be Number, not Tensor")
        if not isinstance(alpha._data, jax.core.Tracer):
            alpha = alpha.item()
        else:
            _alpha_check(d, {_dtype.BOOL: False, _dtype.INT: 0, _dtype.FLOAT: 0.5, _dtype.COMPLEX: 1j}[alpha.dtype.kind])
            return alpha
    if type(alpha) is not int:
        _alpha_check(d, alpha)
    return None if alpha == 1 else alpha


def _alpha_check(d, alpha):
    """PyTorch's ``alpha_check``: the types of ``alpha`` that the result's dtype allows."""
    if isinstance(alpha, bool) and d is not _dtype.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if d.kind < _dtype.FLOAT and isinstance(alpha, (float, complex)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if d.kind < _dtype.COMPLEX and isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


@declare("add", method=True, inplace=True, out=True)
def add(input, other, *, alpha=1):
    """``input + alpha * other``; a Python number as ``input`` keeps its place (its slot in
    ``next_functions`` comes first, and ``alpha`` scales ``other``)."""
    a, b = as_operand(input), as_operand(other)
    d = result_type(a, b)
    return apply(E.add, (a, b, _alpha("add", d, alpha)), (d.np,))


def _sub_check(a, b, d):
    if d is _dtype.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if _dtype.bool_ in (getattr(a, "dtype", None), getattr(b, "dtype", None)) or isinstance(a, bool) or isinstance(
            b, bool):
        raise RuntimeError(_BOOL_SUB)


@declare("sub", "subtract", method=True, inplace=True, out=True)
def sub(input, other, *, alpha=1):
    a, b = as_operand(input), as_operand(other)
    d = result_type(a, b)
    _sub_check(a, b, d)
    return apply(E.sub, (a, b, _alpha("sub", d, alpha)), (d.np,))


def rsub_operator(self, other):
    """``other - self`` (``Tensor.__rsub__``): PyTorch's ``rsub``, ``RsubBackward1``."""
    other = as_operand(other)
    d = result_type(self, other)
    _sub_check(self, other, d)
    return apply(E.rsub, (self, other, None), (d.np,))


subtract = sub


@declare("rsub")
def rsub(input, other, *, alpha=1):
    _tensor_first("rsub", input, other, signatures=("(Tensor input, Tensor other, *, Number alpha = 1)",
                                                    "(Tensor input, Number other, Number alpha = 1)"))
    d = result_type(input, other)
    return apply(E.rsub, (input, other, _alpha("rsub", d, alpha)), (d.np,))


@declare("mul", "multiply", method=True, inplace=True, out=True)
def mul(input, other):
    a, b = as_operand(input), as_operand(other)
    return apply(E.mul, (a, b), (result_type(a, b).np,))


multiply = mul


@declare("div", "divide", "true_divide", method=True, inplace=True, out=True)
def div(input, other, *, rounding_mode=None):
    a, b = as_operand(input), as_operand(other)
    d = result_type(a, b)
    if rounding_mode is None:
        return apply(E.div, (a, b), (_float_of(d).np,))
    if rounding_mode == "floor":
        op = E.div_floor
    elif rounding_mode == "trunc":
        op = E.div_trunc
    else:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    if d is _dtype.bool_:
        _shapes_first(a, b)
        raise _not_implemented(f"div_{rounding_mode}_cpu", d)
    _nonzero_divisor(a, b, d)
    if not isinstance(a, Tensor):
        a = _tensor_factory(a, dtype=d)
    return apply(op, (a, b), (d.np,))


divide = div
true_divide = div


def rtruediv_operator(self, other):
    """``other / self`` (``Tensor.__rtruediv__``): PyTorch computes ``self.reciprocal() * other``."""
    d = _float_of(result_type(self, as_operand(other)))
    return mul(reciprocal(self if self.dtype is d else self.to(d)), other)


@declare("floor_divide", method=True, inplace=True, out=True)
def floor_divide(input, other):
    a, b = as_operand(input), as_operand(other)
    d = result_type(a, b)
    if d is _dtype.bool_:
        _shapes_first(a, b)
        raise _not_implemented("div_floor_cpu", d)
    _nonzero_divisor(a, b, d)
    if not isinstance(a, Tensor):
        a = _tensor_factory(a, dtype=d)
    return apply(E.floor_divide, (a, b), (d.np,))


@declare("remainder", method=True, inplace=True, out=True)
def remainder(input, other):
    _one_tensor("remainder", input, other, scalar_self_out=False)
    a, b = as_operand(input), as_operand(other)
    if not isinstance(a, Tensor):
        a = _tensor_factory(a)
    d = result_type(a, b)
    if d is _dtype.bool_:
        _shapes_first(a, b)
        raise _not_implemented("remainder_cpu", d)
    _nonzero_divisor(a, b, d)
    if not isinstance(b, Tensor):
        # a Python number is configuration, not an input: RemainderBackward0 with one slot
        return apply(E.remainder_scalar, (a, b), (d.np,))
    return apply(E.remainder, (a, b), (d.np,))


@declare("pow", method=True, inplace=True, out=True)
def pow(input, exponent):
    _one_tensor("pow", input, exponent, "exponent")
    a, b = as_operand(input), as_operand(exponent)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a.dtype is _dtype.bool_ and b.dtype is _dtype.bool_:
            raise _not_implemented("pow", _dtype.bool_)
        return _binary(E.pow_tensor, a, b)
    if isinstance(a, Tensor):
        d = result_type(a, b)
        if d.kind == _dtype.INT and isinstance(b, int) and b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return apply(E.pow_scalar, (a, b), (d.np,))
    d = result_type(a, b)
    return apply(E.pow_scalar_base, (b, a), (d.np,))


@declare("maximum", method=True, inplace=True, out=True)
def maximum(input, other):
    _tensor_input("maximum", input)
    _tensor_other("maximum", other)
    return _binary(CL.maximum, input, other)


@declare("minimum", method=True, inplace=True, out=True)
def minimum(input, other):
    _tensor_input("minimum", input)
    _tensor_other("minimum", other)
    return _binary(CL.minimum, input, other)


def _atan2(name):
    def atan2(input, other):
        _tensor_input(name, input)
        _tensor_other(name, other)
        a, b = as_operand(input), as_operand(other)
        d = _float_of(result_type(a, b))
        return apply(E.atan2, (a, b), (d.np,))
    atan2.__name__ = name
    return atan2


# two functions only so that each one's TypeError names it
atan2 = _atan2("atan2")
declare("atan2", method=True, inplace=True, out=True)(atan2)
arctan2 = _atan2("arctan2")
declare("arctan2", method=True, inplace=True, out=True)(arctan2)


# ---------------------------------------------------------------- unary

def _unary_float(op):
    """A unary function that computes in floating point (integers promote to the default float)."""
    def unary(input):
        _tensor_input(op.name, input)
        return apply(op, (input,), (_float_of(input.dtype).np,))
    unary.__name__ = op.name
    return unary


def _unary_same(op, reject=None):
    """A unary function that keeps the input dtype; ``reject(dtype)`` gives PyTorch's error for a
    dtype it refuses (or None)."""
    def unary(input):
        _tensor_input(op.name, input)
        d = input.dtype
        if reject is not None:
            error = reject(d)
            if error is not None:
                raise error
        return apply(op, (input,), (d.np,))
    unary.__name__ = op.name
    return unary


def _no_bool(kernel):
    return lambda d: _not_implemented(kernel, d) if d is _dtype.bool_ else None


def _neg_bool(d):
    if d is _dtype.bool_:
        return RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                            "invert a mask, use the `~` or `logical_not()` operator instead.")
    return None


neg = _unary_same(E.neg, _neg_bool)
declare("neg", "negative", method=True, inplace=True, out=True)(neg)
negative = neg


abs = _unary_same(E.abs_, _no_bool("abs_cpu"))
declare("abs", "absolute", method=True, inplace=True, out=True)(abs)
absolute = abs


_square = _unary_same(E.square)


@declare("square", method=True, inplace=True, out=True)
def square(input):
    _tensor_input("square", input)
    if input.dtype is _dtype.bool_:
        return pow(input, 2)  # bool ** 2 is int64, as in PyTorch
    return _square(input)


sign = _unary_same(E.sign)
declare("sign", method=True, inplace=True, out=True)(sign)


floor = _unary_same(E.floor, _no_bool("floor_vml_cpu"))
declare("floor", method=True, inplace=True, out=True)(floor)


ceil = _unary_same(E.ceil, _no_bool("ceil_vml_cpu"))
declare("ceil", method=True, inplace=True, out=True)(ceil)


trunc = _unary_same(E.trunc, _no_bool("trunc_vml_cpu"))
declare("fix", "trunc", method=True, inplace=True, out=True)(trunc)
fix = trunc


frac = _unary_same(E.frac, lambda d: _not_implemented("frac_cpu", d) if d.kind < _dtype.FLOAT else None)
declare("frac", method=True, inplace=True, out=True)(frac)


relu = _unary_same(E.relu, lambda d: RuntimeError("Boolean inputs not supported for relu") if d is _dtype.bool_ else None)
declare("relu", method=True, inplace=True)(relu)


exp = _unary_float(E.exp)
declare("exp", method=True, inplace=True, out=True)(exp)


exp2 = _unary_float(E.exp2)
declare("exp2", "special.exp2", method=True, inplace=True, out=True)(exp2)


expm1 = _unary_float(E.expm1)
declare("expm1", "special.expm1", method=True, inplace=True, out=True)(expm1)


log = _unary_float(E.log)
declare("log", method=True, inplace=True, out=True)(log)


log2 = _unary_float(E.log2)
declare("log2", method=True, inplace=True, out=True)(log2)


log10 = _unary_float(E.log10)
declare("log10", method=True, inplace=True, out=True)(log10)


log1p = _unary_float(E.log1p)
declare("log1p", "special.log1p", method=True, inplace=True, out=True)(log1p)


sqrt = _unary_float(E.sqrt)
declare("sqrt", method=True, inplace=True, out=True)(sqrt)


rsqrt = _unary_float(E.rsqrt)
declare("rsqrt", method=True, inplace=True, out=True)(rsqrt)


sin = _unary_float(E.sin)
declare("sin", method=True, inplace=True, out=True)(sin)


cos = _unary_float(E.cos)
declare("cos", method=True, inplace=True, out=True)(cos)


tan = _unary_float(E.tan)
declare("tan", method=True, inplace=True, out=True)(tan)


asin = _unary_float(E.asin)
declare("arcsin", "asin", method=True, inplace=True, out=True)(asin)


acos = _unary_float(E.acos)
declare("acos", "arccos", method=True, inplace=True, out=True)(acos)


atan = _unary_float(E.atan)
declare("arctan", "atan", method=True, inplace=True, out=True)(atan)


arcsin, arccos, arctan = asin, acos, atan


sinh = _unary_float(E.sinh)
declare("sinh", method=True, inplace=True, out=True)(sinh)


cosh = _unary_float(E.cosh)
declare("cosh", method=True, inplace=True, out=True)(cosh)


tanh = _unary_float(E.tanh)
declare("tanh", method=True, inplace=True, out=True)(tanh)


asinh = _unary_float(E.asinh)
declare("asinh", "arcsinh", method=True, inplace=True, out=True)(asinh)


acosh = _unary_float(E.acosh)
declare("acosh", "arccosh", method=True, inplace=True, out=True)(acosh)


atanh = _unary_float(E.atanh)
declare("atanh", "arctanh", method=True, inplace=True, out=True)(atanh)


sigmoid = _unary_float(E.sigmoid)
declare("sigmoid", "special.expit", method=True, inplace=True, out=True)(sigmoid)


reciprocal = _unary_float(E.reciprocal)
declare("reciprocal", method=True, inplace=True, out=True)(reciprocal)


# ---------------------------------------------------------------- rounding, clamping, selecting

@declare("round", method=True, inplace=True, out=True)
def round(input, *, decimals=0):
    _tensor_input("round", input)
    if decimals:
        if input.dtype.kind < _dtype.FLOAT:
            raise NotImplementedError(f"\"round_cpu\" not implemented for '{input.dtype.c_name}'")
        return apply(E.round_decimals, (input,), (input.dtype.np, int(decimals)))
    if input.dtype is _dtype.bool_:
        raise _not_implemented("round_vml_cpu", input.dtype)
    return apply(E.round_, (input,), (input.dtype.np, decimals))


@declare("clamp", "clip", method=True, inplace=True, out=True)
def clamp(input, min=None, max=None):
    """Clamp into ``[min, max]``; the gradient is 1 on the closed interval, as in PyTorch."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if not ((min is None or isinstance(min, Tensor)) and (max is None or isinstance(max, Tensor))):
            raise TypeError(
                f"clamp() received an invalid combination of arguments - got (Tensor, min={type(min).__name__}, "
                f"max={type(max).__name__}), but expected one of:\n"
                " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
        d = result_type(input, *(v for v in (min, max) if v is not None))
        if d is _dtype.bool_ and min is not None and max is not None:
            raise _not_implemented("clamp_cpu", d)  # one bool bound is accepted, two are not
        # ClampBackward0: an absent bound is passed as 0 and gets an empty next_functions slot
        return apply(CL.clamp_tensor, (input, 0 if min is None else min, 0 if max is None else max),
                     (d.np, min is not None, max is not None))
    d = result_type(input, *(v for v in (min, max) if v is not None))
    return apply(CL.clamp, (input, min, max), (d.np,))


clip = clamp


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


@declare(method=("where",))
def where_method(self, condition, other):
    """``x.where(condition, y)``: ``where(condition, x, y)``."""
    return where(condition, self, other)


@declare("where", out=out_with("input", "other", tensors=True))
def where(condition, input=None, other=None):
    """``where(c, x, y)`` picks from x where c is true; ``where(c)`` is ``nonzero(c, as_tuple=True)``."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    a, b = as_operand(input), as_operand(other)
    if condition.dtype is not _dtype.bool_:
        if condition.dtype is _dtype.uint8:
            condition = condition.to(_dtype.bool_)
        else:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {condition.dtype.c_name}")
    return apply(E.where, (condition, a, b), (result_type(a, b).np,))


# ---------------------------------------------------------------- unary functions beyond the basics

def _floating(op, input):
    return apply(op, (input,), (_float_of(input.dtype).np,))


@declare("nan_to_num", method=True, inplace=True, out=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Replace NaN, +inf and -inf by ``nan``, ``posinf`` (default: the dtype's largest finite
    value) and ``neginf`` (its most negative); the gradient is 0 at replaced entries."""
    return apply(E.nan_to_num, (input,), (input.dtype.np, nan, posinf, neginf))


@declare("sgn", method=True, inplace=True, out=True)
def sgn(input):
    """The sign (for real tensors the same as ``sign``; node ``SgnBackward0``)."""
    return apply(E.sgn, (input,), (input.dtype.np,))


@declare("deg2rad", method=True, inplace=True, out=True)
def deg2rad(input):
    if input.dtype.is_complex:
        raise RuntimeError("deg2rad is not supported for complex tensors.")
    return _floating(E.deg2rad, input)


@declare("rad2deg", method=True, inplace=True, out=True)
def rad2deg(input):
    if input.dtype.is_complex:
        raise RuntimeError("rad2deg is not supported for complex tensors.")
    return _floating(E.rad2deg, input)


@declare("positive", method=True)
def positive(input):
    """``+input``: the tensor itself (bool tensors are rejected, as in PyTorch)."""
    if input.dtype is _dtype.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---------------------------------------------------------------- frexp

@declare("frexp", method=True, out=True)
def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2**exponent`` and ``0.5 <= |mantissa| < 1``
    (named tuple ``frexp``; the exponent is int32)."""
    if input.dtype.kind != _dtype.FLOAT:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return _named("frexp", ("mantissa", "exponent"))(*apply(E.frexp, (input,)))
