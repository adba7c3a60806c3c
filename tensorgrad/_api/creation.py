"""Factories: tensors from data, the legacy typed constructors, filled tensors (zeros, ones, full,
eye), the triangle index lists and the ``Tensor.new_*`` constructors (the ranges ``arange``,
``linspace`` and ``logspace`` are in ``ranges``).
"""

import functools
import warnings

import jax
import numpy as np

from .. import _dtype
from .._cache import tracing
from .._meta import struct
from .._device import CPU, default_device, eye as _eye, factory_device, filled, from_host, of_array
from .._storage.host import check_array, share_array
from .._tensor import Size, Tensor, _wrap
from .surface import declare


REQUIRES_GRAD_DTYPE = "Only Tensors of floating point and complex dtype can require gradients"


def _finish(array, dtype=None, device=None, requires_grad=False):
    """A new leaf over ``array``, placed on ``device``, checked for ``requires_grad``."""
    if dtype is not None:
        dtype = _dtype.to_dtype(dtype)
        if array.dtype != dtype.np:
            array = array.astype(dtype.np)
    if requires_grad and _dtype.FROM_NP[array.dtype].kind < _dtype.FLOAT:
        raise RuntimeError(REQUIRES_GRAD_DTYPE)
    device = factory_device(device)
    if device is not None and device != (CPU if tracing() else of_array(array)):
        array = jax.device_put(array, device.jax_device())
    return _wrap(array, requires_grad)


# functions ``keep(generator)`` that save what a factory may change while it runs (the random
# generators' keys) and return a function putting it back: a factory on the meta device draws
# nothing (registered by ``_api/random.py``)
KEEP_ON_META = []


def on_meta(fn):
    """The factory ``fn``, evaluated for shape and dtype only (nothing allocated, no random key
    taken) when its device (``device=``, or the default device) is meta."""
    @functools.wraps(fn)
    def factory(*args, **kwargs):
        device = kwargs.get("device")
        if device is None and default_device() is None:
            return fn(*args, **kwargs)
        dev = factory_device(device)
        if dev is None or dev.type != "meta":
            return fn(*args, **kwargs)
        kwargs["device"] = "cpu"
        restores = [keep(kwargs.get("generator")) for keep in KEEP_ON_META]
        try:
            shape = jax.eval_shape(lambda: fn(*args, **kwargs)._data)
        finally:
            for restore in restores:
                restore()
        return _wrap(struct(shape.shape, shape.dtype), kwargs.get("requires_grad", False))
    return factory


def _size_keyword(name, kw):
    """``size=`` is the one keyword a factory taking ``*size`` accepts besides its named ones."""
    for key in kw:
        if key != "size":
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    return kw.get("size")


def parse_size(size, kw_size=None, name="zeros"):
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])``, ``f(Size)`` or ``size=``; reject the rest
    with the messages of PyTorch's argument parser for the factory ``name``."""
    packed = False
    if kw_size is not None:
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        if not isinstance(kw_size, (tuple, list)):
            raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not {type(kw_size).__name__}")
        size = (kw_size,)
    if size and isinstance(size[0], (tuple, list)):
        if len(size) > 1:
            raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
        size = size[0]
        packed = True
    out = []
    for pos, s in enumerate(size):
        if isinstance(s, Tensor) and s.dtype.kind == _dtype.INT:
            s = int(s)
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            got = type(s).__name__
            if len(size) == 1 and not packed:
                raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not {got}")
            if pos == 0:
                raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, but found element "
                                f"of type {got} at pos 0")
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {pos + 1} with error "
                            f"\"type must be tuple of ints,but got {got}\"")
        out.append(int(s))
    for s in out:
        if s < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {out}")
    return tuple(out)


# ---------------------------------------------------------------- from data

def _infer(data):
    """The dtype PyTorch infers for nested Python data."""
    kind = -1
    stack = [data]
    numpy_scalars = False
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, np.generic) and not isinstance(x, np.bool_):
            numpy_scalars = True
            kind = max(kind, _dtype.scalar_dtype(x).kind)
        elif isinstance(x, Tensor):
            d = x.dtype
            kind = max(kind, d.kind if d.kind != _dtype.FLOAT or d is _dtype.get_default_dtype() else 9)
            if d.kind == _dtype.FLOAT and d is not _dtype.get_default_dtype():
                return d
        elif isinstance(x, str):
            raise ValueError("too many dimensions 'str'")
        else:
            try:
                kind = max(kind, _dtype.scalar_dtype(x).kind)
            except TypeError:
                raise RuntimeError(f"Could not infer dtype of {type(x).__name__}") from None
    if numpy_scalars:
        return _promoted(data)
    if kind <= 0:
        return _dtype.bool_ if kind == 0 else _dtype.get_default_dtype()
    return (_dtype.bool_, _dtype.int64, _dtype.get_default_dtype(), _dtype.default_complex())[kind]


def _promoted(data):
    """The dtype of Python data holding numpy numbers (and no tensors): PyTorch promotes the
    numbers' own dtypes with those of the Python numbers (int64, the default float dtype, ...)
    and of any tensors by ``promote_types``, so ``[np.float64(1.5), 1]`` is float64 and ``[np.int8(3), 1]`` int64."""
    out = None
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, Tensor):
            d = x.dtype
        else:
            d = _dtype.from_np(x.dtype) if isinstance(x, np.generic) else _dtype.scalar_dtype(x)
        out = d if out is None else _dtype.promote_types(out, d)
    return out


def _to_nested(data):
    if isinstance(data, Tensor):
        return np.asarray(data._data)
    if isinstance(data, (list, tuple)):
        return [_to_nested(x) for x in data]
    return data


def _check_ragged(data, where="sequence"):
    if isinstance(data, (list, tuple)):
        lens = {len(x) if isinstance(x, (list, tuple)) else -1 for x in data}
        if len(lens) > 1:
            raise ValueError(f"expected sequence of length {max(lens)} at dim 1 (got {min(lens)})")
        for x in data:
            _check_ragged(x)


def as_array(data, dtype=None):
    """A jax array for Python data, numpy arrays or Tensors, with PyTorch's dtype inference."""
    if isinstance(data, Tensor):
        arr = data._data
        return arr if dtype is None else arr.astype(dtype.np)
    if isinstance(data, np.generic) and dtype is not None and dtype.kind == _dtype.INT:
        return from_host(_integers(data, dtype))       # a number, checked as one (an array is cast)
    if isinstance(data, (np.ndarray, np.generic)):
        d = dtype or _dtype.from_np(data.dtype)
        # a copy of the caller's array: JAX's CPU client may keep an aligned numpy array's own
        # memory, and ``torch.tensor(a)`` must not see later writes to ``a``
        return from_host(np.array(data, dtype=d.np))
    if isinstance(data, jax.Array):
        return data if dtype is None else data.astype(dtype.np)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(data, (list, tuple, int, float, bool, complex)):
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    flat = _FLAT.get(type(data[0])) if type(data) is list and data else None
    if flat is not None and all(type(x) is type(data[0]) for x in data):
        d = dtype or flat()     # a flat list of Python numbers of one type: nothing nested to walk
    else:
        _check_ragged(data)
        d = dtype or _infer(data)
        data = _to_nested(data)
    if d.kind == _dtype.INT:
        return from_host(_integers(data, d))
    try:
        return from_host(np.array(data, dtype=d.np))
    except OverflowError:
        raise ValueError(_LONG_OVERFLOW) from None


# the dtype of a flat list of Python numbers of one type, by that type
_FLAT = {int: lambda: _dtype.int64, float: _dtype.get_default_dtype, bool: lambda: _dtype.bool_}
_LONG_OVERFLOW = "Overflow when unpacking long long"


def _integers(data, d):
    """Python data (numbers, nested lists, numpy arrays of Tensors) as an array of the integer
    dtype ``d``, with PyTorch's checks: an integer beyond int64 raises ValueError; one beyond
    ``d`` raises RuntimeError (to an unsigned dtype, a negative integer down to ``-max`` wraps
    around, as in two's complement); a float must be a number within ``d``'s range."""
    try:
        raw = np.array(data)
    except OverflowError:
        raise ValueError(_LONG_OVERFLOW) from None
    if raw.dtype == object:                 # an integer beyond int64, or a mix numpy holds as objects
        return _exactly(raw.reshape(-1), d).reshape(raw.shape)
    if raw.dtype.kind == "c":
        raise TypeError("'complex' object cannot be interpreted as an integer")
    if raw.size and raw.dtype.kind in "iuf":
        info = np.iinfo(d.np)
        if info.min:
            low = info.min
        else:                               # unsigned: floats from 0, integers from -max (they wrap)
            low = 0 if raw.dtype.kind == "f" else -int(info.max)
        lo, hi = raw.min(), raw.max()
        if np.isnan(lo) or lo < low or hi > info.max:
            # floats and integers mixed count each by its own type: decide element by element
            return _exactly(list(_flatten(data)), d).reshape(raw.shape)
    return raw.astype(d.np)


def _flatten(data):
    if isinstance(data, (list, tuple)):
        for x in data:
            yield from _flatten(x)
    elif isinstance(data, np.ndarray):
        yield from data.reshape(-1).tolist()
    else:
        yield data


def _exactly(values, d):
    """``values`` (Python or numpy numbers) as a flat array of ``d``, checked one by one."""
    info = np.iinfo(d.np)
    out = []
    for x in values:
        if isinstance(x, (bool, np.bool_)):
            out.append(int(x))
        elif isinstance(x, (int, np.integer)):
            x = int(x)
            if not -2 ** 63 <= x < 2 ** 63:
                raise ValueError(_LONG_OVERFLOW)
            if x > info.max or x < (-info.max if info.min == 0 else info.min):
                raise RuntimeError(f"value cannot be converted to type {d.np.name} without overflow")
            out.append(x % (info.max + 1) if info.min == 0 else x)
        elif isinstance(x, (complex, np.complexfloating)):
            raise TypeError("'complex' object cannot be interpreted as an integer")
        else:
            x = float(x)
            if x != x or not info.min <= x <= info.max:
                raise RuntimeError(f"value cannot be converted to type {d.np.name} without overflow")
            out.append(int(x))
    return np.array(out, dtype=d.np)


@declare("tensor")
@on_meta
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of ``data`` (nested lists, numbers, numpy arrays)."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning, stacklevel=2)
    dtype = None if dtype is None else _dtype.to_dtype(dtype)
    return _finish(as_array(data, dtype), None, device, requires_grad)


@declare("as_tensor")
def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, without copying when it already is one of the right dtype; a numpy
    array of the right dtype staying on the CPU shares its memory, as ``from_numpy`` does."""
    if isinstance(data, Tensor) and (dtype is None or data.dtype is _dtype.to_dtype(dtype)) and device is None:
        return data
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype)
    if isinstance(data, np.ndarray):
        check_array(data)               # as PyTorch: an array with a negative stride raises, even to copy
        dev = factory_device(device)
        if (dtype is None or _dtype.to_dtype(dtype).np == data.dtype) and (dev is None or dev.type == "cpu"):
            return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


@declare("from_numpy")
def from_numpy(arr):
    """A CPU tensor over ``arr``'s memory: writes through either are seen by the other
    (``_storage/host.py`` says how and when)."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    check_array(arr)
    _dtype.from_np(arr.dtype)
    return share_array(arr, _wrap)


def legacy_constructor(cls, *args, dtype=None, device=None, requires_grad=False):
    """``Tensor(data)`` / ``Tensor(2, 3)`` / ``FloatTensor(...)``: float by default."""
    dtype = dtype or _dtype.get_default_dtype()
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)) and not isinstance(args[0], Size):
        t = _finish(as_array(args[0], dtype), None, device, requires_grad)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        return args[0]
    else:
        t = _finish(filled(parse_size(args, name="new") if args else (0,), 0, dtype.np), None, device, requires_grad)
    if cls is not Tensor:
        t.__class__ = cls
    return t


def _typed_constructor(dtype):
    class Legacy(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, Tensor) and obj.dtype is dtype

    def construct(*args, device=None):
        if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)) and not isinstance(args[0], Size):
            return _finish(as_array(args[0], dtype), None, device)
        return _finish(filled(parse_size(args, name="new") if args else (0,), 0, dtype.np), None, device)
    name = dtype.legacy
    return Legacy(name, (), {"__new__": lambda cls, *a, **k: construct(*a, **k)})


FloatTensor = _typed_constructor(_dtype.float32)


DoubleTensor = _typed_constructor(_dtype.float64)


HalfTensor = _typed_constructor(_dtype.float16)


LongTensor = _typed_constructor(_dtype.int64)


IntTensor = _typed_constructor(_dtype.int32)


ShortTensor = _typed_constructor(_dtype.int16)


CharTensor = _typed_constructor(_dtype.int8)


ByteTensor = _typed_constructor(_dtype.uint8)


BoolTensor = _typed_constructor(_dtype.bool_)


# ---------------------------------------------------------------- filled

def _filled(fill, size, dtype, device, requires_grad, kw_size=None, name="zeros"):
    shape = parse_size(size, kw_size, name)
    d = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    _dtype.check_fits(fill, d)
    return _finish(filled(shape, fill, d.np), None, device, requires_grad)


@declare("zeros", out=True, factory=True)
@on_meta
def zeros(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, **kw):
    return _filled(0, size, dtype, device, requires_grad, _size_keyword("zeros", kw))


@declare("ones", out=True, factory=True)
@on_meta
def ones(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, **kw):
    return _filled(1, size, dtype, device, requires_grad, _size_keyword("ones", kw), "ones")


@declare("empty", out=True, factory=True)
@on_meta
def empty(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None, **kw):
    return _filled(0, size, dtype, device, requires_grad, _size_keyword("empty", kw), "empty")


@declare("scalar_tensor", factory=True)
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A 0-d tensor of the number ``s``, of the default dtype unless ``dtype`` is given."""
    if isinstance(s, Tensor):
        s = s.item()
    return _filled(s, ((),), dtype, device, requires_grad, name="scalar_tensor")


@declare("full", out=True, factory=True)
@on_meta
def full(size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False):
    if dtype is None:
        dtype = _dtype.scalar_dtype(fill_value.item() if isinstance(fill_value, Tensor) else fill_value)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    return _filled(fill_value, (size,), dtype, device, requires_grad, name="full")


def _like(fn):
    def like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
        return fn(tuple(input.shape), dtype=dtype or input.dtype, device=device or input.device,
                  requires_grad=requires_grad)
    like.__name__ = fn.__name__ + "_like"
    return like


zeros_like = _like(zeros)
declare("zeros_like")(zeros_like)


ones_like = _like(ones)
declare("ones_like")(ones_like)


empty_like = _like(empty)
declare("empty_like")(empty_like)


@declare("full_like")
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return full(tuple(input.shape), fill_value, dtype=dtype or input.dtype, device=device or input.device,
                requires_grad=requires_grad)


@declare("eye", out=True, factory=True)
@on_meta
def eye(n, m=None, *, dtype=None, layout=None, device=None, requires_grad=False):
    for name, size in (("n", n), ("m", m)):
        if size is not None and size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    d = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    return _finish(_eye(n, n if m is None else m, d.np), None, device, requires_grad)


# ---------------------------------------------------------------- Tensor.new_*

def _new_sizes(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


@declare(method=("new_zeros",))
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return zeros(*_new_sizes(size), dtype=dtype or self.dtype, device=device or self.device,
                   requires_grad=requires_grad)


@declare(method=("new_ones",))
def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return ones(*_new_sizes(size), dtype=dtype or self.dtype, device=device or self.device,
                  requires_grad=requires_grad)


@declare(method=("new_empty",))
def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return empty(*_new_sizes(size), dtype=dtype or self.dtype, device=device or self.device,
                   requires_grad=requires_grad)


@declare(method=("new_full",))
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                  requires_grad=requires_grad)


@declare(method=("new_tensor",))
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            UserWarning, stacklevel=2)
        data = data.detach()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


# ---------------------------------------------------------------- triangle indices

def _triangle_indices(name, row, col, offset, dtype, lower):
    for what, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{what} must be non-negative, got{v}")
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    d = _dtype.int64 if dtype is None else _dtype.to_dtype(dtype)
    return _wrap(from_host(np.stack([r, c]).astype(d.np)))


@declare("tril_indices")
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` coordinates of the lower triangle of a ``row x col`` matrix."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, True)


@declare("triu_indices")
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` coordinates of the upper triangle of a ``row x col`` matrix."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, False)
