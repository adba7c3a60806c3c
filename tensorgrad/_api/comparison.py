"""Torch-level comparisons and logic: eq..ge, logical_* and bitwise_* (with PyTorch's promotion),
isclose/allclose/equal and the value tests isnan/isinf/isfinite/signbit/isposinf/isneginf.
"""

from .. import _dtype
from .._ops import comparison as CMP
from .._tensor import Tensor, apply
from .creation import tensor as _tensor_factory
from .operands import as_operand, result_type, _not_implemented, _shapes_first, _tensor_first, _tensor_input, _tensor_other
from .surface import declare


# ---------------------------------------------------------------- comparisons and logic

def _compare(op, name=None):
    name = name or op.name

    def compare(input, other):
        _tensor_first(name, input, other)
        return _compared(op, input, other)
    compare.__name__ = name
    return compare


_ORDERED = {"lt", "le", "gt", "ge"}


def _compared(op, input, other):
    a, b = as_operand(input), as_operand(other)
    if not isinstance(a, Tensor):
        a = _tensor_factory(a)
    d = result_type(a, b)
    if d.kind == _dtype.COMPLEX and op.name in _ORDERED and isinstance(b, complex):
        # a complex number against a real tensor (complex tensors raise in the kernel's check)
        raise NotImplementedError(f"\"{op.name}_cpu\" not implemented for '{d.c_name}'")
    return apply(op, (a, b), (d.np,))


eq = _compare(CMP.eq)
declare("eq", method=True, inplace=True, out=True)(eq)


# each alias is its own function only so that its TypeError names it, as PyTorch's parser does
ne = _compare(CMP.ne)
declare("ne", method=True, inplace=True, out=True)(ne)
not_equal = _compare(CMP.ne, "not_equal")
declare("not_equal", method=True, inplace=True, out=True)(not_equal)


lt = _compare(CMP.lt)
declare("lt", method=True, inplace=True, out=True)(lt)
less = _compare(CMP.lt, "less")
declare("less", method=True, inplace=True, out=True)(less)


le = _compare(CMP.le)
declare("le", method=True, inplace=True, out=True)(le)
less_equal = _compare(CMP.le, "less_equal")
declare("less_equal", method=True, inplace=True, out=True)(less_equal)


gt = _compare(CMP.gt)
declare("gt", method=True, inplace=True, out=True)(gt)
greater = _compare(CMP.gt, "greater")
declare("greater", method=True, inplace=True, out=True)(greater)


ge = _compare(CMP.ge)
declare("ge", method=True, inplace=True, out=True)(ge)
greater_equal = _compare(CMP.ge, "greater_equal")
declare("greater_equal", method=True, inplace=True, out=True)(greater_equal)


def _logical(op):
    def logical(input, other):
        _tensor_input(op.name, input)
        _tensor_other(op.name, other)
        return _compared(op, input, other)
    logical.__name__ = op.name
    return logical


logical_and = _logical(CMP.logical_and)
declare("logical_and", method=True, inplace=True, out=True)(logical_and)


logical_or = _logical(CMP.logical_or)
declare("logical_or", method=True, inplace=True, out=True)(logical_or)


logical_xor = _logical(CMP.logical_xor)
declare("logical_xor", method=True, inplace=True, out=True)(logical_xor)


def _bitwise(op):
    def bitwise(input, other):
        d = result_type(input, other)
        if d.kind > _dtype.INT:
            _shapes_first(input, other)
            raise _not_implemented(f"{op.name}_cpu", d)
        return apply(op, (input, other), (d.np,))
    bitwise.__name__ = op.name
    return bitwise


bitwise_and = _bitwise(CMP.bitwise_and)
declare("bitwise_and", method=True, inplace=True, out=True)(bitwise_and)


bitwise_or = _bitwise(CMP.bitwise_or)
declare("bitwise_or", method=True, inplace=True, out=True)(bitwise_or)


bitwise_xor = _bitwise(CMP.bitwise_xor)
declare("bitwise_xor", method=True, inplace=True, out=True)(bitwise_xor)


@declare("logical_not", method=True, inplace=True, out=True)
def logical_not(input):
    _tensor_input("logical_not", input)
    return apply(CMP.logical_not, (input,))


@declare("bitwise_not", method=True, inplace=True, out=True)
def bitwise_not(input):
    _tensor_input("bitwise_not", input)
    if input.dtype.kind > _dtype.INT:
        raise _not_implemented("bitwise_not_cpu", input.dtype)
    return apply(CMP.bitwise_not, (input,))


@declare("isclose", method=True)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _tensor_input("isclose", input)
    _tensor_other("isclose", other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype.c_name} did not match {other.dtype.c_name}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol:g}")
    return apply(CMP.isclose, (input, other), (result_type(input, other).np, rtol, atol, equal_nan))


@declare("allclose", method=True)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _tensor_other("allclose", other)
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


@declare("equal", method=True)
def equal(input, other):
    _tensor_other("equal", other)
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(eq(input, other).all())


@declare("isnan", method=True)
def isnan(input):
    _tensor_input("isnan", input)
    return apply(CMP.isnan, (input,))


@declare("isinf", method=True)
def isinf(input):
    _tensor_input("isinf", input)
    return apply(CMP.isinf, (input,))


@declare("isfinite", method=True)
def isfinite(input):
    _tensor_input("isfinite", input)
    return apply(CMP.isfinite, (input,))


# ---------------------------------------------------------------- sign and infinity tests

@declare("signbit", method=True, out=True)
def signbit(input):
    return apply(CMP.signbit, (input,))


@declare("isposinf", method=True, out=True)
def isposinf(input):
    return apply(CMP.isposinf, (input,))


@declare("isneginf", method=True, out=True)
def isneginf(input):
    return apply(CMP.isneginf, (input,))
