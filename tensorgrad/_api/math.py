"""Torch-level math: arithmetic with PyTorch's promotion, unary functions, reductions, products."""

import builtins
import collections
import warnings

import numpy as np

from .. import _dtype
from .._ops import elementwise as E
from .._ops import comparison as CMP
from .._ops import products as L
from .._ops import reduction as R
from .._ops import shape as SH
from .._ops import cumulative as CU
from .._ops import special as SP
from .._autograd.grad_mode import STATE
from .._tensor import Tensor, apply, _wrap_dim, _C_TYPE
from .creation import tensor as _tensor_factory
from . import strides as _strides
from .surface import declare, out_with


_NUMBERS = (int, float, bool, complex, np.number, np.bool_)


_FAST_OPERANDS = {Tensor, float, int}


def as_operand(x):
    """Tensors and Python numbers pass; numpy arrays and lists become tensors."""
    if type(x) in _FAST_OPERANDS:
        return x
    if isinstance(x, Tensor) or isinstance(x, _NUMBERS):
        return x.item() if isinstance(x, np.generic) else x
    if x is None:
        raise TypeError("unsupported operand type: 'NoneType'")
    try:
        return _tensor_factory(x)
    except TypeError:
        raise TypeError(f"unsupported operand type: '{type(x).__name__}'") from None


_RT2 = {}


@declare("result_type")
def result_type(*operands):
    """PyTorch's promoted dtype of tensors and Python numbers."""
    if len(operands) == 2:
        # the common binary case, cached on (dtype, is 0-d) of tensors and the type of numbers
        a, b = operands
        ka = (a._data.dtype, a._data.ndim == 0) if isinstance(a, Tensor) else type(a)
        kb = (b._data.dtype, b._data.ndim == 0) if isinstance(b, Tensor) else type(b)
        key = (ka, kb, _dtype.get_default_dtype())
        hit = _RT2.get(key)
        if hit is None:
            hit = _RT2[key] = _result_type(operands)
        return hit
    return _result_type(operands)


def _result_type(operands):
    dims = []
    zeros = []
    scalars = []
    for x in operands:
        if isinstance(x, Tensor):
            arr = x._data
            (dims if arr.ndim else zeros).append(_dtype.FROM_NP[arr.dtype])
        elif x is not None:
            scalars.append(_dtype.scalar_dtype(x).kind)
    return _dtype.result_type3(tuple(dims), tuple(zeros), tuple(scalars))


def _binary(op, a, b, **cfg):
    a = as_operand(a)
    b = as_operand(b)
    d = result_type(a, b)
    return apply(op, (a, b), (d.np,) + tuple(cfg.values()))


def _float_of(d):
    return d if d.kind >= _dtype.FLOAT else _dtype.get_default_dtype()


def _not_implemented(kernel, d):
    """PyTorch's error for a dtype that an op's CPU kernel does not handle."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{d.c_name}'")


def _tensor_input(name, input):
    """PyTorch's TypeError for a non-Tensor ``input`` (``torch.exp(1.5)``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _tensor_other(name, other):
    """PyTorch's TypeError where an op takes only a Tensor as ``other`` (no Python numbers)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")


_BOOL_SUB = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")


# ---------------------------------------------------------------- arithmetic

@declare("add", method=True, inplace=True, out=True)
def add(input, other, *, alpha=1):
    a, b = as_operand(input), as_operand(other)
    if not isinstance(a, Tensor):
        a, b = b, a
    d = result_type(a, b)
    return apply(E.add, (a, b, None if alpha == 1 else alpha), (d.np,))


@declare("sub", "subtract", method=True, inplace=True, out=True)
def sub(input, other, *, alpha=1):
    a, b = as_operand(input), as_operand(other)
    d = result_type(a, b)
    if d is _dtype.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if _dtype.bool_ in (getattr(a, "dtype", None), getattr(b, "dtype", None)) or isinstance(a, bool) or isinstance(
            b, bool):
        raise RuntimeError(_BOOL_SUB)
    if not isinstance(a, Tensor):
        return apply(E.rsub, (b, a, None if alpha == 1 else alpha), (d.np,))
    return apply(E.sub, (a, b, None if alpha == 1 else alpha), (d.np,))


subtract = sub


@declare("rsub")
def rsub(input, other, *, alpha=1):
    d = result_type(input, other)
    return apply(E.rsub, (input, other, None if alpha == 1 else alpha), (d.np,))


@declare("mul", "multiply", method=True, inplace=True, out=True)
def mul(input, other):
    a, b = as_operand(input), as_operand(other)
    if not isinstance(a, Tensor):
        a, b = b, a
    return apply(E.mul, (a, b), (result_type(a, b).np,))


multiply = mul


@declare("div", "divide", "true_divide", method=True, inplace=True, out=True)
def div(input, other, *, rounding_mode=None):
    a, b = as_operand(input), as_operand(other)
    d = result_type(a, b)
    if rounding_mode is None:
        d = _float_of(d)
        if not isinstance(a, Tensor):
            # PyTorch computes number / tensor as reciprocal(tensor) * number
            return mul(reciprocal(b if b.dtype is d else b.to(d)), a)
        return apply(E.div, (a, b), (d.np,))
    if rounding_mode == "floor":
        op = E.div_floor
    elif rounding_mode == "trunc":
        op = E.div_trunc
    else:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    if d is _dtype.bool_:
        raise _not_implemented(f"div_{rounding_mode}_cpu", d)
    if not isinstance(a, Tensor):
        a = _tensor_factory(a, dtype=d)
    return apply(op, (a, b), (d.np,))


divide = div
true_divide = div


@declare("floor_divide", method=True, inplace=True, out=True)
def floor_divide(input, other):
    a, b = as_operand(input), as_operand(other)
    d = result_type(a, b)
    if d is _dtype.bool_:
        raise _not_implemented("div_floor_cpu", d)
    if not isinstance(a, Tensor):
        a = _tensor_factory(a, dtype=d)
    return apply(E.floor_divide, (a, b), (d.np,))


@declare("remainder", method=True, inplace=True, out=True)
def remainder(input, other):
    a, b = as_operand(input), as_operand(other)
    if not isinstance(a, Tensor):
        a = _tensor_factory(a)
    d = result_type(a, b)
    if d is _dtype.bool_:
        raise _not_implemented("remainder_cpu", d)
    if not isinstance(b, Tensor):
        # a Python number is configuration, not an input: RemainderBackward0 with one slot
        return apply(E.remainder_scalar, (a, b), (d.np,))
    return apply(E.remainder, (a, b), (d.np,))


@declare("pow", method=True, inplace=True, out=True)
def pow(input, exponent):
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
    _tensor_other("maximum", other)
    return _binary(E.maximum, input, other)


@declare("minimum", method=True, inplace=True, out=True)
def minimum(input, other):
    _tensor_other("minimum", other)
    return _binary(E.minimum, input, other)


@declare("arctan2", "atan2", method=True, inplace=("atan2_",), out=True)
def atan2(input, other):
    _tensor_other("atan2", other)
    a, b = as_operand(input), as_operand(other)
    d = _float_of(result_type(a, b))
    return apply(E.atan2, (a, b), (d.np,))


arctan2 = atan2


# ---------------------------------------------------------------- comparisons and logic

def _compare(op):
    def compare(input, other):
        a, b = as_operand(input), as_operand(other)
        if not isinstance(a, Tensor):
            a = _tensor_factory(a)
        return apply(op, (a, b), (result_type(a, b).np,))
    compare.__name__ = op.name
    return compare


eq = _compare(CMP.eq)
declare("eq", method=True, inplace=True, out=True)(eq)
ne = _compare(CMP.ne)
declare("ne", "not_equal", method=True, inplace=("ne_",), out=True)(ne)
lt = _compare(CMP.lt)
declare("less", "lt", method=True, inplace=("lt_",), out=True)(lt)
le = _compare(CMP.le)
declare("le", "less_equal", method=True, inplace=("le_",), out=True)(le)
gt = _compare(CMP.gt)
declare("greater", "gt", method=True, inplace=("gt_",), out=True)(gt)
ge = _compare(CMP.ge)
declare("ge", "greater_equal", method=True, inplace=("ge_",), out=True)(ge)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _logical(op):
    compare = _compare(op)

    def logical(input, other):
        _tensor_other(op.name, other)
        return compare(input, other)
    logical.__name__ = op.name
    return logical


logical_and = _logical(CMP.logical_and)
declare("logical_and", method=True, inplace=True, out=True)(logical_and)
logical_or = _logical(CMP.logical_or)
declare("logical_or", method=True, inplace=True, out=True)(logical_or)
logical_xor = _logical(CMP.logical_xor)
declare("logical_xor", method=True, out=True)(logical_xor)


def _bitwise(op):
    def bitwise(input, other):
        d = result_type(input, other)
        if d.kind > _dtype.INT:
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


@declare("bitwise_not", method=True, out=True)
def bitwise_not(input):
    _tensor_input("bitwise_not", input)
    if input.dtype.kind > _dtype.INT:
        raise _not_implemented("bitwise_not_cpu", input.dtype)
    return apply(CMP.bitwise_not, (input,))


@declare("isclose", method=True)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _tensor_other("isclose", other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype.c_name} did not match {other.dtype.c_name}")
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
declare("fix", "trunc", method=True, inplace=("trunc_",), out=True)(trunc)
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
declare("arcsin", "asin", method=True, inplace=("asin_",), out=True)(asin)
acos = _unary_float(E.acos)
declare("acos", "arccos", method=True, inplace=("acos_",), out=True)(acos)
atan = _unary_float(E.atan)
declare("arctan", "atan", method=True, inplace=("atan_",), out=True)(atan)
arcsin, arccos, arctan = asin, acos, atan
sinh = _unary_float(E.sinh)
declare("sinh", method=True, inplace=True, out=True)(sinh)
cosh = _unary_float(E.cosh)
declare("cosh", method=True, inplace=True, out=True)(cosh)
tanh = _unary_float(E.tanh)
declare("tanh", method=True, inplace=True, out=True)(tanh)
asinh = _unary_float(E.asinh)
declare("asinh", method=True, out=True)(asinh)
acosh = _unary_float(E.acosh)
declare("acosh", method=True, out=True)(acosh)
atanh = _unary_float(E.atanh)
declare("atanh", method=True, out=True)(atanh)
sigmoid = _unary_float(E.sigmoid)
declare("sigmoid", "special.expit", method=True, inplace=True, out=True)(sigmoid)
reciprocal = _unary_float(E.reciprocal)
declare("reciprocal", method=True, inplace=True, out=True)(reciprocal)
erf = _unary_float(SP.erf)
declare("erf", "special.erf", method=True, inplace=True, out=True)(erf)
erfc = _unary_float(SP.erfc)
declare("erfc", "special.erfc", method=True, out=True)(erfc)
erfinv = _unary_float(SP.erfinv)
declare("erfinv", "special.erfinv", method=True, out=True)(erfinv)
lgamma = _unary_float(SP.lgamma)
declare("lgamma", "special.gammaln", method=True, out=True)(lgamma)
digamma = _unary_float(SP.digamma)
declare("digamma", "special.digamma", "special.psi", method=True, out=True)(digamma)


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
        return apply(E.clamp_tensor, (input, 0 if min is None else min, 0 if max is None else max),
                     (d.np, min is not None, max is not None))
    d = result_type(input, *(v for v in (min, max) if v is not None))
    return apply(E.clamp, (input, min, max), (d.np,))


clip = clamp


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


@declare("where", method=True, out=out_with("input", "other", tensors=True))
def where(condition, input=None, other=None):
    """``where(c, x, y)`` picks from x where c is true; ``where(c)`` is ``nonzero(c, as_tuple=True)``."""
    if input is None and other is None:
        from .shape import nonzero
        return nonzero(condition, as_tuple=True)
    a, b = as_operand(input), as_operand(other)
    if condition.dtype is not _dtype.bool_:
        if condition.dtype is _dtype.uint8:
            condition = condition.to(_dtype.bool_)
        else:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {condition.dtype.c_name}")
    return apply(E.where, (condition, a, b), (result_type(a, b).np,))


# ---------------------------------------------------------------- reductions

def _dims(dim, ndim):
    """Normalize ``dim`` (int, tuple, list or None) to a sorted tuple of non-negative axes."""
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    out = []
    for d in dim:
        d = _wrap_dim(int(d), ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    # a 0-d tensor accepts dim 0 or -1 and has no axis to reduce
    return tuple(out) if ndim else ()


def _sum_dtype(d, dtype):
    if dtype is not None:
        return _dtype.to_dtype(dtype)
    return _dtype.int64 if d.kind <= _dtype.INT else d


@declare("sum", method=True, out=out_with("dim"))
def sum(input, dim=None, keepdim=False, *, dtype=None):
    d = _sum_dtype(input.dtype, dtype)
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0 and input.ndim == 0):
        return apply(R.sum_all, (input,), (d.np,))
    return apply(R.sum_dim, (input,), (_dims(dim, input.ndim), keepdim, d.np))


@declare("nansum", method=True, out=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum treating NaN as 0 (``NansumBackward0``; NaN entries get no gradient)."""
    d = _sum_dtype(input.dtype, dtype)
    return apply(R.nansum, (input,), (None if dim is None else _dims(dim, input.ndim), keepdim, d.np))


@declare("mean", method=True, out=True)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    d = input.dtype if dtype is None else _dtype.to_dtype(dtype)
    if d.kind < _dtype.FLOAT:
        raise RuntimeError(
            f"mean(): could not infer output dtype. {'Input' if dtype is None else 'Optional'} dtype must be either "
            f"a floating point or complex dtype. Got: {d.c_name}")
    if dim is None:
        return apply(R.mean_all, (input,), (d.np,))
    return apply(R.mean_dim, (input,), (_dims(dim, input.ndim), keepdim, d.np))


@declare("prod", method=True, out=out_with("dim"))
def prod(input, dim=None, keepdim=False, *, dtype=None):
    d = _sum_dtype(input.dtype, dtype)
    if dim is None:
        return apply(R.prod, (input,), (d.np,))
    return apply(R.prod_dim, (input,), (_wrap_dim(dim, input.ndim), keepdim, d.np))


_ReturnTypes = {}


def _named(name, fields=("values", "indices")):
    cls = _ReturnTypes.get(name)
    if cls is None:
        base = collections.namedtuple(name, fields)

        class Result(base):
            __slots__ = ()

            def __repr__(self):
                inner = ",\n".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
                return f"torch.return_types.{name}(\n{inner})"
        Result.__name__ = Result.__qualname__ = name
        cls = _ReturnTypes[name] = Result
    return cls


def _extreme(op_all, op_dim, binary, name):
    def extreme(input, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            return binary(input, dim)
        if dim is not None and not isinstance(dim, (int, np.integer)):
            raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                            f"{type(dim).__name__}), but expected (Tensor input, int dim, bool keepdim = False) "
                            "or (Tensor input, Tensor other)")
        if dim is None:
            if input.numel() == 0:
                raise RuntimeError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                    "reduction dim with the 'dim' argument.")
            return apply(op_all, (input,))
        dim = _wrap_dim(dim, input.ndim)
        values, indices = apply(op_dim, (input,), (dim, keepdim))
        return _named(name)(values, indices)
    extreme.__name__ = name
    return extreme


max = _extreme(R.max_all, R.max_dim, maximum, "max")
declare("max", method=True, out=True)(max)
min = _extreme(R.min_all, R.min_dim, minimum, "min")
declare("min", method=True, out=True)(min)


@declare("amax", method=True, out=True)
def amax(input, dim=(), keepdim=False):
    dims = _dims(dim, input.ndim) if dim != () else None
    return apply(R.amax, (input,), (dims, keepdim))


@declare("amin", method=True, out=True)
def amin(input, dim=(), keepdim=False):
    dims = _dims(dim, input.ndim) if dim != () else None
    return apply(R.amin, (input,), (dims, keepdim))


def _check_arg_extreme(name, input, dim):
    if input.dtype is _dtype.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None and input.numel() == 0:
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")


@declare("argmax", method=True, out=True)
def argmax(input, dim=None, keepdim=False):
    _check_arg_extreme("argmax", input, dim)
    return apply(R.argmax, (input,), (None if dim is None else _wrap_dim(dim, input.ndim), keepdim))


@declare("argmin", method=True, out=True)
def argmin(input, dim=None, keepdim=False):
    _check_arg_extreme("argmin", input, dim)
    return apply(R.argmin, (input,), (None if dim is None else _wrap_dim(dim, input.ndim), keepdim))


@declare("all", method=True, out=True)
def all(input, dim=None, keepdim=False):
    return apply(R.all_, (input,), (_dims(dim, input.ndim), keepdim))


@declare("any", method=True, out=True)
def any(input, dim=None, keepdim=False):
    return apply(R.any_, (input,), (_dims(dim, input.ndim), keepdim))


@declare("norm", method=True, out=True, numpy_names=False)
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The vector norm over all elements or ``dim`` (``"fro"`` is the 2-norm)."""
    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        raise NotImplementedError("nuclear norm is provided by linalg.matrix_norm")
    d = input.dtype if dtype is None else _dtype.to_dtype(dtype)
    if d.kind < _dtype.FLOAT:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {d.c_name}")
    return apply(R.vector_norm, (input,), (float(p), _dims(dim, input.ndim), keepdim, d.to_real().np))


@declare("logsumexp", method=True, out=True)
@declare("special.logsumexp", out=True)
def logsumexp(input, dim, keepdim=False):
    if input.dtype.kind < _dtype.FLOAT:
        input = input.to(_dtype.get_default_dtype())
    return apply(R.logsumexp, (input,), (_dims(dim, input.ndim), keepdim))


@declare("cumsum", method=True, out=True)
def cumsum(input, dim, *, dtype=None):
    d = _sum_dtype(input.dtype, dtype)
    return apply(CU.cumsum, (input,), (_wrap_dim(dim, input.ndim), d.np))


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def _check_var(input):
    if input.dtype.kind < _dtype.FLOAT:
        raise RuntimeError("std and var only support floating point and complex dtypes")


_DOF_WARNING = ("{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
                "(input numel divided by output numel). (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)")


def _variance(op, input, dim, unbiased, correction, keepdim):
    _check_var(input)
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    dims = _dims(dim, input.ndim)
    correction = _correction(unbiased, correction)
    out_numel = 1
    for i, size in enumerate(input.shape):
        if dims is not None and i not in dims:
            out_numel *= size
    if (input.numel() // out_numel if out_numel else 0) - correction <= 0:
        warnings.warn(_DOF_WARNING.format(op.name), UserWarning, stacklevel=3)
    return apply(op, (input,), (dims, correction, keepdim))


@declare("var", method=True, out=True)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _variance(R.var, input, dim, unbiased, correction, keepdim)


@declare("std", method=True, out=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _variance(R.std, input, dim, unbiased, correction, keepdim)


# ---------------------------------------------------------------- products

def _same_dtype(name, a, b, what="vectors"):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{name} : expected both {what} to have same dtype, but found {a.dtype.c_name} and {b.dtype.c_name}")


@declare("dot", "inner", method=True, out=True)
def dot(input, other):
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    _same_dtype("dot", input, other)
    if input.dtype is _dtype.bool_:
        raise _not_implemented("dot", input.dtype)
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] to have "
            f"the same number of elements, but got {input.shape[0]} and {other.shape[0]} elements respectively")
    return apply(L.dot, (input, other))


inner = dot


@declare("mv", method=True, out=True)
def mv(input, vec):
    _check_mm(input, vec, "mv")
    return apply(L.mv, (input, vec))


_MM_KERNELS = {"mv": "addmv_impl_cpu", "bmm": "bmm"}


def _check_mm(a, b, name):
    if a.dtype is not b.dtype:
        if name == "mv":
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {b.dtype.c_name}, "
                               f"{a.dtype.c_name}, and {b.dtype.c_name}")
        if name == "bmm":
            raise RuntimeError(f"expected scalar type {a.dtype.c_name} but found {b.dtype.c_name}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_C_TYPE[a.dtype.name]} != "
                           f"{_C_TYPE[b.dtype.name]}")
    if a.dtype is _dtype.bool_:
        raise _not_implemented(_MM_KERNELS.get(name, "addmm_impl_cpu_"), a.dtype)
    if a.shape[-1] != b.shape[0 if b.ndim == 1 else -2]:
        if name == "mv":
            raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), vec ({b.shape[0]})")
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[-2]}x{a.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")


@declare("mm", method=True, out=True)
def mm(input, mat2):
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm(input, mat2, "mm")
    return apply(L.mm, (input, mat2))


@declare("bmm", method=True, out=True)
def bmm(input, mat2):
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if input.ndim != 3 else "batch2 must be a 3D tensor")
    _check_mm(input, mat2, "bmm")
    return apply(L.bmm, (input, mat2))


@declare("matmul", "linalg.matmul", method=True, out=True)
def matmul(input, other):
    """Matrix product with numpy's rules, recorded as PyTorch records each case: ``dot``,
    ``mv``, ``mm``, a squeezed ``mm`` for 1-D @ 2-D; beyond 2-D, the larger operand's batch
    folded into the rows of one ``mm``/``mv`` (``should_fold``), or else both operands expanded
    to a common batch and reshaped for one ``bmm``, and the result ``_unsafe_view``-ed back."""
    a, b = input, other
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da <= 2 and db <= 2:
        if da == 2:
            return mm(a, b) if db == 2 else mv(a, b)
        if db == 1:
            return dot(a, b)
        _check_mm(a.unsqueeze(0), b, "mm")
        return apply(SH.squeeze_copy, (mm(a.unsqueeze(0), b),), (0,))
    sa, sb = a._data.shape, b._data.shape
    if da == 3 and db == 3 and (sa[0] == 1) != (sb[0] == 1):
        # a batch of one that requires grad, against a larger (or empty) batch: PyTorch
        # squeezes it to a matrix (which then folds), so that its gradient is no batch to sum
        if sa[0] == 1 and a.requires_grad:
            a, sa = a.squeeze(0), sa[1:]
        elif sb[0] == 1 and b.requires_grad:
            b, sb = b.squeeze(0), sb[1:]
    # Past this point the nodes are intermediate views and copies of one product; with no
    # graph to record, one fused op computes it after the same checks.
    record = STATE.grad and not STATE.inference and (a.requires_grad or b.requires_grad)
    if _should_fold(a, b, sa, sb):
        return _matmul_folded(a, b, sa, sb, record)
    return _matmul_batched(a, b, sa, sb, record)


class _Meta:
    """The shape and dtype of an operand that ``_check_mm`` checks before it exists."""

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.ndim = len(self.shape)


def _should_fold(a, b, sa, sb):
    """PyTorch's ``should_fold``: whether the larger operand (the other's transpose when that is
    the larger) folds into the rows of an ``mm``/``mv``. Always when the smaller one requires
    grad (so its gradient is not a broadcast batch to sum); else only without a copy."""
    larger = len(sa) >= len(sb)
    big, small = (a, b) if larger else (b, a)
    if big.ndim < 3 or small.ndim > 2:
        return False
    if small.requires_grad:
        return True
    if len(sa) == 2:
        return False  # the result would need a transposed copy
    if big.numel() == 0 or (larger and big._view is None):
        return True
    shape, strides, _ = _strides.geometry(big)
    if not larger:
        shape = shape[:-2] + (shape[-1], shape[-2])
        strides = strides[:-2] + (strides[-1], strides[-2])
    return builtins.all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _matmul_folded(a, b, sa, sb, record):
    transpose = len(sb) > len(sa)
    if transpose:
        # (b^T @ a^T)^T: b's transpose is the larger operand, a (or a.t()) the smaller
        t1 = _Meta(sb[:-2] + (sb[-1], sb[-2]), b.dtype)
        t2 = _Meta(sa[::-1], a.dtype)
    else:
        t1, t2 = _Meta(sa, a.dtype), _Meta(sb, b.dtype)
    rows = t1.shape[:-1]
    folded = _Meta((_prod(rows), t1.shape[-1]), t1.dtype)
    _check_mm(folded, t2, "mm" if t2.ndim == 2 else "mv")
    if not record:
        return apply(L.matmul, (a, b))
    if transpose:
        t1 = b.mT
        t2 = a.t() if len(sa) == 2 else a
    else:
        t1, t2 = a, b
    folded = t1.reshape(folded.shape)
    if t2.ndim == 1:
        return apply(SH.reshape_copy, (mv(folded, t2),), (rows,))
    out = apply(SH.reshape_copy, (mm(folded, t2),), (rows + (t2.shape[1],),))
    return out.mT.contiguous() if transpose else out


def _matmul_batched(a, b, sa, sb, record):
    n = sa[-2] if len(sa) > 1 else 1
    k = sa[-1]
    kb = sb[-2] if len(sb) > 1 else sb[0]
    p = sb[-1] if len(sb) > 1 else 1
    batch = _batch_shape(sa[:-2], sb[:-2])
    count = _prod(batch)
    if k != kb:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{count}, {k}] but got: [{count}, {kb}].")
    da, db = a.dtype, b.dtype
    if da is _dtype.bool_:
        raise _not_implemented("bmm", da)
    if da is not db:
        raise RuntimeError(f"expected scalar type {da.c_name} but found {db.c_name}")
    if not record:
        return apply(L.matmul, (a, b))
    shape = batch + ((n,) if len(sa) > 1 else ()) + ((p,) if len(sb) > 1 else ())
    a3 = a.expand(batch + (n, k)).reshape(count, n, k)
    if len(sb) == 1:
        out = bmm(a3, b.expand(batch + (kb,)).reshape(count, kb).unsqueeze(2)).squeeze(-1)
    else:
        out = bmm(a3, b.expand(batch + (kb, p)).reshape(count, kb, p))
    return apply(SH.reshape_copy, (out,), (shape,))


def _batch_shape(a, b):
    """The broadcast of two batch shapes, with PyTorch's ``infer_size`` message."""
    nd = builtins.max(len(a), len(b))
    out = []
    for i in range(nd):
        x = a[i - nd + len(a)] if i >= nd - len(a) else 1
        y = b[i - nd + len(b)] if i >= nd - len(b) else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@declare("ger", "outer", method=True, out=True)
def outer(input, vec2):
    # PyTorch multiplies a column view of input by vec2: MulBackward0 over (ViewBackward0, ...)
    return apply(L.outer, (input.reshape(-1, 1), vec2))


ger = outer


@declare("addmm", method=True, out=True)
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    _check_mm(mat1, mat2, "mm")
    return apply(L.addmm, (input, mat1, mat2), (beta, alpha))
