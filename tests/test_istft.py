"""``torch.istft`` against PyTorch: values, dtypes, shapes, node names and gradients (of the
spectrogram and of the window) in several configurations, batched and unbatched, float32 and
float64; the round trip ``stft`` -> ``istft``; second derivatives; PyTorch's exception types and
messages for bad input, its envelope ("window overlap add min") check, and its once-only warnings.

Each check runs one function on both libraries (``lib`` is ``torch`` or ``tensorgrad``).
"""

import warnings

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad import _istft
from oracle import torch, _oracle  # noqa: F401

RNG = np.random.default_rng(0)


def _spectrum(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _window(n, low=0.5, high=2.0):
    return np.linspace(low, high, n) + 0.1 * np.sin(np.arange(n))


# (spectrum shape, complex dtype, window length or None, window is complex, istft's keywords)
CONFIGS = [
    ((10, 2), "complex64", None, False, dict(n_fft=10)),
    ((2, 10, 6), "complex64", 10, False, dict(n_fft=10, return_complex=True)),
    ((2, 10, 7), "complex128", 8, True, dict(n_fft=10, win_length=8, return_complex=True)),
    ((2, 5, 6), "complex128", 8, False, dict(n_fft=8, normalized=True, length=30)),
    ((9, 7), "complex64", 6, False, dict(n_fft=16, hop_length=5, win_length=6, normalized=True)),
    ((8, 5), "complex64", 8, False, dict(n_fft=8, hop_length=2, center=False, onesided=False, length=12)),
]
_SPECTRA = {shape: _spectrum(*shape) for shape, *_ in CONFIGS}


def _run(lib, shape, cdtype, wlen, complex_window, kwargs):
    x = lib.tensor(_SPECTRA[shape], dtype=getattr(lib, cdtype), requires_grad=True)
    inputs = [x]
    if wlen is not None:
        values = _window(wlen) * (1 + 0.3j if complex_window else 1)
        wdtype = {"complex64": "float32", "complex128": "float64"}[cdtype]
        wdtype = getattr(lib, cdtype if complex_window else wdtype)
        w = lib.tensor(values, dtype=wdtype, requires_grad=True)
        kwargs = dict(kwargs, window=w)
        inputs.append(w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = lib.istft(x, **kwargs)
    cotangent = np.cos(np.arange(y.numel()) * 0.7).reshape(tuple(y.shape))
    if y.is_complex():
        cotangent = cotangent * (1 - 0.5j)
    grads = lib.autograd.grad(y, inputs, lib.tensor(cotangent, dtype=y.dtype))
    return y, type(y.grad_fn).__name__, grads



@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c[4].items()))
def test_istft_values_node_and_gradients_match_pytorch(config):
    theirs, their_node, their_grads = _run(torch, *config)
    ours, our_node, our_grads = _run(tg, *config)
    assert (str(ours.dtype), tuple(ours.shape), our_node) == (str(theirs.dtype), tuple(theirs.shape), their_node)
    tol = 1e-5 if config[1] == "complex64" else 1e-12
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)
    for g, h in zip(our_grads, their_grads):
        assert str(g.dtype) == str(h.dtype)
        np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=tol, atol=tol)


def test_stft_istft_round_trip():
    signal = np.sin(np.arange(40) * 0.3) + np.arange(40) * 0.02

    def run(lib):
        x = lib.tensor(np.stack([signal, signal[::-1].copy()]), dtype=lib.float32)
        w = lib.hann_window(16)
        return lib.stft(x, 16, hop_length=4, window=w, return_complex=True).istft(16, 4, window=w, length=40)

    ours, theirs = run(tg), run(torch)
    np.testing.assert_allclose(ours.numpy(), np.stack([signal, signal[::-1]]), atol=1e-5)
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


def test_istft_second_derivative_matches_pytorch():
    spec = _spectrum(5, 4)

    def run(lib):
        x = lib.tensor(spec, dtype=lib.complex128, requires_grad=True)
        w = lib.tensor(_window(8), dtype=lib.float64, requires_grad=True)
        y = lib.istft(x, 8, window=w)
        (gw,) = lib.autograd.grad((y * y).sum(), (w,), create_graph=True)
        return lib.autograd.grad(gw.sum(), (x, w))

    for a, b in zip(run(tg), run(torch)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def test_istft_window_dtypes_and_conjugated_input_match_pytorch():
    spec5, spec8, spec21, w = _spectrum(5, 4), _spectrum(8, 4), _spectrum(21, 12), _window(8)
    cases = [
        # a bool window (its square is int64); more than 32 frames over each sample (summed at
        # once, not one frame after another)
        lambda L: L.istft(L.tensor(spec21, dtype=L.complex128), 40, 1, window=L.ones(40, dtype=L.bool)),
        # the envelope summed in float16
        lambda L: L.istft(L.tensor(spec5, dtype=L.complex64), 8, window=L.tensor(w, dtype=L.float16)),
        lambda L: L.istft(L.tensor(spec8, dtype=L.complex64), 8, window=L.tensor(w * (1 + .5j), dtype=L.complex128),
                          return_complex=True),
        lambda L: L.istft(L.tensor(spec8, dtype=L.complex64).conj(), 8, window=L.tensor(w, dtype=L.float64),
                          onesided=False),
        # at::slice's clamping of a negative end
        lambda L: L.istft(L.tensor(spec5, dtype=L.complex64), 8, window=L.tensor(w, dtype=L.float32), center=False,
                          length=-3),
    ]
    for case in cases:
        ours, theirs = case(tg), case(torch)
        assert (str(ours.dtype), tuple(ours.shape)) == (str(theirs.dtype), tuple(theirs.shape))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


def _ones(lib, *shape):
    return lib.ones(*shape, dtype=lib.complex64)


BAD = [
    lambda L: L.istft(L.ones(5, 4), 8),
    lambda L: L.istft(_ones(L, 5), 8),
    lambda L: L.istft(L.tensor(1j), 8),
    lambda L: L.istft(_ones(L, 0, 4), 8),
    lambda L: L.istft(_ones(L, 2, 2, 5, 4), 8),
    lambda L: L.istft(_ones(L, 5, 4), 10, onesided=False),
    lambda L: L.istft(_ones(L, 8, 4), 8, onesided=True),
    lambda L: L.istft(_ones(L, 5, 4), -2),
    lambda L: L.istft(_ones(L, 5, 4), 8, hop_length=0),
    lambda L: L.istft(_ones(L, 5, 4), 8, hop_length=9),
    lambda L: L.istft(_ones(L, 5, 4), 8, win_length=9),
    lambda L: L.istft(_ones(L, 5, 4), 8, window=L.ones(7)),
    lambda L: L.istft(_ones(L, 3, 5, 4), 8, window=L.ones(8, 1, dtype=L.float64), onesided=True, length=3),
    lambda L: L.istft(_ones(L, 5, 4), 8, window=L.ones((), dtype=L.bool)),
    lambda L: L.istft(_ones(L, 5, 4), 8, window=L.ones(2, dtype=L.complex128)),
    lambda L: L.istft(_ones(L, 5, 4), 8, window=L.ones(2, dtype=L.bfloat16)),
    lambda L: L.istft(_ones(L, 5, 4), 8, window=L.zeros(8)),
    lambda L: L.istft(_ones(L, 5, 4), 8, window=L.hann_window(8), center=False),
    lambda L: L.istft(_ones(L, 5, 4), 8, 4, 4, window=L.ones(4), center=False, length=10),
    lambda L: L.istft(_ones(L, 5, 4), 8, window=L.ones(8), return_complex=True),
    lambda L: L.istft(_ones(L, 8, 4), 8, window=L.ones(8, dtype=L.complex64)),
    lambda L: L.istft(_ones(L, 5, 4), 8, window=L.ones(8), length=0),
    lambda L: L.istft(_ones(L, 5, 4), 1, window=L.ones(1)),
    lambda L: L.istft([1.], 8),
    lambda L: L.istft(_ones(L, 5, 4), 8.0),
    lambda L: L.istft(_ones(L, 5, 4), 8, hop_length=True),
    lambda L: L.istft(_ones(L, 5, 4), 8, window=[1.] * 8),
    lambda L: L.istft(_ones(L, 5, 4), 8, center=1),
    lambda L: L.istft(_ones(L, 5, 4), 8, onesided=1),
    lambda L: L.istft(_ones(L, 5, 4), 8, length=2.0),
    lambda L: L.istft(_ones(L, 5, 4), 8, return_complex=None),
    lambda L: L.istft(_ones(L, 5, 4), 8, foo=1),
    lambda L: _ones(L, 5, 4).istft(8, 0),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_istft_bad_input_raises_pytorchs_error(index):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            BAD[index](torch)
        with pytest.raises(type(theirs.value)) as ours:
            BAD[index](tg)
    assert str(ours.value) == str(theirs.value).split("\nException raised from")[0]


def test_istft_warns_once_as_pytorch():
    """No window, and a ``length`` past the signal: PyTorch's TORCH_WARN_ONCE messages."""
    saved = set(_istft._WARNED)
    _istft._WARNED.clear()
    try:
        x = _ones(tg, 5, 4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tg.istft(x, 8)
            tg.istft(x, 8, window=tg.ones(8), length=30)
            tg.istft(x, 8)
            tg.istft(x, 8, window=tg.ones(8), length=30)
            tg.istft(x, 8, window=tg.ones(8))
        assert [w.category for w in caught] == [UserWarning, UserWarning]
        assert str(caught[0].message).startswith("A window was not provided. A rectangular window will be "
                                                 "applied.Please provide the same window used by stft")
        assert str(caught[1].message).startswith("The length of signal is shorter than the length parameter.")
    finally:
        _istft._WARNED.clear()
        _istft._WARNED.update(saved)


def test_istft_on_meta_and_inside_compile():
    """Without values on the host the envelope check is skipped; shapes and values are kept."""
    m = tg.istft(tg.ones(2, 5, 4, dtype=tg.complex64, device="meta"), 8, window=tg.ones(8, device="meta"))
    assert (tuple(m.shape), m.dtype, m.device.type) == ((2, 6), tg.float32, "meta")
    x = tg.tensor(_spectrum(5, 4), dtype=tg.complex64)
    w = tg.hann_window(8) + 0.5
    step = tg.compile(lambda x, w: tg.istft(x, 8, window=w, length=7))
    np.testing.assert_allclose(step(x, w).numpy(), tg.istft(x, 8, window=w, length=7).numpy(), rtol=1e-6, atol=1e-6)
