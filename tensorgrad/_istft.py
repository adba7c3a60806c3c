"""``torch.istft``, the inverse of ``stft`` (``fft.py``): the argument checks, PyTorch's messages
and warnings, and its NOLA check (the overlap-added squared window, summed on the host from the
window's values, may not fall below 1e-11) around one op, ``_ops/fft.py``'s ``istft`` (each
frame's inverse transform times the window, overlap-added and divided by the envelope); the
squeeze of an unbatched input and the zero padding of a long ``length`` follow as PyTorch's own
nodes.

>>> import tensorgrad as torch
>>> x = torch.arange(8.)
>>> w = torch.hann_window(4)
>>> torch.istft(torch.stft(x, 4, window=w, return_complex=True), 4, window=w, length=8)
tensor([0., 1., 2., 3., 4., 5., 6., 7.])
"""

import warnings as _warnings

import jax as _jax
import numpy as _np

from . import _dtype
from ._api.creation import _finish
from ._api.surface import declare as _declare
from ._device import from_host as _from_host
from ._ops import fft as _F, nn_conv as _NC
from ._tensor import Tensor as _Tensor, apply as _apply

_ISTFT_NO_WINDOW = ("A window was not provided. A rectangular window will be applied.Please provide the same window "
                    "used by stft to make the inversion lossless.To suppress this warning and use a rectangular "
                    "window, explicitly set `window=torch.ones(n_fft, device=<device>)`. (Triggered internally at "
                    "/__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:1035.)")
_ISTFT_PADDED = ("The length of signal is shorter than the length parameter. Result is being padded with zeros in "
                 "the tail. Please check your center and hop_length settings. (Triggered internally at "
                 "/__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:1199.)")
_WARNED = set()     # PyTorch warns once per process (TORCH_WARN_ONCE)
_BACKENDS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}


def _warn_once(message):
    if message not in _WARNED:
        _WARNED.add(message)
        _warnings.warn(message, UserWarning, stacklevel=3)


def _type_string(t, legacy):
    """PyTorch's C++ name of a tensor's type: ``CPUComplexFloatType``, or (``legacy``, for the
    types that have one) ``torch.FloatTensor``."""
    device = t.device.type
    if legacy and device in ("cpu", "cuda") and t.dtype.kind in (_dtype.INT, _dtype.FLOAT) \
            and t.dtype is not _dtype.bfloat16:
        return ("torch." if device == "cpu" else "torch.cuda.") + t.dtype.legacy
    return f"{_BACKENDS.get(device, device.upper())}{t.dtype.c_name}Type"


def _int_arg(name, value, optional=True, position=""):
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, _np.integer)):
        raise TypeError(f"istft(): argument '{name}'{position} must be int, not {type(value).__name__}")
    return int(value)


def _bool_arg(name, value, optional=False):
    if value is None and optional:
        return None
    if not isinstance(value, (bool, _np.bool_)):
        raise TypeError(f"istft(): argument '{name}' must be bool, not {type(value).__name__}")
    return bool(value)


def _half_toward_zero(n):
    return n // 2 if n >= 0 else -(-n // 2)       # C++'s n / 2


@_declare("istft", method=True)
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of ``stft``: each frame's inverse transform, times the window, overlap-added
    ``hop_length`` apart and divided by the overlap-added squared window (PyTorch refuses an
    envelope below 1e-11, where the inversion does not exist); ``center`` drops ``n_fft // 2``
    from the front (and back), ``length`` trims or zero-pads the tail. ``onesided`` defaults to
    whether the frequency dim is not ``n_fft`` long; ``return_complex`` takes a two-sided input
    to a complex signal."""
    if not isinstance(input, _Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    n_fft = _int_arg("n_fft", n_fft, False, " (position 2)")
    hop_length, win_length = _int_arg("hop_length", hop_length), _int_arg("win_length", win_length)
    if window is not None and not isinstance(window, _Tensor):
        raise TypeError(f"istft(): argument 'window' must be Tensor, not {type(window).__name__}")
    center, normalized = _bool_arg("center", center), _bool_arg("normalized", normalized)
    onesided, length = _bool_arg("onesided", onesided, True), _int_arg("length", length)
    return_complex = _bool_arg("return_complex", return_complex)
    if window is None:
        _warn_once(_ISTFT_NO_WINDOW)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    real_dims = input.ndim + 1          # PyTorch reads the sizes of the input's view_as_real
    if real_dims < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-real_dims}, {real_dims - 1}], "
                         f"but got {-1 - real_dims})")
    n_frames, fft_size = input.shape[-1], input.shape[-2]
    shown = "None" if window is None else f"{_type_string(window, True)}{{{list(window.shape)}}}"

    def fail(message):
        opt = {None: "None", True: "1", False: "0"}
        raise RuntimeError(
            f"istft({_type_string(input, False)}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={shown}, center={int(center)}, normalized={int(normalized)}, "
            f"onesided={opt[onesided]}, length={length}, return_complex={int(return_complex)}){message}")
    if input.numel() == 0:
        fail(" : input tensor cannot be empty.")
    if real_dims not in (3, 4):
        fail(f" : expected a tensor with 3 or 4 dimensions, but got {real_dims}")
    sided = fft_size != n_fft if onesided is None else onesided
    if sided and _half_toward_zero(n_fft) + 1 != fft_size:
        fail(" : expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 "
             f"when onesided=True, but got {fft_size}")
    if not sided and n_fft != fft_size:
        fail(" : expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
             f"onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        fail(" : expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        fail(" : expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        fail(" : Invalid window shape. window has to be 1D and length of `win_length`")
    if window is None:
        window = _finish(_from_host(_np.ones(win, input.dtype.to_real().np)), None, input.device)
    if return_complex and sided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if not return_complex and window.is_complex():
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    # the frames' dtype (irfft's real one, or ifft's complex one) times the window's
    frames = input.dtype if return_complex else input.dtype.to_real()
    dtype = _dtype.promote_types(frames, window.dtype)
    square = _dtype.int64 if window.dtype is _dtype.bool_ else window.dtype
    left = (n_fft - win) // 2
    expected = n_fft + hop * (n_frames - 1)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else -(n_fft // 2) if center else expected
    bounds = slice(start, end).indices(expected)[:2]      # at::slice's clamping of negative ends
    bounds = (bounds[0], max(bounds))
    if bounds[0] == bounds[1]:
        raise RuntimeError("min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    if _envelope_min(window, square, (left, n_fft - win - left), n_frames, hop, bounds) < 1e-11:
        fail(" window overlap add min: 1\n[ CPUBoolType{} ]")
    y = _apply(_F.istft, (input, window), (n_fft, hop, (left, n_fft - win - left), "ortho" if normalized else
                                           "backward", not sided, return_complex, bounds, dtype.np, square.np))
    if input.ndim == 2:
        y = y.squeeze(0)
    if end > expected:
        _warn_once(_ISTFT_PADDED)
        y = _apply(_NC.constant_pad_nd, (y,), (((0, 0),) * (y.ndim - 1) + ((0, end - expected),), 0))
    return y


def _envelope_min(window, square, pad, n_frames, hop, bounds):
    """The least magnitude of the overlap-added squared window over ``bounds`` (PyTorch's NOLA
    check), summed on the host in ``square`` (the dtype of ``window ** 2``); 1 where the window
    has no values on the host (inside a JAX transform, or on the meta device)."""
    data = window._data
    if isinstance(data, _jax.core.Tracer) or type(data) is _jax.ShapeDtypeStruct:
        return 1.0
    w = _np.pad(_np.asarray(data).astype(square.np), pad)
    n_fft = w.shape[0]
    r = -(-n_fft // hop)
    pieces = _np.pad(w * w, (0, r * hop - n_fft)).reshape(r, hop)
    blocks = _np.zeros((n_frames + r - 1, hop), pieces.dtype)
    for j in range(r):          # piece j of every frame lands j blocks after the frame's first
        blocks[j:j + n_frames] += pieces[j]
    return float(_np.abs(blocks.reshape(-1)[bounds[0]:bounds[1]]).min())
