"""The range factories: ``arange``, ``linspace`` and ``logspace``, value for value as PyTorch's
CPU kernels compute them (the same roundings, the same truncations for integer dtypes).
"""

import math

import numpy as np

from .. import _dtype
from .._device import from_host
from .._tensor import Tensor
from .creation import _finish, on_meta
from .surface import declare


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def _fma(a, b, c):
    """``a*b + c`` in float64 with one rounding (what a fused multiply-add gives), elementwise.

    The product is split exactly (Dekker's two-product) and the sum's error is carried, so only
    the final addition rounds.
    """
    a, b, c = np.broadcast_arrays(np.float64(a), np.float64(b), np.float64(c))
    p = a * b
    split = 134217729.0 * a
    a_hi = split - (split - a)
    a_lo = a - a_hi
    split = 134217729.0 * b
    b_hi = split - (split - b)
    b_lo = b - b_hi
    p_err = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    back = s - p
    s_err = (p - (s - back)) + (c - back)
    return s + (s_err + p_err)


def _arange_values(start, step, n, d):
    """PyTorch's CPU arange kernel, value for value.

    It writes two SIMD vectors at a time (AVX2: 8 floats or 4 doubles per vector): each vector
    starts at ``start + step*i`` (in double, rounded to the dtype) and adds ``j*step`` to that
    rounded start; the elements after the last pair of vectors are ``start + step*i``. Products
    are fused multiply-adds.
    """
    i = np.arange(n, dtype=np.float64)
    width = 4 if d is _dtype.float64 else 8
    paired = n - n % (2 * width)
    first = i[:paired] - i[:paired] % width
    base = _fma(step, first, start)
    if d is not _dtype.float64:
        base = base.astype(np.float32).astype(np.float64)
    values = np.concatenate([_fma(i[:paired] - first, step, base), _fma(step, i[paired:], start)])
    return values.astype(d.np)


@declare("arange", out=True, factory=True)
@on_meta
def arange(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) by ``step``, as PyTorch's CPU kernel computes them."""
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, end, step))
        d = _dtype.get_default_dtype() if is_float else _dtype.int64
    else:
        d = _dtype.to_dtype(dtype)
    if d is _dtype.int64:
        # PyTorch's int64 kernel truncates the three numbers first, its size included
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
    n = max(0, math.ceil((end - start) / step))
    if d.kind >= _dtype.FLOAT:
        values = _arange_values(start, step, n, d)
    else:
        # the narrower integers: the size from the numbers as given, the values from truncated ones
        values = (int(start) + np.arange(n, dtype=np.int64) * int(step)).astype(d.np)
    return _finish(from_host(values), None, device, requires_grad)


_SPACED_SIGNATURE = ("(" + "{} start, {} end, int steps, {}*, Tensor out = None, torch.dtype dtype = None, "
                     "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
                     "bool requires_grad = False)")


def _check_steps(name, start, end, steps, keywords):
    """PyTorch's TypeError for a ``steps`` that is not an integer (``linspace(0, 3, 1.0)``):
    no overload matches. ``keywords``: the keyword arguments given, by name."""
    if isinstance(steps, Tensor) or (isinstance(steps, (int, np.integer)) and not isinstance(steps, bool)):
        return
    got = ", ".join(["Tensor" if isinstance(x, Tensor) else type(x).__name__ for x in (start, end, steps)]
                    + [f"{k}={type(v).__name__ if not isinstance(v, _dtype.dtype) else 'torch.dtype'}"
                       for k, v in keywords.items() if v is not None and v is not False])
    base = "float base = 10.0, " if name == "logspace" else ""
    overloads = [_SPACED_SIGNATURE.format(a, b, base) for a, b in
                 (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"), ("Number", "Number"))]
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    + "".join(f" * {o}\n" for o in overloads))


def _spaced_args(name, start, end, steps, dtype, layout, device, requires_grad):
    """linspace's and logspace's checks, in PyTorch's order: ``(start, end, dtype)``."""
    _check_steps(name, start, end, steps, dict(dtype=dtype, layout=layout, device=device,
                                               requires_grad=requires_grad))
    start, end = _num(start), _num(end)
    d = _spaced_dtype(start, end, dtype)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if d is _dtype.bool_:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
    return start, end, d


def _spaced_dtype(start, end, dtype):
    """linspace's and logspace's dtype: the default float, complex when an end is complex."""
    if dtype is not None:
        return _dtype.to_dtype(dtype)
    if isinstance(start, complex) or isinstance(end, complex):
        return _dtype.default_complex()
    return _dtype.get_default_dtype()


def _linspace_values(start, end, steps, np_dtype):
    """Real floating linspace: ``start``, ``end`` and ``step`` rounded to ``np_dtype``, then one
    fused multiply-add per element (float16 and bfloat16 round after each operation)."""
    i = np.arange(steps, dtype=np.float64)
    up = i < steps // 2
    count = np.where(up, i, steps - 1 - i)
    lo, hi = np.asarray(start, np_dtype), np.asarray(end, np_dtype)
    step = (hi - lo) / np.asarray(steps - 1, np_dtype)
    if np_dtype.itemsize == 2:
        moved = (step * count.astype(np_dtype)).astype(np_dtype)
        return np.where(up, lo + moved, hi - moved)
    return np.where(up, _fma(step, count, lo), _fma(-step, count, hi))


@declare("linspace", out=True, factory=True)
@on_meta
def linspace(start, end, steps, *, dtype=None, layout=None, device=None, requires_grad=False):
    """``steps`` values from ``start`` to ``end`` as PyTorch's CPU kernel computes them: the first
    half counts up from ``start`` and the second half down from ``end`` (complex: per component;
    integers: from the truncated ends, in double)."""
    start, end, d = _spaced_args("linspace", start, end, steps, dtype, layout, device, requires_grad)
    if steps >= 1:      # the ends converted to the dtype by the kernel (only start for one step)
        _dtype.check_fits(start, d)
    if steps >= 2:
        _dtype.check_fits(end, d)
    if steps == 1:
        values = np.array([start])
    elif steps == 0:
        values = np.zeros(0)
    elif d.kind == _dtype.FLOAT:
        values = _linspace_values(start, end, steps, d.np)
    elif d.kind == _dtype.COMPLEX:
        part = d.to_real().np
        start, end = complex(start), complex(end)
        values = _linspace_values(start.real, end.real, steps, part) + 1j * _linspace_values(
            start.imag, end.imag, steps, part)
    else:
        start, end = int(start), int(end)
        step = (end - start) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        values = np.trunc(np.where(i < steps // 2, _fma(step, i, start), _fma(-step, steps - 1 - i, end)))
    return _finish(from_host(np.asarray(values).astype(d.np)), None, device, requires_grad)


def _to_integer(values, d):
    """Doubles converted as C++ converts them: truncated, an out-of-range value (or NaN) gives
    the most negative int64 (int32 for the narrower types, which then wrap)."""
    wide = np.int64 if d is _dtype.int64 else np.int32
    info = np.iinfo(wide)
    t = np.trunc(values)
    ok = np.isfinite(t) & (t >= info.min) & (t <= info.max)
    return np.where(ok, t, info.min).astype(wide).astype(d.np)


def _logspace_exponents(start, end, steps, part):
    """PyTorch's exponents: ``start`` and ``end`` in the tensor's type, their difference taken
    there, then from each end in double (the first half up from ``start``, the rest down from
    ``end``)."""
    lo, hi = part(start), part(end)
    step = float(hi - lo) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    lo, hi = np.float64(lo), np.float64(hi)
    return np.where(i < steps // 2, lo + step * i, hi - step * (steps - i - 1))


@declare("logspace", out=True, factory=True)
def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """``steps`` powers ``base ** e``, ``e`` evenly spaced from ``start`` to ``end``, as PyTorch's
    CPU kernel computes them (integer dtypes: truncated ends, a float32 base, truncated powers)."""
    start, end, d = _spaced_args("logspace", start, end, steps, dtype, layout, device, requires_grad)
    base = float(base)
    with np.errstate(all="ignore"):
        if steps == 0:
            values = np.zeros(0)
        elif steps == 1:
            values = np.array([np.power(complex(base) if d.kind == _dtype.COMPLEX else base, start)])
        elif d.kind == _dtype.COMPLEX:
            part = d.to_real().np.type
            start, end = complex(start), complex(end)
            exponents = _logspace_exponents(start.real, end.real, steps, part) + 1j * _logspace_exponents(
                start.imag, end.imag, steps, part)
            values = np.power(complex(base), exponents)
        elif d.kind == _dtype.FLOAT:
            values = np.power(base, _logspace_exponents(start, end, steps, d.np.type))
        else:
            exponents = _logspace_exponents(int(start), int(end), steps, int)
            values = _to_integer(np.power(np.float64(np.float32(base)), exponents), d)
    return _finish(from_host(np.asarray(values).astype(d.np)), None, device, requires_grad)
