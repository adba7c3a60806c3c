"""The window factories of the top level: ``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window`` and ``kaiser_window``, computed on the host as PyTorch's
CPU kernels compute them (an ``arange`` in the window's dtype, then each step rounded to it).
Like PyTorch's, they are leaves (``torch.signal.windows``, composed of ops, are not).
"""

import numpy as np

from .. import _dtype
from .._device import from_host
from .creation import _finish
from .surface import declare


def _length(name, window_length, periodic):
    if not isinstance(window_length, (int, np.integer)) or isinstance(window_length, bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    if not isinstance(periodic, bool):
        raise TypeError(f"{name}(): argument 'periodic' (position 2) must be bool, not {type(periodic).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    return int(window_length)


def _window_dtype(name, dtype):
    d = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    if d.kind == _dtype.COMPLEX:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{d.c_name}'")
    if d.kind != _dtype.FLOAT:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {d}")
    return d


def _window(name, window_length, periodic, dtype, device, requires_grad, values):
    """The window of ``values(n, np_dtype)`` over ``n`` points (one more when ``periodic``, the
    last dropped), with PyTorch's lengths 0 and 1."""
    n = _length(name, window_length, periodic)
    d = _window_dtype(name, dtype)
    if n <= 1:
        out = np.ones(n, d.np)
    else:
        full = n + 1 if periodic else n
        out = np.asarray(values(full, d.np), d.np)[:n]
    return _finish(from_host(out), None, device, requires_grad)


def _cast(value, np_dtype):
    return np.asarray(value, np.float64).astype(np_dtype)


def _cosine_sum(full, np_dtype, alpha, beta):
    """``alpha - beta cos(2 pi k / (full - 1))``, each operation rounded to the dtype."""
    k = np.arange(full).astype(np_dtype)
    angle = (k * _cast(np.pi * 2.0 / (full - 1), np_dtype)).astype(np_dtype)
    return (np.cos(angle).astype(np_dtype) * _cast(-beta, np_dtype) + _cast(alpha, np_dtype)).astype(np_dtype)


@declare("hamming_window", factory=True)
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    """The generalized Hamming window ``alpha - beta cos(2 pi k / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda full, t: _cosine_sum(full, t, float(alpha), float(beta)))


@declare("hann_window", factory=True)
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    """The Hann window ``0.5 - 0.5 cos(2 pi k / (N - 1))``."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda full, t: _cosine_sum(full, t, 0.5, 0.5))


def _blackman(full, t):
    k = np.arange(full).astype(t)
    w = (k * _cast(np.pi / (full - 1), t)).astype(t)
    four = (np.cos((w * t.type(4)).astype(t)).astype(t) * _cast(0.08, t)).astype(t)
    two = (np.cos((w * t.type(2)).astype(t)).astype(t) * _cast(0.5, t)).astype(t)
    return ((four - two).astype(t) + _cast(0.42, t)).astype(t)


@declare("blackman_window", factory=True)
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))``."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, _blackman)


def _bartlett(full, t):
    w = (np.arange(full).astype(t) * _cast(2.0 / (full - 1), t)).astype(t)
    first_half = ((full - 1) >> 1) + 1
    w[first_half:] = (-w[first_half:] + t.type(2)).astype(t)
    return w


@declare("bartlett_window", factory=True)
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    """The triangular Bartlett window ``1 - |2k / (N - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, _bartlett)


def _kaiser(beta):
    def values(full, t):
        # PyTorch's kernel computes in the dtype's "opmath" type (float for float32 and halves)
        op_t = np.float64 if t == np.float64 else np.float32
        alpha = op_t((full - 1) / 2.0)
        b = op_t(beta)
        k = np.arange(full).astype(t).astype(op_t)
        ratio = ((k - alpha) / alpha).astype(op_t)
        arg = (b * np.sqrt(np.abs(op_t(1) - ratio * ratio).astype(op_t))).astype(op_t)
        return (np.i0(arg.astype(np.float64)).astype(op_t) / np.i0(np.float64(b)).astype(op_t)).astype(t)
    return values


@declare("kaiser_window", factory=True)
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    """The Kaiser window ``I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta)``."""
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, _kaiser(float(beta)))
