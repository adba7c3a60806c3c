"""What every torch-level function does with its arguments first: operands (Python numbers pass,
arrays and lists become tensors), PyTorch's type promotion (``result_type``), the common
argument checks and PyTorch's named-tuple return types.
"""

import collections

import jax
import numpy as np

from .. import _dtype
from .._tensor import Tensor, apply, broadcast_mismatch
from .creation import tensor as _tensor_factory
from .surface import declare


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
        if isinstance(a, Tensor):
            a = a._meta
            a = (a.dtype, not a.shape)
        else:
            a = type(a)
        if isinstance(b, Tensor):
            b = b._meta
            b = (b.dtype, not b.shape)
        else:
            b = type(b)
        key = (a, b, _dtype._default.dtype)
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
            arr = x._meta
            (dims if arr.ndim else zeros).append(_dtype.FROM_NP[arr.dtype])
        elif x is not None:
            scalars.append(_dtype.scalar_dtype(x).kind)
    return _dtype.result_type3(tuple(dims), tuple(zeros), tuple(scalars))


def _binary(op, a, b, **cfg):
    a = as_operand(a)
    b = as_operand(b)
    d = result_type(a, b)
    return apply(op, (a, b), (d.np,) + tuple(cfg.values()))


def _nonzero_divisor(a, b, d):
    """PyTorch's ``RuntimeError: ZeroDivisionError`` for an integer division (``//``, ``%``, ``fmod``,
    ``div(rounding_mode=)``) with a zero among the divisors that reach a result element. A tensor
    divisor is read on the host; inside a traced program (compile, func, jax.jit) its values are
    unknown and the check is skipped (the result is then XLA's)."""
    if d.kind > _dtype.INT:
        return
    shape_a = a._data.shape if isinstance(a, Tensor) else ()
    if isinstance(b, Tensor):
        arr = b._data
        if isinstance(arr, jax.core.Tracer):
            return
        try:
            if 0 in np.broadcast_shapes(shape_a, arr.shape):
                return
        except ValueError:
            return              # the op raises PyTorch's broadcasting error
        zero = not np.asarray(arr).all()
    else:
        if 0 in shape_a:
            return
        zero = b == 0
    if zero:
        raise RuntimeError("ZeroDivisionError")


def _shapes_first(*operands):
    """PyTorch's broadcasting error, where the operands' shapes do not broadcast: its
    TensorIterator checks shapes before the kernel refuses a dtype, so a dtype error calls this
    first."""
    shapes = [tuple(x._data.shape) for x in operands if isinstance(x, Tensor)]
    error = broadcast_mismatch(shapes) if shapes else None
    if error is not None:
        raise error


def _float_of(d):
    return d if d.kind >= _dtype.FLOAT else _dtype.get_default_dtype()


def _not_implemented(kernel, d):
    """PyTorch's error for a dtype that an op's CPU kernel does not handle."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{d.c_name}'")


def _tensor_input(name, input):
    """PyTorch's TypeError for a non-Tensor ``input`` (``torch.exp(1.5)``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _tensor_first(name, input, *rest, signatures=None, argname="other"):
    """PyTorch's TypeError for a non-Tensor ``input`` of a function with a Tensor and a Number
    overload of its second argument (``torch.fmod(2, t)``): no overload matches."""
    if isinstance(input, Tensor):
        return
    got = ", ".join("Tensor" if isinstance(x, Tensor) else type(x).__name__ for x in (input,) + rest)
    if signatures is None:
        signatures = (f"(Tensor input, Tensor {argname}, *, Tensor out = None)",
                      f"(Tensor input, Number {argname}, *, Tensor out = None)")
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    + "".join(f" * {s}\n" for s in signatures))


def _one_tensor(name, input, other, argname="other", scalar_self_out=True):
    """PyTorch's TypeError for two Python numbers to an op whose overloads take a Tensor on one
    side (``torch.pow(2, 3)``); ``torch.add(2, 3)`` has a Number-Number overload and is not one."""
    if isinstance(input, Tensor) or isinstance(other, Tensor):
        return
    scalar_self = f"(Number self, Tensor {argname}, *, Tensor out = None)" if scalar_self_out else \
        f"(Number self, Tensor {argname})\n      didn't match because some of the arguments have invalid types: " \
        f"(!{type(input).__name__}!, !{type(other).__name__}!)"
    _tensor_first(name, input, other, signatures=(f"(Tensor input, Tensor {argname}, *, Tensor out = None)",
                                                 scalar_self, f"(Tensor input, Number {argname}, *, Tensor out = None)"))


def _tensor_other(name, other):
    """PyTorch's TypeError where an op takes only a Tensor as ``other`` (no Python numbers)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")


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


def _need_tensor(fname, argname, value, position):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")
