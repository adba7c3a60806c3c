"""dtype objects that print as PyTorch's (``torch.float32``) and PyTorch's type promotion.

tensorgrad turns on JAX's 64-bit mode on import so that int64 (the default integer dtype)
and float64 behave as in PyTorch; float32 stays the default floating dtype.
"""

import math
import threading

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

# Kinds, ordered as PyTorch orders them for promotion.
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type; ``repr`` is PyTorch's (``torch.float32``)."""

    __slots__ = ("name", "np", "kind", "itemsize", "legacy", "c_name", "is_signed", "_rank")

    def __init__(self, name, np_dtype, kind, legacy, c_name, rank):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.kind = kind
        self.itemsize = self.np.itemsize
        self.legacy = legacy
        self.c_name = c_name
        self.is_signed = name not in ("uint8", "bool")
        self._rank = rank

    @property
    def is_floating_point(self):
        return self.kind == FLOAT

    @property
    def is_complex(self):
        return self.kind == COMPLEX

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self):
        return {"float64": complex128}.get(self.name, complex64)

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


bool_ = dtype("bool", np.bool_, BOOL, "BoolTensor", "Bool", 0)
uint8 = dtype("uint8", np.uint8, INT, "ByteTensor", "Byte", 1)
int8 = dtype("int8", np.int8, INT, "CharTensor", "Char", 1)
int16 = dtype("int16", np.int16, INT, "ShortTensor", "Short", 2)
int32 = dtype("int32", np.int32, INT, "IntTensor", "Int", 3)
int64 = dtype("int64", np.int64, INT, "LongTensor", "Long", 4)
float16 = dtype("float16", np.float16, FLOAT, "HalfTensor", "Half", 1)
bfloat16 = dtype("bfloat16", jnp.bfloat16, FLOAT, "BFloat16Tensor", "BFloat16", 1)
float32 = dtype("float32", np.float32, FLOAT, "FloatTensor", "Float", 2)
float64 = dtype("float64", np.float64, FLOAT, "DoubleTensor", "Double", 3)
complex64 = dtype("complex64", np.complex64, COMPLEX, "ComplexFloatTensor", "ComplexFloat", 2)
complex128 = dtype("complex128", np.complex128, COMPLEX, "ComplexDoubleTensor", "ComplexDouble", 3)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128)
_NAMES = {d.name: d for d in ALL}
# numpy dtype -> tensorgrad dtype (jax arrays report numpy dtypes)
FROM_NP = {d.np: d for d in ALL}


def _by_name(name):
    return _NAMES[name]


def from_np(np_dtype):
    """The tensorgrad dtype of a numpy/jax dtype (raises TypeError for unsupported ones)."""
    try:
        return FROM_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"can't convert np.ndarray of type {np_dtype}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.") from None


def to_dtype(obj):
    """Accept a tensorgrad dtype, a Python type (float/int/bool/complex), or a numpy dtype."""
    if isinstance(obj, dtype):
        return obj
    if obj is float:
        return float64
    if obj is int:
        return int64
    if obj is bool:
        return bool_
    if obj is complex:
        return complex128
    return from_np(obj)


# ---------------------------------------------------------------- default dtype

class _Default(threading.local):
    dtype = float32     # where this thread set none (read without a failed look-up: every binary op reads it)


_default = _Default()


def get_default_dtype():
    """The dtype of floating tensors made from Python floats (float32 unless changed)."""
    return _default.dtype


def set_default_dtype(d):
    """Set the default floating dtype (float32, float64, float16 or bfloat16)."""
    if not isinstance(d, dtype) or d.kind != FLOAT:
        raise TypeError("only floating-point types are supported as the default type")
    _default.dtype = d
    _promote_cache.clear()


def default_complex():
    return complex128 if get_default_dtype() is float64 else complex64


# ---------------------------------------------------------------- promotion

def promote_types(a, b):
    """PyTorch's ``promote_types`` table for two dtypes."""
    if a is b:
        return a
    if a.kind != b.kind:
        hi, lo = (a, b) if a.kind > b.kind else (b, a)
        if hi.kind == COMPLEX and lo.kind == FLOAT:
            return complex128 if lo is float64 or hi is complex128 else complex64
        return hi
    if a.kind == INT:
        if uint8 in (a, b):
            other = b if a is uint8 else a
            return int16 if other is int8 else other
        return a if a._rank > b._rank else b
    if a.kind == FLOAT:
        if {a.name, b.name} == {"float16", "bfloat16"}:
            return float32
        return a if a._rank > b._rank else b
    return a if a._rank > b._rank else b


def scalar_dtype(value):
    """The dtype PyTorch gives a tensor made from this Python number."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return get_default_dtype()
    if isinstance(value, (complex, np.complexfloating)):
        return default_complex()
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


_promote_cache = {}


def result_type3(dim_dtypes, zero_dtypes, scalars):
    """PyTorch's promotion over tensors with dims, 0-d tensors and Python numbers.

    The result kind is the highest kind present; the dtype comes from the highest-priority
    group holding that kind (dimensioned tensors, then 0-d tensors, then Python numbers,
    which give the default dtype of their kind).
    """
    key = (dim_dtypes, zero_dtypes, scalars)
    hit = _promote_cache.get(key)
    if hit is not None:
        return hit
    groups = []
    for group in (dim_dtypes, zero_dtypes):
        res = None
        for d in group:
            res = d if res is None else promote_types(res, d)
        groups.append(res)
    res = None
    for kind in scalars:
        d = (bool_, int64, get_default_dtype(), default_complex())[kind]
        res = d if res is None else promote_types(res, d)
    groups.append(res)
    out = None
    for g in groups:
        if g is None:
            continue
        if out is None:
            out = g
        elif g.kind > out.kind:
            out = promote_types(out, g)
    if len(_promote_cache) < 4096:
        _promote_cache[key] = out
    return out


def can_cast(from_, to):
    """PyTorch's ``can_cast``: casting to a lower kind is not allowed."""
    _check_dtype_args("can_cast", (("from_", from_), ("to", to)))
    return from_.kind <= to.kind


def _check_dtype_args(name, args):
    for position, (arg, value) in enumerate(args, 1):
        if not isinstance(value, dtype):
            raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be torch.dtype, not "
                            f"{type(value).__name__}")


def public_promote_types(type1, type2):
    """``torch.promote_types``: the smallest dtype both ``type1`` and ``type2`` cast to."""
    _check_dtype_args("promote_types", (("type1", type1), ("type2", type2)))
    return promote_types(type1, type2)


# ---------------------------------------------------------------- numbers written into tensors

# The C++ type names in PyTorch's message for a number that does not fit a dtype.
_C_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t"}


def check_fits(value, d):
    """PyTorch's check of a number written into a tensor of dtype ``d`` (``fill_``, ``full``,
    ``masked_fill``, ``index_fill``): RuntimeError when it is out of the dtype's range. A negative
    int may wrap into an unsigned dtype (to -255 for uint8); an infinite float fits a floating
    dtype and NaN none of the integer ones."""
    if d.kind == BOOL or isinstance(value, (bool, np.bool_)):
        return
    if d.kind == COMPLEX:
        _check_fits_complex(value, d)
        return
    if d.name not in _C_TYPES:
        return
    if isinstance(value, (complex, np.complexfloating)):
        if value.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {_C_TYPES[d.name]} without overflow")
        value = float(value.real)
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if d.kind == INT:
            info = np.iinfo(d.np)
            bad = v > info.max or (v < -info.max if info.min == 0 else v < info.min)
        else:
            bad = abs(v) > float(jnp.finfo(d.np).max)
    elif isinstance(value, (float, np.floating)):
        v = float(value)
        if d.kind == INT:
            info = np.iinfo(d.np)
            bad = v != v or not float(info.min) <= v <= float(info.max)
        else:
            bad = v == v and abs(v) != math.inf and abs(v) > float(jnp.finfo(d.np).max)
    else:
        return
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPES[d.name]} without overflow")


def written_number(value, d):
    """The number PyTorch writes into a tensor of dtype ``d`` for ``value`` (``check_fits``
    passed): a complex number is true where it is not 0, and its real part in a real dtype."""
    if isinstance(value, (complex, np.complexfloating)) and d.kind != COMPLEX:
        return bool(value != 0) if d.kind == BOOL else float(value.real)
    return value


_COMPLEX_C_TYPES = {"complex64": ("c10::complex<float>", np.float32), "complex128": ("c10::complex<double>", np.float64)}


def _check_fits_complex(value, d):
    """``check_fits`` for a complex dtype: each part a finite number within its float's range
    (or infinite, or NaN)."""
    if d.name not in _COMPLEX_C_TYPES or not isinstance(value, (int, float, complex, np.number)):
        return
    name, part = _COMPLEX_C_TYPES[d.name]
    top = float(np.finfo(part).max)
    for v in (complex(value).real, complex(value).imag):
        if v == v and abs(v) != math.inf and abs(v) > top:
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
