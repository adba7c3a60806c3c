"""``tensorgrad.fft``: PyTorch's ``torch.fft`` namespace.

Each transform is one of PyTorch's three kernels (``_ops/fft.py``): complex to complex, real
to complex (one-sided or not), complex to real. The inverse-direction transforms of a real
signal (``ifft``, ``ihfft`` of a real tensor) are, as in PyTorch, the lazy conjugate of a
forward one with the normalization swapped.

>>> import tensorgrad as torch
>>> torch.fft.fft(torch.tensor([1., 0., 0., 0.]))
tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
"""

import warnings as _warnings

from . import _dtype
from ._api.complex import conj as _conj, view_as_real as _view_as_real
from ._api.creation import zeros as _zeros
from ._api.indexing import index_select as _index_select
from ._api.joining import cat as _cat
from ._api.creation import _finish
from ._api.shape import roll as _roll
from ._api.surface import declare as _declare
from ._device import from_host as _from_host
from ._ops import fft as _F
from ._tensor import Tensor as _Tensor, apply as _apply, _wrap_dim

import numpy as _np

_NORMS = ("backward", "forward", "ortho")
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _input(name, input):
    if not isinstance(input, _Tensor):
        raise TypeError(f"fft_{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    d = input.dtype
    if d in (_dtype.float16, _dtype.bfloat16):
        raise RuntimeError(f"Unsupported dtype {d.c_name}")
    return d if d.kind >= _dtype.FLOAT else _dtype.get_default_dtype()


def _real_only(name, input):
    d = _input(name, input)
    if d.is_complex:
        if name in ("rfft2", "rfftn"):
            raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {d.c_name}")
        if name in ("ihfft2", "ihfftn"):
            raise RuntimeError(f"Only supports floating-point dtypes, but found: {d.c_name}")
        raise RuntimeError(f"{name} expects a real input tensor, but got {d.c_name}")
    return d


def _points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _one_dim(name, input, n, dim):
    """``(dims, sizes)`` of a one-dimensional transform (``n`` None: the input's length)."""
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"fft_{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, input.ndim)
    return (d,), (_points(input.shape[d] if n is None else int(n)),)


def _many_dims(input, s, dim, last_default=None):
    """``(dims, sizes)`` of an n-dimensional transform, by PyTorch's rules for ``s`` and ``dim``.

    ``last_default(m)``: the last dim's default size from its input length (``irfftn``)."""
    if isinstance(dim, int):
        dim = (dim,)
    if s is not None:
        s = tuple(int(v) for v in s)
    if dim is not None:
        dim = tuple(dim)
        if s is not None and len(s) != len(dim):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    if dim is None:
        if s is None:
            dim = tuple(range(input.ndim))
        else:
            if len(s) > input.ndim:
                raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {input.ndim} dimensions.")
            dim = tuple(range(input.ndim - len(s), input.ndim))
    if input.ndim == 0 and dim:
        raise IndexError(f"Dimension specified as {dim[0]} but tensor has no dimensions")
    dims = tuple(_wrap_dim(d, input.ndim) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    sizes = []
    for k, d in enumerate(dims):
        given = -1 if s is None else s[k]
        if given == -1:
            m = input.shape[d]
            given = last_default(m) if last_default is not None and k == len(dims) - 1 else m
        sizes.append(_points(given))
    return dims, tuple(sizes)


def _half(m):
    return 2 * (m - 1)


def _c2c(input, d, dims, sizes, norm, forward):
    return _apply(_F.fft_c2c, (input,), (dims, sizes, norm, forward, d.to_complex().np if not d.is_complex else d.np))


def _r2c(input, d, dims, sizes, norm, onesided):
    return _apply(_F.fft_r2c, (input,), (dims, sizes, norm, onesided, d.np))


def _c2r(input, d, dims, sizes, norm, conj_input=False):
    c = d if d.is_complex else d.to_complex()
    return _apply(_F.fft_c2r, (input,), (dims, sizes, norm, conj_input, c.np))


# ---------------------------------------------------------------- one dimension

@_declare("fft.fft", out=True, numpy_names=False)
def fft(input, n=None, dim=-1, norm=None):
    """The one-dimensional discrete Fourier transform along ``dim`` (``n`` points)."""
    d = _input("fft", input)
    norm = _norm(norm)
    dims, sizes = _one_dim("fft", input, n, dim)
    if d.is_complex:
        return _c2c(input, d, dims, sizes, norm, True)
    return _r2c(input, d, dims, sizes, norm, False)


@_declare("fft.ifft", out=True, numpy_names=False)
def ifft(input, n=None, dim=-1, norm=None):
    """The inverse of ``fft``."""
    d = _input("ifft", input)
    norm = _norm(norm)
    dims, sizes = _one_dim("ifft", input, n, dim)
    if d.is_complex:
        return _c2c(input, d, dims, sizes, norm, False)
    return _conj(_r2c(input, d, dims, sizes, _SWAP[norm], False))


@_declare("fft.rfft", out=True, numpy_names=False)
def rfft(input, n=None, dim=-1, norm=None):
    """The transform of a real signal: the ``n // 2 + 1`` non-negative frequencies."""
    d = _real_only("rfft", input)
    dims, sizes = _one_dim("rfft", input, n, dim)
    return _r2c(input, d, dims, sizes, _norm(norm), True)


@_declare("fft.irfft", out=True, numpy_names=False)
def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``rfft``: a real signal of ``n`` points (default ``2 * (m - 1)``)."""
    d = _input("irfft", input)
    norm = _norm(norm)
    dims, _ = _one_dim("irfft", input, 1, dim)
    sizes = (_points(_half(input.shape[dims[0]]) if n is None else int(n)),)
    return _c2r(input, d, dims, sizes, norm)


@_declare("fft.hfft", out=True, numpy_names=False)
def hfft(input, n=None, dim=-1, norm=None):
    """The transform of a Hermitian-symmetric signal given by its one-sided half: a real result."""
    d = _input("hfft", input)
    norm = _norm(norm)
    dims, _ = _one_dim("hfft", input, 1, dim)
    sizes = (_points(_half(input.shape[dims[0]]) if n is None else int(n)),)
    if d.is_complex:
        return _c2r(_conj(input), d, dims, sizes, _SWAP[norm])
    return _c2r(input, d, dims, sizes, _SWAP[norm])


@_declare("fft.ihfft", out=True, numpy_names=False)
def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``hfft``: the one-sided half of a real signal's inverse transform."""
    d = _real_only("ihfft", input)
    norm = _norm(norm)
    dims, sizes = _one_dim("ihfft", input, n, dim)
    return _conj(_r2c(input, d, dims, sizes, _SWAP[norm], True))


# ---------------------------------------------------------------- n dimensions

def _fftn(name, input, s, dim, norm, forward):
    d = _input(name, input)
    norm = _norm(norm)
    dims, sizes = _many_dims(input, s, dim)
    return _c2c(input, d, dims, sizes, norm, forward)


def _rfftn(name, input, s, dim, norm):
    d = _real_only(name, input)
    norm = _norm(norm)
    dims, sizes = _many_dims(input, s, dim)
    return _r2c(input, d, dims, sizes, norm, True)


def _irfftn(name, input, s, dim, norm, hermitian):
    d = _input(name, input)
    norm = _norm(norm)
    dims, sizes = _many_dims(input, s, dim, _half)
    if hermitian:
        return _c2r(input, d, dims, sizes, _SWAP[norm], conj_input=True)
    return _c2r(input, d, dims, sizes, norm)


def _ihfftn(name, input, s, dim, norm):
    d = _real_only(name, input)
    norm = _SWAP[_norm(norm)]
    dims, sizes = _many_dims(input, s, dim)
    if len(dims) == 1:
        return _conj(_r2c(input, d, dims, sizes, norm, True))
    return _apply(_F.fft_r2c_conj, (input,), (dims, sizes, norm, d.np))


@_declare("fft.fft2", out=True, numpy_names=False)
def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional transform (over the last two dims by default)."""
    return _fftn("fft2", input, s, dim, norm, True)


@_declare("fft.ifft2", out=True, numpy_names=False)
def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of ``fft2``."""
    return _fftn("ifft2", input, s, dim, norm, False)


@_declare("fft.fftn", out=True, numpy_names=False)
def fftn(input, s=None, dim=None, norm=None):
    """The n-dimensional transform over ``dim`` (all dims, or the last ``len(s)``, by default)."""
    return _fftn("fftn", input, s, dim, norm, True)


@_declare("fft.ifftn", out=True, numpy_names=False)
def ifftn(input, s=None, dim=None, norm=None):
    """The inverse of ``fftn``."""
    return _fftn("ifftn", input, s, dim, norm, False)


@_declare("fft.rfft2", out=True, numpy_names=False)
def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional transform of a real signal, one-sided in the last dim."""
    return _rfftn("rfft2", input, s, dim, norm)


@_declare("fft.irfft2", out=True, numpy_names=False)
def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of ``rfft2``."""
    return _irfftn("irfft2", input, s, dim, norm, False)


@_declare("fft.rfftn", out=True, numpy_names=False)
def rfftn(input, s=None, dim=None, norm=None):
    """The n-dimensional transform of a real signal, one-sided in the last transformed dim."""
    return _rfftn("rfftn", input, s, dim, norm)


@_declare("fft.irfftn", out=True, numpy_names=False)
def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of ``rfftn``."""
    return _irfftn("irfftn", input, s, dim, norm, False)


@_declare("fft.hfft2", out=True, numpy_names=False)
def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional transform of a Hermitian-symmetric signal given by its half."""
    return _irfftn("hfft2", input, s, dim, norm, True)


@_declare("fft.ihfft2", out=True, numpy_names=False)
def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of ``hfft2``."""
    return _ihfftn("ihfft2", input, s, dim, norm)


@_declare("fft.hfftn", out=True, numpy_names=False)
def hfftn(input, s=None, dim=None, norm=None):
    """The n-dimensional transform of a Hermitian-symmetric signal given by its half."""
    return _irfftn("hfftn", input, s, dim, norm, True)


@_declare("fft.ihfftn", out=True, numpy_names=False)
def ihfftn(input, s=None, dim=None, norm=None):
    """The inverse of ``hfftn``."""
    return _ihfftn("ihfftn", input, s, dim, norm)


# ---------------------------------------------------------------- frequencies and shifts

def _frequencies(name, count, n, d, dtype, device, requires_grad):
    dt = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    if dt.kind < _dtype.FLOAT:
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if dt.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dt.c_name}'")
    d = float(d)
    values = _np.arange(count, dtype=_np.int64)
    if name == "fftfreq":
        values[(n + 1) // 2:] -= n
    # PyTorch multiplies by the reciprocal, rounded to the result's dtype
    values = values.astype(dt.np) * _np.asarray(1.0 / (n * d), dt.np)
    return _finish(_from_host(values), None, device, requires_grad)


@_declare("fft.fftfreq", out=True, factory=True)
def fftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``."""
    return _frequencies("fftfreq", int(n), int(n), d, dtype, device, requires_grad)


@_declare("fft.rfftfreq", out=True, factory=True)
def rfftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of an ``n``-point ``rfft``."""
    return _frequencies("rfftfreq", int(n) // 2 + 1, int(n), d, dtype, device, requires_grad)


def _shift(input, dim, back):
    if dim is None:
        dims = tuple(range(input.ndim))
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = tuple(_wrap_dim(x, input.ndim) for x in dims)
    shifts = tuple((input.shape[x] + 1) // 2 if back else input.shape[x] // 2 for x in dims)
    return _roll(input, shifts, dims)


@_declare("fft.fftshift", numpy_names=False)
def fftshift(input, dim=None):
    """Reorders ``fftn``'s output so that the zero frequency is in the middle."""
    return _shift(input, dim, False)


@_declare("fft.ifftshift", numpy_names=False)
def ifftshift(input, dim=None):
    """The inverse of ``fftshift``."""
    return _shift(input, dim, True)


# ---------------------------------------------------------------- short-time transform

_STFT_RETURN_COMPLEX = ("stft requires the return_complex parameter be given for real inputs, and will further "
                        "require that return_complex=True in a future PyTorch release.")


_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known to cause spectral "
              "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce "
              "spectral leakage.To suppress this warning and use a rectangular window, explicitly set "
              "`window=torch.ones(n_fft, device=<device>)`.")


def _pad_signal(input, pad, mode):
    """``input`` padded by ``pad`` on both sides of its last dim (``F.pad``'s modes)."""
    length = input.shape[-1]
    idx = _np.arange(-pad, length + pad)
    if mode == "reflect":
        if pad >= length:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({pad}, {pad}) at dimension {input.ndim} of input {list(input.shape)}")
        idx = _np.abs(idx)
        idx = length - 1 - _np.abs(length - 1 - idx)
    elif mode == "replicate":
        idx = _np.clip(idx, 0, length - 1)
    elif mode == "circular":
        idx = idx % length
    elif mode == "constant":
        zeros = _zeros_like_pad(input, pad)
        return _cat([zeros, input, zeros], -1)
    else:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return _index_select(input, -1, _wrap_index(idx))


@_declare("stft", method=True, numpy_names=False)
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """The short-time Fourier transform: ``(..., n_fft // 2 + 1, frames)`` (one-sided) of windowed
    frames ``hop_length`` apart; ``center`` pads the signal by ``n_fft // 2`` (``pad_mode``) first."""
    if not isinstance(input, _Tensor):
        raise TypeError(f"stft(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    complex_window = window is not None and window.is_complex()
    if return_complex is None and not (input.is_complex() or complex_window):
        raise RuntimeError(_STFT_RETURN_COMPLEX)
    if align_to_window is not None:
        if center:
            raise RuntimeError("stft align_to_window should only be set when center = false")
        raise NotImplementedError("stft: align_to_window is not supported by tensorgrad")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D tensor")
    if center:
        input = _pad_signal(input, n_fft // 2, pad_mode)
    length = input.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win}, but got window "
                           f"with size {list(window.shape)}")
    if onesided is None:
        onesided = not (input.is_complex() or complex_window)
    elif onesided and (input.is_complex() or complex_window):
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    frames = input.unfold(-1, n_fft, hop)
    if window is None:
        _warnings.warn(_NO_WINDOW, UserWarning, stacklevel=3)
    else:
        if win < n_fft:
            left = (n_fft - win) // 2
            window = _cat([_zeros_like_pad(window, left), window, _zeros_like_pad(window, n_fft - win - left)], 0)
        frames = frames * window
    norm = "ortho" if normalized else "backward"
    spec = rfft(frames, norm=norm) if onesided else fft(frames, norm=norm)
    spec = spec.transpose(-1, -2)
    return spec if return_complex else _view_as_real(spec.resolve_conj())


def _zeros_like_pad(t, n):
    return _zeros(t.shape[:-1] + (n,), dtype=t.dtype)


def _wrap_index(idx):
    return _finish(_from_host(_np.asarray(idx, _np.int64)))
