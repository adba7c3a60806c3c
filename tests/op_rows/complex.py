"""Op-table rows of complex ops and ``torch.fft``, in real terms: each call ends in a real
tensor (``view_as_real``, ``abs``, a real part), so the table's real-dtype checks (values,
float64 finite differences, gradients and node names against PyTorch) apply to complex graphs.
The complex-only checks (printing, views, bits, errors) are ``tests/test_complex.py``'s.
"""

from op_table import ALL, FLOAT, Err, Op, Sample, arr, samples_of, two_of, unary_samples


def _istft_samples(make):
    """A spectrum's real and imaginary parts and a positive window (its envelope is never 0)."""
    samples = [Sample((make(5, 6), make(5, 6), make(8, domain="positive"))),
               Sample((make(5, 6), make(5, 6), make(8, domain="positive")), kwargs={"length": 15})]
    return samples if make.full else samples[:1]


ROWS = [
    Op("complex_fft_ortho", lambda m, x: m.view_as_real(m.fft.fft(x, n=5, norm="ortho")), samples_of((2, 4)),
       dtypes=ALL, errors=(Err((arr(4),), call=lambda m, x: m.fft.fft(x, norm="bad")),)),
    Op("complex_rfft2_irfft2", lambda m, x: m.fft.irfft2(m.fft.rfft2(x) * (1 + 2j), s=(3, 4)),
       samples_of((3, 4)), dtypes=ALL),
    Op("complex_hfft_ihfft", lambda m, x: m.fft.hfft(m.fft.ihfft(x) * 1j + 0.5, norm="forward"),
       samples_of((2, 5)), dtypes=ALL),
    Op("complex_polar_complex", lambda m, x, y: m.view_as_real(m.polar(x, y) * m.complex(y, x)),
       # polar's PyTorch gradient in abs is sgn(result), not the derivative, where abs < 0
       two_of((2, 3), (2, 3)), dtypes=FLOAT, domain="positive",
       errors=(Err((arr(2), arr(2, dtype="float64")), call=lambda m, x, y: m.complex(x, y)),)),
    Op("complex_abs_angle_conj", lambda m, x, y: (m.complex(x, y).abs(), m.complex(x, y).angle(),
                                                   (m.complex(x, y).conj() * m.complex(y, x)).imag),
       two_of((2, 3), (2, 3)), dtypes=FLOAT),
    # fft of a complex input (c2c), forward and inverse, with n and norm; ihfft2/ihfftn (r2c, conjugated)
    Op("complex_fft_c2c", lambda m, x, y: (m.view_as_real(m.fft.fft(m.complex(x, y), dim=0)),
                                           m.view_as_real(m.fft.ifft(m.complex(y, x), n=5, norm="ortho"))),
       two_of((3, 4), (3, 4)), dtypes=FLOAT,
       errors=(Err((arr(4), arr(4)), call=lambda m, x, y: m.fft.fft(m.complex(x, y), n=0), note="n=0"),)),
    Op("complex_ihfft2", lambda m, x: m.view_as_real(m.fft.ihfft2(x)), samples_of((2, 3, 4)), dtypes=ALL,
       errors=(Err((arr(3, 4), arr(3, 4)), call=lambda m, x, y: m.fft.ihfft2(m.complex(x, y)), note="complex input"),
               Err((arr(4),), note="1-D input"))),
    Op("complex_ihfftn", lambda m, x: m.view_as_real(m.fft.ihfftn(x, s=(3, 5), norm="ortho")), samples_of((2, 3, 4)),
       dtypes=ALL, errors=(Err((arr(3, 4),), call=lambda m, x: m.fft.ihfftn(x, dim=(0, 0)), note="repeated dims"),)),
    # conj_physical of a complex tensor, its method and in-place form (ConjPhysicalBackward1)
    Op("complex_conj_physical", lambda m, x, y: (m.view_as_real(m.conj_physical(m.complex(x, y))),
                                                 m.view_as_real(m.complex(y, x).conj_physical()),
                                                 m.view_as_real(m.complex(x, y).conj_physical_())),
       two_of((2, 3), (2, 3)), dtypes=FLOAT),
    # of a real tensor: the tensor itself; in place, a ConjPhysicalBackward1 node all the same
    Op("complex_conj_physical_real", lambda m, x: m.conj_physical(x), unary_samples,
       errors=(Err((1.5,), note="a Python number as input"),)),
    Op("complex_conj_physical_real_", lambda m, x: (x * 1).conj_physical_(), unary_samples,
       errors=(Err((1.5,), call=lambda m, x: m.conj_physical_(x), note="a Python number as input"),)),
    Op("complex_view_as_complex", lambda m, x: (m.view_as_real(m.view_as_complex(x) * (1 - 2j)),
                                                m.view_as_complex(x[1:]).abs()),
       samples_of((2, 3, 2), (2, 2)), dtypes=FLOAT,
       errors=(Err((arr(2, 3),), note="last dimension not 2"), Err((arr(),), note="0-d"),
               Err((arr(3, 2),), call=lambda m, x: m.view_as_complex(x.t().contiguous().t()), note="strides"))),
    Op("complex_isreal", lambda m, x: (m.isreal(x), m.isreal(x + (x > 0) * 1j), x.isreal()), unary_samples,
       grad=False, errors=(Err((1.5,), note="a Python number as input"),)),
    # unbatched, so that the node under the result (SqueezeBackward1, ConstantPadNdBackward0) is
    # PyTorch's too: under a batched result's DivBackward0 PyTorch has its composite's slices
    Op("complex_istft", lambda m, re, im, w, length=None: m.istft(m.complex(re, im), 8, hop_length=3, window=w,
                                                                    normalized=True, length=length),
       _istft_samples, dtypes=FLOAT,
       errors=(Err((arr(5, 6), arr(5, 6), arr(8)), call=lambda m, re, im, w: m.istft(re, 8, window=w)),
               Err((arr(5, 6), arr(5, 6), arr(8) * 0), note="the window's overlap-added square is 0"))),
]

