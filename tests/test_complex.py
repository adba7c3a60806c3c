"""Complex tensors against PyTorch: printing, type promotion, the autograd convention (PyTorch's
gradient of a real loss is the conjugate of JAX's cotangent), real/imag/conj views and writes
through them, the conj and neg bits, PyTorch's errors for ops without complex kernels, and
``torch.fft``'s values, gradients, node names and errors.

Each check runs one function on both libraries (``lib`` is ``torch`` or ``tensorgrad``) and
compares what it returns.
"""

import numpy as np
import pytest

import tensorgrad as tg
from oracle import raises_alike, torch, _oracle  # noqa: F401

Z = [1 + 2j, 3 - 1j, -0.5 + 0.25j]
W = [0.5 - 1j, 2 + 0.5j, -1 - 1j]


def _plain(x):
    """Results in comparable terms: tensors as (dtype, shape, values, requires_grad)."""
    if hasattr(x, "detach") and hasattr(x, "dtype"):
        return (str(x.dtype), tuple(x.shape), np.asarray(x.detach().resolve_conj().resolve_neg().numpy()),
                x.requires_grad)
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x


def _same(a, b):
    a, b = _plain(a), _plain(b)
    if isinstance(a, tuple) and len(a) == 4 and isinstance(a[2], np.ndarray):
        assert a[0] == b[0] and a[1] == b[1] and a[3] == b[3], (a, b)
        np.testing.assert_allclose(b[2], a[2], rtol=1e-5, atol=1e-6)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert a == b


def _both(fn):
    _same(fn(torch), fn(tg))


def test_printing_creation_and_conversions():
    def reprs(lib):
        z = lib.tensor(Z)
        return [repr(z), repr(lib.tensor([1 + 2j, 3 - 1j])), repr(z.to(lib.complex128)),
                repr(lib.zeros(2, dtype=lib.complex64)), repr(lib.complex(lib.tensor([1.5]), lib.tensor([-2.]))),
                repr(lib.tensor(Z, requires_grad=True).conj()), repr(z.real), repr(z.imag), repr(z[0]),
                z[0].item(), z.tolist(), str(z.dtype), str(lib.randn(3, dtype=lib.complex64).dtype)]
    assert reprs(tg) == reprs(torch)


def test_type_promotion():
    def dtypes(lib):
        f32, f64, i64 = lib.ones(2), lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.int64)
        c64, c128 = lib.ones(2, dtype=lib.complex64), lib.ones(2, dtype=lib.complex128)
        return [(f32 + c64).dtype, (f64 + c64).dtype, (f64 * c128).dtype, (f32 + 1j).dtype, (i64 * 2j).dtype,
                (c64 * 2.5).dtype, (f64 - 1j).dtype, lib.tensor([1, 2j]).dtype, (c64 @ c64).dtype,
                lib.ones(2, dtype=lib.float64).to(lib.complex64).dtype, lib.result_type(f32, 1j)]
    assert [str(d) for d in dtypes(tg)] == [str(d) for d in dtypes(torch)]


LOSSES = {
    "abs2": lambda lib, z, w: (z * z.conj()).real.sum(),
    "holomorphic": lambda lib, z, w: (z * z * w).abs().sum(),
    "view_as_real": lambda lib, z, w: (lib.view_as_real(z.exp() * w) * lib.tensor([1., -2.])).sum(),
    "angle": lambda lib, z, w: (z * w).angle().sum(),
    "matmul_mH": lambda lib, z, w: (z.reshape(3, 1) @ w.reshape(3, 1).mH).real.sum(),
    "sum_div": lambda lib, z, w: (z / w).sum().imag,
    "norm": lambda lib, z, w: z.norm() + (z * w).norm(1) + lib.linalg.vector_norm(w, 3) + z.norm(float("inf")),
    "norm_small_p": lambda lib, z, w: lib.linalg.vector_norm(z - z[0], 0.5) + lib.linalg.norm(w.reshape(1, 3)),
    "normalize": lambda lib, z, w: (lib.nn.functional.normalize(z, dim=0) * w).real.sum(),
}


def test_norms_of_complex_tensors_count_the_imaginary_part():
    def norms(lib):
        z = lib.tensor(Z)
        return [z.norm(), z.norm(1), z.norm(3), z.norm(float("inf")), lib.linalg.vector_norm(z, dtype=lib.complex128),
                lib.linalg.matrix_norm(z.reshape(1, 3)), lib.norm(z.reshape(3, 1), dim=0, keepdim=True),
                lib.nn.functional.normalize(z, dim=0)]
    _both(norms)


def test_float_power_vander_and_logdet_of_complex_tensors():
    def results(lib):
        z = lib.tensor(Z)
        m = lib.tensor([Z[:2], W[:2]])
        return [lib.float_power(z, 2), lib.float_power(z.real, 2j), lib.float_power(2, z), z.float_power(0.5),
                lib.float_power(z.real, 2), lib.vander(z, 3), lib.linalg.vander(z), lib.vander(lib.tensor([True, False])),
                lib.logdet(m), lib.logdet(lib.tensor([[2., 0.], [0., -1.]]))]
    _both(results)
    for name in ("deg2rad", "rad2deg"):
        raises_alike(lambda lib: getattr(lib, name)(lib.tensor(Z)))


def test_clip_grad_norm_of_complex_and_mixed_gradients():
    def clipped(lib):
        ps = [lib.nn.Parameter(lib.zeros(3, dtype=lib.complex64)), lib.nn.Parameter(lib.zeros(2)),
              lib.nn.Parameter(lib.zeros(2, dtype=lib.float64))]
        for p, g in zip(ps, (Z, [1., -2.], [0.5, 4.])):
            p.grad = lib.tensor(g, dtype=p.dtype)
        total = lib.nn.utils.clip_grad_norm_(ps, 1.0)
        inf_total = lib.nn.utils.clip_grad_norm_(ps, 0.5, norm_type="inf")
        return [total, inf_total] + [p.grad for p in ps]
    _both(clipped)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradients_follow_pytorch_convention(name):
    def grads(lib):
        z = lib.tensor(Z, requires_grad=True)
        w = lib.tensor(W, requires_grad=True)
        loss = LOSSES[name](lib, z, w)
        loss.backward()
        return loss, z.grad, w.grad, type(loss.grad_fn).__name__
    _both(grads)


def test_gradients_through_real_complex_boundaries_and_autograd_grad():
    def grads(lib):
        a = lib.tensor([1., 2., -0.5], requires_grad=True)
        b = lib.tensor([0.5, -1., 2.], requires_grad=True)
        p = lib.polar(a, b)
        c = lib.complex(a, b)
        v = lib.view_as_complex(lib.stack([a, b], -1))
        loss = (p * c * (1 + 1j)).imag.sum() + (v * v).abs().sum()
        ga, gb = lib.autograd.grad(loss, (a, b))
        z = lib.tensor(Z, requires_grad=True)
        gz, = lib.autograd.grad(z * z, z, grad_outputs=lib.tensor(W))
        return ga, gb, gz, [type(t.grad_fn).__name__ for t in (p, c, v, z.conj(), z.conj_physical())]
    _both(grads)


def test_views_write_through_and_bits():
    def views(lib):
        x = lib.tensor(Z)
        out = []
        x.real.zero_()
        out.append(x.clone())
        x.imag.mul_(2)
        out.append(x.clone())
        x.conj().mul_(1j)
        out.append(x.clone())
        lib.view_as_real(x)[0, 0] = 5
        out.append(x.clone())
        x.imag = lib.tensor([7., 8., 9.])
        out.append(x.clone())
        c = x.conj()
        out += [c.is_conj(), c.imag.is_neg(), c.real.is_neg(), c.conj().is_conj(), c.resolve_conj().is_conj(),
                c.imag.resolve_neg().is_neg(), x.real.stride(), x.imag.storage_offset(), lib.view_as_real(x).stride(),
                lib.is_complex(x), lib.isreal(lib.tensor([1 + 0j, 1j])), lib.tensor([1., 2.]).conj().is_conj(),
                c[1:].is_conj(), lib.tensor([-1., 2.]).angle()]
        r = lib.zeros(2, 2)
        lib.view_as_complex(r).add_(1 - 1j)
        out.append(r)
        return out
    _both(views)


ERRORS = [
    lambda lib: lib.tensor([1j]) < 0,
    lambda lib: lib.tensor([1j, 2]).max(),
    lambda lib: lib.tensor([1j, 2]).max(0),
    lambda lib: lib.tensor([1j, 2]).sort(),
    lambda lib: lib.tensor([1j, 2]).clamp(0, 1),
    lambda lib: lib.tensor([1j, 2]).floor(),
    lambda lib: lib.tensor([1j, 2]).argmax(),
    lambda lib: lib.tensor([1j, 2]) % 2,
    lambda lib: lib.tensor([1j], requires_grad=True).sum().backward(),
    lambda lib: lib.view_as_complex(lib.ones(3, 3)),
    lambda lib: lib.view_as_complex(lib.ones(3, 2).t()),
    lambda lib: lib.view_as_real(lib.tensor([1j]).conj()),
    lambda lib: lib.view_as_real(lib.ones(2)),
    lambda lib: lib.tensor([1.]).imag,
    lambda lib: lib.complex(lib.ones(1), lib.ones(1, dtype=lib.float64)),
    lambda lib: lib.polar(lib.ones(1), lib.ones(1, dtype=lib.int64)),
    lambda lib: lib.tensor([1j]).conj().numpy(),
    lambda lib: lib.tensor([1j]).mH,
    lambda lib: lib.fft.fft(lib.ones(4), norm="bad"),
    lambda lib: lib.fft.fft(lib.ones(4), dim=2),
    lambda lib: lib.fft.fft(lib.ones(4), n=0),
    lambda lib: lib.fft.rfft(lib.ones(4, dtype=lib.complex64)),
    lambda lib: lib.fft.rfftn(lib.ones(4, dtype=lib.complex64)),
    lambda lib: lib.fft.fftn(lib.ones(2, 2), s=(3, 3), dim=(0,)),
    lambda lib: lib.fft.fftn(lib.ones(2, 2), dim=(0, 0)),
    lambda lib: lib.fft.fft(lib.ones(4, dtype=lib.float16)),
    lambda lib: lib.fft.fftfreq(4, dtype=lib.int64),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_as_pytorch(index):
    raises_alike(ERRORS[index])


FFTS = [
    ("fft", {"n": 6, "norm": "ortho"}), ("ifft", {"n": 3, "dim": 0}), ("irfft", {"n": 5}),
    ("ihfft", {"norm": "ortho"}), ("fft2", {"s": (4, 5)}), ("irfftn", {"s": (5,), "dim": (0,)}),
    ("hfftn", {"norm": "forward"}), ("ihfft2", {}),
]


@pytest.mark.parametrize("name,kwargs", FFTS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(FFTS)])
def test_fft_values_gradients_and_nodes(name, kwargs):
    rng = np.random.default_rng(len(name))
    real = rng.standard_normal((3, 4))
    cplx = real + 1j * rng.standard_normal((3, 4))

    def run(lib):
        out = []
        for values in (real, cplx):
            x = lib.tensor(values, requires_grad=True)
            try:
                y = getattr(lib.fft, name)(x, **kwargs)
            except RuntimeError as e:
                out.append(str(e))
                continue
            w = lib.tensor(np.random.default_rng(3).standard_normal(tuple(y.shape)) * (1 + 0.5j))
            loss = (y * w).real.sum() if y.is_complex() else (y * w.real).sum()
            loss.backward()
            out += [y, x.grad, type(y.grad_fn).__name__, y.is_conj()]
        return out
    _both(run)


def test_fft_frequencies_and_shifts():
    def run(lib):
        x = lib.arange(12.).reshape(3, 4)
        return [lib.fft.fftfreq(5, 0.1), lib.fft.fftfreq(4, dtype=lib.float64), lib.fft.rfftfreq(7, 2.5),
                lib.fft.fftfreq(3, requires_grad=True), lib.fft.fftshift(x), lib.fft.ifftshift(x, dim=1),
                lib.fft.fftshift(x, dim=(0,)), lib.fft.fft(lib.arange(4)), lib.fft.ifft(lib.ones(3)).is_conj()]
    _both(run)


def test_stft_values_gradients_and_errors():
    signal = np.sin(np.arange(20) * 0.7) + np.arange(20) * 0.01

    def run(lib):
        x = lib.tensor(signal, dtype=lib.float32, requires_grad=True)
        window = lib.tensor([0.1, 0.5, 0.9, 1.0, 0.7, 0.3])
        a = lib.stft(x, 8, window=lib.ones(8), return_complex=True)
        b = x.stft(8, hop_length=3, win_length=6, window=window, center=False, normalized=True, onesided=False,
                   return_complex=True)
        (a.abs().sum() + b.abs().sum()).backward()
        return [a, b, x.grad]
    _both(run)
    window = {lib: lib.ones(8) for lib in (torch, tg)}
    for bad in (lambda lib: lib.stft(lib.ones(20), 8, window=window[lib]),
                lambda lib: lib.stft(lib.ones(20), 8, hop_length=0, window=window[lib], return_complex=True),
                lambda lib: lib.stft(lib.ones(20), 8, window=window[lib], pad_mode="bad", return_complex=True)):
        with pytest.raises(Exception) as theirs:
            bad(torch)
        with pytest.raises(type(theirs.value)):
            bad(tg)


def test_linalg_eig_values_and_phase_invariant_gradients():
    a = [[1., 2., 0.5], [3., 4., -1.], [0., 1., 2.]]

    def run(lib):
        x = lib.tensor(a, requires_grad=True)
        values, vectors = lib.linalg.eig(x)
        (vectors.abs().sum() + values.real.sum() * 2 + (values * values).imag.sum()).backward()
        z = lib.tensor(a, dtype=lib.complex128) * (1 + 0.5j)
        z.requires_grad_()
        lib.linalg.eigvals(z).abs().sum().backward()
        order = np.argsort(values.detach().numpy().real)
        return [values.detach()[order.tolist()], x.grad, z.grad, type(values.grad_fn).__name__,
                str(lib.linalg.eigvals(x).dtype)]
    _both(run)
