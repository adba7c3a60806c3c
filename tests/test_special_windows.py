"""``torch.signal.windows``, the top-level window factories, ``logspace``, and what the op table
does not see of ``torch.special``'s Bessel functions and polynomials: their outputs never require
grad (``tensorgrad/signal/windows.py``, ``_api/windows.py``, ``_api/creation.py``,
``_api/special_functions.py``).

Differential: each snippet's last expression (or its exception type and message) must print the
same with tensorgrad as with PyTorch (``snippets.same``).
"""

import pytest

import tensorgrad as tg
from snippets import cases, ids, run, same


@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


WINDOW_CASES = cases("""
[torch.signal.windows.hann(M, sym=s) for M in (0, 1, 2, 7) for s in (True, False)]
---
torch.signal.windows.hamming(6, dtype=torch.float64), torch.signal.windows.blackman(5, sym=False)
---
torch.signal.windows.bartlett(6), torch.signal.windows.bartlett(5, sym=False), torch.signal.windows.bartlett(1)
---
torch.signal.windows.cosine(5), torch.signal.windows.cosine(4, sym=False)
---
torch.signal.windows.exponential(5, tau=2.0), torch.signal.windows.exponential(4, sym=False, center=1.0)
---
torch.signal.windows.gaussian(6, std=1.5), torch.signal.windows.kaiser(6, beta=5.0), torch.signal.windows.kaiser(5, sym=False)
---
torch.signal.windows.general_cosine(5, a=[0.5, 0.3, 0.2]), torch.signal.windows.general_hamming(5, alpha=0.6), torch.signal.windows.nuttall(6)
---
w = torch.signal.windows.hann(5, requires_grad=True)
w.grad_fn.name(), torch.signal.windows.gaussian(3, requires_grad=True).grad_fn.name(), torch.signal.windows.kaiser(3, requires_grad=True).grad_fn.name()
---
torch.signal.windows.hann(-1)
---
torch.signal.windows.hann(3, dtype=torch.float16)
---
torch.signal.windows.gaussian(3, std=0)
---
torch.signal.windows.exponential(3, center=1.0)
---
torch.signal.windows.exponential(3, tau=-1)
---
torch.signal.windows.kaiser(3, beta=-1)
---
torch.signal.windows.general_cosine(3, a=1)
---
torch.signal.windows.general_cosine(3, a=[])
---
torch.hann_window(6), torch.hann_window(5, False, dtype=torch.float64), torch.hann_window(0), torch.hann_window(1)
---
torch.hamming_window(6, True, 0.5, 0.3), torch.blackman_window(7), torch.bartlett_window(6, periodic=False), torch.bartlett_window(5)
---
torch.kaiser_window(6, False, 5.0), torch.kaiser_window(7), torch.hann_window(5, dtype=torch.float16), torch.blackman_window(5, dtype=torch.bfloat16)
---
w = torch.hann_window(4, requires_grad=True)
w.is_leaf, w.requires_grad
---
torch.hann_window(-1)
---
torch.hann_window(5.0)
---
torch.hann_window(5, dtype=torch.complex64)
""")


@pytest.mark.parametrize("src", WINDOW_CASES, ids=ids(WINDOW_CASES))
def test_windows_match_torch(torch_, src):
    same(torch_, src)


def test_window_dtype_errors(torch_):
    """PyTorch's message prints its TensorOptions; the exception type and the start are checked."""
    for src in ("torch.hann_window(5, dtype=torch.int64)", "torch.kaiser_window(5, dtype=torch.int32)"):
        ours, theirs = run(tg, src), run(torch_, src)
        assert ours[:2] == theirs[:2] == ("error", "RuntimeError")
        assert ours[2].split(" got:")[0] == theirs[2].split(" got:")[0]


LOGSPACE_CASES = cases("""
torch.logspace(0, 3, 4), torch.logspace(-2.3, 4.7, 11, base=2.5), torch.logspace(2, -3, 9, base=0.5, dtype=torch.float64)
---
torch.logspace(0, 2.5, 6, base=3.3, dtype=torch.int64), torch.logspace(-3, 3, 7, dtype=torch.int64), torch.logspace(0.1, 1.3, 7, dtype=torch.int16)
---
torch.logspace(0, 70, 3, base=2, dtype=torch.int64), torch.logspace(0, 3, 4, dtype=torch.uint8), torch.logspace(0, 10, 5, dtype=torch.int8)
---
torch.logspace(0, 3, 1), torch.logspace(0, 3, 0), torch.logspace(0, 3.5, 1, dtype=torch.int64), torch.logspace(torch.tensor(1.), 3, 3)
---
torch.logspace(1j, 2, 3), torch.logspace(-1.5, 2.5, 5, base=-2), torch.logspace(-2.3, 4.7, 5, dtype=torch.float16)
---
torch.logspace(0, 3, 4, requires_grad=True)
---
torch.logspace(0, 3, -1)
---
torch.logspace(0, 3, 4, dtype=torch.bool)
---
torch.linspace(1j, 2, 3), torch.linspace(-2.3, 4.7, 11), torch.linspace(0, 10, 7, dtype=torch.int64)
""")


@pytest.mark.parametrize("src", LOGSPACE_CASES, ids=ids(LOGSPACE_CASES))
def test_logspace_matches_torch(torch_, src):
    same(torch_, src)


NO_GRAD_CASES = cases("""
x = torch.tensor([0.5, 1.5], requires_grad=True)
[f(x).requires_grad for f in (torch.special.bessel_j0, torch.special.modified_bessel_k1, torch.special.airy_ai, torch.special.spherical_bessel_j0)]
---
x = torch.tensor([0.5, 1.5], requires_grad=True)
n = torch.tensor([2.0, 3.0], requires_grad=True)
y = torch.special.chebyshev_polynomial_t(x, n)
y.requires_grad, y.grad_fn, torch.special.hermite_polynomial_h(x, 3).requires_grad, torch.special.legendre_polynomial_p(0.5, n).requires_grad
---
x = torch.tensor([0.5, 1.5], requires_grad=True)
torch.special.bessel_y0(x).sum().backward()
---
q = torch.tensor([1.5, 2.5], requires_grad=True)
y = torch.special.zeta(2.0, q)
y.sum().backward()
y.grad_fn.name(), q.grad
---
x = torch.tensor([2.0, 3.0], requires_grad=True)
torch.special.zeta(x, 2.0).sum().backward()
""")


@pytest.mark.parametrize("src", NO_GRAD_CASES, ids=ids(NO_GRAD_CASES))
def test_special_gradients_match_torch(torch_, src):
    same(torch_, src)
