"""Compare tensorgrad._printing.format_tensor with repr() of real PyTorch tensors, and the
``requires_grad=True`` / ``grad_fn=<...>`` suffixes of a tensor's repr with PyTorch's."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorgrad as tg
from tensorgrad._printing import format_tensor, get_printoptions, printoptions, set_printoptions
from snippets import cases, ids, same

torch = pytest.importorskip("torch")

FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
INT_DTYPES = ["int64", "int32", "int16", "int8", "uint8"]
ALL_DTYPES = FLOAT_DTYPES + INT_DTYPES + ["bool", "complex64", "complex128"]
HYPOTHESIS = settings(max_examples=300, deadline=None, database=None)


@pytest.fixture(autouse=True)
def _restore_defaults():
    """Every test starts and ends with default print options and float32 as default dtype."""
    yield
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


def _dtype_name(dtype):
    return str(dtype).removeprefix("torch.")


def _suffixes_of(t):
    """The grad suffix torch shows for t; only used to pass the same string to ours."""
    if t.grad_fn is not None:
        return [f"grad_fn=<{type(t.grad_fn).__name__}>"]
    return ["requires_grad=True"] if t.requires_grad else []


def ours(t, suffixes=None):
    """format_tensor on t's values, passed as the tensorgrad caller would pass them."""
    values = t.detach()
    if values.dtype in (torch.float16, torch.bfloat16):
        values = values.float()
    return format_tensor(
        values.numpy(),
        dtype_name=_dtype_name(t.dtype),
        default_float_name=_dtype_name(torch.get_default_dtype()),
        suffixes=_suffixes_of(t) if suffixes is None else suffixes,
    )


def check(t, suffixes=None):
    assert ours(t, suffixes) == repr(t)


def both_printoptions(**kwargs):
    torch.set_printoptions(**kwargs)
    set_printoptions(**kwargs)


def make(values, dtype="float32", grad=None):
    """Build a torch tensor, with `grad` one of None, "requires_grad", "mul", "copyslices"."""
    dt = getattr(torch, dtype)
    if grad is None:
        return torch.tensor(values, dtype=dt)
    if grad == "requires_grad":
        return torch.tensor(values, dtype=dt, requires_grad=True)
    if grad == "mul":
        return torch.tensor(values, dtype=dt, requires_grad=True) * 1
    assert grad == "copyslices"
    y = torch.tensor(values, dtype=dt)
    index = (0,) * y.dim()
    y[index] = torch.ones((), dtype=dt, requires_grad=True) * y[index]  # same values
    return y


# ---------------------------------------------------------------------------------------------
# Section 7 examples of the reference, each checked against torch and against ours.

nan, inf = math.nan, math.inf

SECTION_7_EXAMPLES = [
    (lambda: torch.tensor([1.0, 2.0, 3.0]), "tensor([1., 2., 3.])"),
    (lambda: torch.tensor([1.5, 2.25, -3.125]), "tensor([ 1.5000,  2.2500, -3.1250])"),
    (lambda: torch.tensor([-1.0, 0.5, 2.0]), "tensor([-1.0000,  0.5000,  2.0000])"),
    (lambda: torch.tensor([1e-5, 1.0, 2.0]), "tensor([1.0000e-05, 1.0000e+00, 2.0000e+00])"),
    (lambda: torch.tensor([1e8, 1.0, 2.0]), "tensor([1.0000e+08, 1.0000e+00, 2.0000e+00])"),
    (lambda: torch.tensor([12345678.0, 1.0]), "tensor([1.2346e+07, 1.0000e+00])"),
    (lambda: torch.tensor([1234.56, 1e-3]), "tensor([1.2346e+03, 1.0000e-03])"),
    (lambda: torch.tensor([1.0, 1000.0]), "tensor([   1., 1000.])"),
    (lambda: torch.tensor([1.0, 1001.0]), "tensor([1.0000e+00, 1.0010e+03])"),
    (lambda: torch.tensor([1e8]), "tensor([100000000.])"),
    (lambda: torch.tensor([0.001, 0.5]), "tensor([0.0010, 0.5000])"),
    (lambda: torch.tensor([nan, inf, -inf, 1.5]), "tensor([   nan,    inf,   -inf, 1.5000])"),
    (lambda: torch.tensor([nan, inf, 1.0]), "tensor([nan, inf, 1.])"),
    (lambda: torch.tensor([-0.0, 0.0]), "tensor([-0., 0.])"),
    (lambda: torch.tensor([-5.0, 10.0, 100.0]), "tensor([ -5.,  10., 100.])"),
    (lambda: torch.tensor([1, -20, 300]), "tensor([  1, -20, 300])"),
    (lambda: torch.tensor([True, False]), "tensor([ True, False])"),
    (lambda: torch.tensor([123456789012, 1]), "tensor([123456789012,            1])"),
    (lambda: torch.tensor([1 + 2j, -3.5 - 1j]), "tensor([ 1.0000+2.j, -3.5000-1.j])"),
    (lambda: torch.tensor([1 + 1j]), "tensor([1.+1.j])"),
    (lambda: torch.tensor([1 + 1j], dtype=torch.complex128), "tensor([1.+1.j], dtype=torch.complex128)"),
    (lambda: torch.tensor([1.0, 2.0], dtype=torch.float64), "tensor([1., 2.], dtype=torch.float64)"),
    (lambda: torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True) * 2,
     "tensor([2., 4.], dtype=torch.float64, grad_fn=<MulBackward0>)"),
    (lambda: torch.tensor([1.5, 2.0], dtype=torch.float16), "tensor([1.5000, 2.0000], dtype=torch.float16)"),
    (lambda: torch.tensor([-1, 2], dtype=torch.int8), "tensor([-1,  2], dtype=torch.int8)"),
    (lambda: torch.tensor(2.0, requires_grad=True), "tensor(2., requires_grad=True)"),
    (lambda: torch.tensor(2.0, requires_grad=True) ** 2, "tensor(4., grad_fn=<PowBackward0>)"),
    (lambda: torch.tensor(1.5, dtype=torch.float64, requires_grad=True),
     "tensor(1.5000, dtype=torch.float64, requires_grad=True)"),
    (lambda: torch.zeros(2, 0, dtype=torch.int64), "tensor([], size=(2, 0), dtype=torch.int64)"),
    (lambda: torch.tensor([[1.0, -2.5], [3.25, 4.0]]),
     "tensor([[ 1.0000, -2.5000],\n        [ 3.2500,  4.0000]])"),
    (lambda: torch.tensor([[1.0, -2.0], [30.0, 4.0]]), "tensor([[ 1., -2.],\n        [30.,  4.]])"),
    (lambda: torch.tensor([[1.5, 100.25], [-1000.125, 2.0]]),
     "tensor([[    1.5000,   100.2500],\n        [-1000.1250,     2.0000]])"),
    (lambda: torch.arange(12.0).reshape(2, 2, 3),
     "tensor([[[ 0.,  1.,  2.],\n         [ 3.,  4.,  5.]],\n\n"
     "        [[ 6.,  7.,  8.],\n         [ 9., 10., 11.]]])"),
    (lambda: torch.tensor([[[1.5, -2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.25]]]),
     "tensor([[[ 1.5000, -2.0000],\n         [ 3.0000,  4.0000]],\n\n"
     "        [[ 5.0000,  6.0000],\n         [ 7.0000,  8.2500]]])"),
    (lambda: torch.zeros(1, 2, 1, 2), "tensor([[[[0., 0.]],\n\n         [[0., 0.]]]])"),
    (lambda: torch.tensor([[True, False], [False, True]]),
     "tensor([[ True, False],\n        [False,  True]])"),
    (lambda: (torch.arange(30.0) / 3).requires_grad_(),
     "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
     "        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n"
     "        6.0000, 6.3333, 6.6667, 7.0000, 7.3333, 7.6667, 8.0000, 8.3333, 8.6667,\n"
     "        9.0000, 9.3333, 9.6667], requires_grad=True)"),
    (lambda: torch.arange(16.0, requires_grad=True) * 1,
     "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
     "        14., 15.], grad_fn=<MulBackward0>)"),
    (lambda: torch.arange(12.0, dtype=torch.float64, requires_grad=True) * 1,
     "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],\n"
     "       dtype=torch.float64, grad_fn=<MulBackward0>)"),
    (lambda: torch.tensor([123.5, 1.25, 2.5, 3.5, 4.5, 5.5, 6.5], requires_grad=True),
     "tensor([123.5000,   1.2500,   2.5000,   3.5000,   4.5000,   5.5000,   6.5000],\n"
     "       requires_grad=True)"),
    (lambda: (torch.arange(24.0) / 7).reshape(2, 12),
     "tensor([[0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
     "         1.2857, 1.4286, 1.5714],\n"
     "        [1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286, 2.5714, 2.7143, 2.8571,\n"
     "         3.0000, 3.1429, 3.2857]])"),
    (lambda: torch.arange(1001.0), "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])"),
    (lambda: torch.arange(1001.0, dtype=torch.float64),
     "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.], dtype=torch.float64)"),
    (lambda: torch.arange(2000.0).reshape(40, 50),
     "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.7000e+01, 4.8000e+01,\n"
     "         4.9000e+01],\n"
     "        [5.0000e+01, 5.1000e+01, 5.2000e+01,  ..., 9.7000e+01, 9.8000e+01,\n"
     "         9.9000e+01],\n"
     "        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.4700e+02, 1.4800e+02,\n"
     "         1.4900e+02],\n"
     "        ...,\n"
     "        [1.8500e+03, 1.8510e+03, 1.8520e+03,  ..., 1.8970e+03, 1.8980e+03,\n"
     "         1.8990e+03],\n"
     "        [1.9000e+03, 1.9010e+03, 1.9020e+03,  ..., 1.9470e+03, 1.9480e+03,\n"
     "         1.9490e+03],\n"
     "        [1.9500e+03, 1.9510e+03, 1.9520e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
     "         1.9990e+03]])"),
    (lambda: torch.sin(torch.linspace(0, 2 * math.pi, 5, requires_grad=True)),
     "tensor([ 0.0000e+00,  1.0000e+00, -8.7423e-08, -1.0000e+00,  1.7485e-07],\n"
     "       grad_fn=<SinBackward0>)"),
    (lambda: torch.arange(10.0, requires_grad=True) * 1,
     "tensor([0., 1., 2., 3., 4., 5., 6., 7., 8., 9.], grad_fn=<MulBackward0>)"),
    (lambda: torch.arange(11.0, requires_grad=True) * 1,
     "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10.],\n"
     "       grad_fn=<MulBackward0>)"),
    (lambda: torch.zeros(2, 3), "tensor([[0., 0., 0.],\n        [0., 0., 0.]])"),
    (lambda: torch.tensor([[1.5410, -0.2934, -2.1788], [0.5684, -1.0845, -1.3986]]),
     "tensor([[ 1.5410, -0.2934, -2.1788],\n        [ 0.5684, -1.0845, -1.3986]])"),
    (lambda: torch.linspace(-1, 1, 7),
     "tensor([-1.0000e+00, -6.6667e-01, -3.3333e-01, -2.9802e-08,  3.3333e-01,\n"
     "         6.6667e-01,  1.0000e+00])"),
    # Section 7.1 examples: 0-d tensors and ragged columns.
    (lambda: torch.tensor(3.0), "tensor(3.)"),
    (lambda: torch.tensor(3.1416), "tensor(3.1416)"),
    (lambda: torch.tensor(1e-5), "tensor(1.0000e-05)"),
    (lambda: torch.tensor(123456789.0), "tensor(1.2346e+08)"),
    (lambda: torch.tensor(-2.5), "tensor(-2.5000)"),
    (lambda: torch.tensor(nan), "tensor(nan)"),
    (lambda: torch.tensor(7), "tensor(7)"),
    (lambda: torch.tensor(True), "tensor(True)"),
    (lambda: torch.tensor([0.0, 0.0]), "tensor([0., 0.])"),
    (lambda: torch.tensor([nan]), "tensor([nan])"),
    (lambda: torch.tensor([inf]), "tensor([inf])"),
    (lambda: torch.tensor([[nan, 1.0], [2.0, 3.0]]), "tensor([[nan, 1.],\n        [2., 3.]])"),
    (lambda: torch.tensor([1.23455]), "tensor([1.2345])"),
    (lambda: torch.tensor([0.1]), "tensor([0.1000])"),
    # Section 7.2: empty tensors.
    (lambda: torch.tensor([]), "tensor([])"),
    (lambda: torch.tensor([], dtype=torch.int64), "tensor([], dtype=torch.int64)"),
    (lambda: torch.zeros(0, 3), "tensor([], size=(0, 3))"),
]


@pytest.mark.parametrize("build, expected", SECTION_7_EXAMPLES)
def test_section_7_examples(build, expected):
    t = build()
    assert repr(t) == expected  # the reference agrees with torch
    check(t)


def test_arange_1000_ints_prints_in_full_14_per_line():
    t = torch.arange(1000)
    assert "..." not in repr(t)
    assert repr(t).split("\n")[1].count(",") == 14
    check(t)


def test_seeded_randn():
    torch.manual_seed(0)
    t = torch.randn(2, 3)
    assert repr(t) == "tensor([[ 1.5410, -0.2934, -2.1788],\n        [ 0.5684, -1.0845, -1.3986]])"
    check(t)


# ---------------------------------------------------------------------------------------------
# Every dtype.

DTYPE_VALUES = {
    "float32": [0.1, -2.5, 3.0], "float64": [0.1, -2.5, 3.0], "float16": [0.1, -2.5, 3.0],
    "bfloat16": [0.1, -2.5, 3.0], "int64": [-7, 0, 12345], "int32": [-7, 0, 12345],
    "int16": [-7, 0, 1234], "int8": [-7, 0, 127], "uint8": [0, 7, 255], "bool": [True, False, True],
    "complex64": [0.1 + 2j, -2.5 - 0.5j, 3j], "complex128": [0.1 + 2j, -2.5 - 0.5j, 3j],
}


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(3,), (), (1, 3), (3, 1), (1, 1, 3)])
def test_each_dtype(dtype, shape):
    values = np.array(DTYPE_VALUES[dtype])
    values = values[0] if shape == () else values.reshape(shape)
    check(make(values.tolist(), dtype))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ["complex64", "complex128"])
@pytest.mark.parametrize("grad", ["requires_grad", "mul", "copyslices"])
def test_each_grad_dtype_with_suffix(dtype, grad):
    check(make(DTYPE_VALUES[dtype], dtype, grad))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3), (1, 0, 2), (0, 0), (3, 0, 0, 1)])
def test_empty(dtype, shape):
    check(torch.zeros(shape, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("shape", [(0,), (2, 0)])
def test_empty_requires_grad(shape):
    check(torch.zeros(shape, requires_grad=True))
    check(torch.zeros(shape, dtype=torch.float64, requires_grad=True) * 1)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_zero_dim(dtype):
    for value in DTYPE_VALUES[dtype]:
        check(make(value, dtype))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ["complex64", "complex128"])
@pytest.mark.parametrize("value", [0.0, -0.0, nan, inf, -inf, 1e-5, 1e9, 65504.0, -1.0])
def test_zero_dim_special(dtype, value):
    check(make(value, dtype))


def test_bfloat16_and_float16_use_the_rounded_values():
    check(make([0.1, 1e-5, 1.0], "bfloat16"))
    check(make([1e-4, 1.0], "float16"))  # float16 1e-4 is just above 1e-4: fixed, not sci
    check(make([1e-4, 1.0], "float32"))  # float32 1e-4 is just below 1e-4: sci


# ---------------------------------------------------------------------------------------------
# nan / inf / -0 and the int / fixed / sci mode edges.

@pytest.mark.parametrize("values", [
    [nan], [inf, -inf], [nan, 0.0], [-0.0], [-0.0, 0.5], [-0.0, 1.0], [-0.0, 1e-5],
    [nan, 1e-5], [inf, 1e9], [nan, 1.25], [-inf, 1.0, 2.0], [[nan, -inf], [0.0, -0.0]],
    [0.0, 1e-30], [1e38, -1e38], [3e38, 1e-38],
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_non_finite_and_negative_zero(values, dtype):
    check(make(values, dtype))


@pytest.mark.parametrize("values", [
    [1.0, 1000.0], [1.0, 1001.0], [0.5, 500.0], [0.5, 500.5], [-1.0, 1000.0], [-1.0, -1001.0],
    [1e8], [1e8, 2e8], [1.0000001e8], [1e8 + 8], [99999999.0], [1e-4], [1e-4, 1.0], [9.9e-5],
    [1.0001e-4], [0.5, 1e8], [1e7, 1e4], [1e7, 9999.0], [0.1, 100.0], [0.1, 100.1],
    [123456.5], [1234567.5], [-1e-4, 0.5], [1e15], [2.0**60], [1e20, 1.5],
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mode_edges(values, dtype):
    check(make(values, dtype))


@pytest.mark.parametrize("values", [
    [1 + 1000j], [1 + 1001j], [1e-5 + 1j], [nan + 1j], [complex(1, nan)], [complex(-0.0, -0.0)],
    [complex(0.0, -0.0)], [complex(inf, -inf)], [1.5 - 2j, 3 + 0.25j], [[1j, 2], [3, 4j]],
])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_edges(values, dtype):
    check(make(values, dtype))


@pytest.mark.parametrize("values", [
    [2**63 - 1, -(2**63)], [0], [-1], [10**12, -5], [[1, 22], [333, -4444]],
])
def test_big_and_negative_ints(values):
    check(make(values, "int64"))


# ---------------------------------------------------------------------------------------------
# Suffix wrapping: sweep the length of the body across the wrap points.

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("grad", [None, "requires_grad", "mul", "copyslices"])
@pytest.mark.parametrize("n", range(1, 26))
def test_suffix_wrapping_1d(n, grad, dtype):
    t = make(np.arange(n, dtype=np.float64).tolist(), dtype, grad)
    check(t)


@pytest.mark.parametrize("grad", [None, "requires_grad", "mul", "copyslices"])
@pytest.mark.parametrize("n", range(1, 12))
def test_suffix_wrapping_fixed_width_and_2d(n, grad):
    check(make((np.arange(n) + 0.5).tolist(), "float64", grad))
    check(make((np.arange(2 * n).reshape(2, n) / 3).tolist(), "float32", grad))


def test_suffix_lengths_at_the_limit():
    # Body lengths 58/59 for requires_grad=True and 54/55 for grad_fn=<MulBackward0>.
    for n in range(1, 30):
        values = [1.25] + [1.0] * (n - 1)
        for grad in ["requires_grad", "mul"]:
            check(make(values, "float32", grad))


def test_several_custom_suffixes():
    t = torch.arange(12.0)
    text = ours(t, ["grad_fn=<CopySlices>", "requires_grad=True"])
    assert text == ("tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],\n"
                    "       grad_fn=<CopySlices>, requires_grad=True)")


# ---------------------------------------------------------------------------------------------
# 3-D, 4-D and summarization.

@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 1, 1), (3, 1, 2), (2, 2, 2, 2), (1, 2, 1, 3), (2, 1, 1, 1, 2)])
def test_higher_rank(shape):
    n = int(np.prod(shape))
    check(torch.arange(float(n)).reshape(shape) / 4)
    check(torch.arange(n).reshape(shape) - 5)
    check(torch.arange(float(n)).reshape(shape).requires_grad_())


@pytest.mark.parametrize("n", [999, 1000, 1001, 1002, 5000])
def test_summarize_1d_boundary(n):
    check(torch.arange(float(n)))
    check(torch.arange(n))
    check(torch.arange(float(n)) / 7)


@pytest.mark.parametrize("shape", [(40, 50), (1001, 1), (1, 1001), (7, 200), (6, 200), (11, 11, 11),
                                   (2, 3, 200), (10, 10, 11), (5, 5, 5, 9)])
def test_summarize_nd(shape):
    n = int(np.prod(shape))
    check(torch.arange(n).reshape(shape))
    check(torch.arange(float(n)).reshape(shape) / 3)
    check(torch.arange(float(n), dtype=torch.float64, requires_grad=True).reshape(shape))


def test_summarized_format_uses_only_shown_values():
    t = torch.ones(2000)
    t[500] = 0.001  # hidden: does not force fixed or sci mode
    check(t)
    t[0] = 0.5
    check(t)
    check(torch.cat([torch.tensor([1.0]), torch.full((1000,), 1e9), torch.tensor([2.0])]))


# ---------------------------------------------------------------------------------------------
# Print options.

def test_get_printoptions_defaults():
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3,
                                  "linewidth": 80, "sci_mode": None}
    assert list(get_printoptions()) == list(torch._tensor_str.get_printoptions())


OPTION_CASES = [
    dict(precision=2), dict(precision=0), dict(precision=8), dict(threshold=5),
    dict(threshold=5, edgeitems=1), dict(threshold=0), dict(edgeitems=0), dict(threshold=5, edgeitems=0),
    dict(linewidth=40), dict(linewidth=10), dict(linewidth=200), dict(sci_mode=True),
    dict(sci_mode=False), dict(precision=2, sci_mode=False), dict(precision=2, sci_mode=True),
    dict(profile="short"), dict(profile="full"), dict(profile="default"), dict(profile="nonsense"),
    dict(profile="short", precision=6), dict(threshold=20, edgeitems=2, linewidth=50),
]

OPTION_TENSORS = [
    lambda: torch.tensor([1.12345, 2.5]), lambda: torch.tensor([1e-5, 1.0]), lambda: torch.tensor([1.5, 2.0]),
    lambda: torch.tensor([0.0, 0.0]), lambda: torch.tensor([nan, 1.0]), lambda: torch.arange(10),
    lambda: torch.arange(20).reshape(4, 5), lambda: torch.arange(12.0), lambda: torch.arange(2000.0),
    lambda: torch.arange(60.0).reshape(3, 4, 5) / 7, lambda: torch.tensor(3.25), lambda: torch.tensor([1 + 2j, 1e-5j]),
    lambda: torch.arange(30.0, requires_grad=True) * 1, lambda: torch.zeros(2, 0), lambda: torch.tensor([True]),
    lambda: torch.arange(1001.0).reshape(1001, 1), lambda: torch.tensor([-0.0, 123456.75]),
    lambda: (torch.arange(1500.0) / 3 * (1 + 2j)).reshape(30, 50), lambda: torch.tensor(1e-5 + 2j),
]


@pytest.mark.parametrize("options", OPTION_CASES, ids=str)
def test_set_printoptions(options):
    both_printoptions(**options)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    for build in OPTION_TENSORS:
        check(build())


def test_section_7_6_examples():
    both_printoptions(precision=2)
    assert ours(torch.tensor([1.12345, 2.5])) == "tensor([1.12, 2.50])"
    both_printoptions(precision=2, sci_mode=False)
    assert ours(torch.tensor([1e-5, 1.0])) == "tensor([0.00, 1.00])"
    both_printoptions(precision=2, sci_mode=True)
    assert ours(torch.tensor([1.5, 2.0])) == "tensor([1.50e+00, 2.00e+00])"
    assert ours(torch.tensor([1.0, 2.0])) == "tensor([1.00e+00, 2.00e+00])"
    both_printoptions(profile="default")
    both_printoptions(threshold=5)
    assert ours(torch.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    check(torch.arange(20).reshape(4, 5))
    both_printoptions(edgeitems=1)
    assert ours(torch.arange(10)) == "tensor([0,  ..., 9])"
    both_printoptions(profile="default", linewidth=40)
    assert ours(torch.arange(12.0)).startswith("tensor([ 0.,  1.,  2.,  3.,  4.,  5.,\n         6., ")


def test_sci_mode_reset_quirk():
    both_printoptions(sci_mode=False)
    assert ours(torch.tensor([1e-5, 1.0])) == "tensor([0.0000, 1.0000])"
    both_printoptions(precision=4)  # omitting sci_mode resets it to None
    assert get_printoptions()["sci_mode"] is None
    assert ours(torch.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"


def test_options_persist_across_calls_and_profiles():
    set_printoptions(precision=2, threshold=7, edgeitems=1, linewidth=33)
    set_printoptions(linewidth=50)
    assert get_printoptions() == {"precision": 2, "threshold": 7, "edgeitems": 1,
                                  "linewidth": 50, "sci_mode": None}
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == math.inf
    set_printoptions(profile="short", linewidth=60)
    assert get_printoptions() == {"precision": 2, "threshold": 1000, "edgeitems": 2,
                                  "linewidth": 60, "sci_mode": None}


def test_printoptions_context_manager_restores():
    set_printoptions(precision=3, sci_mode=True)
    with printoptions(precision=1, linewidth=20):
        assert get_printoptions()["precision"] == 1
        assert get_printoptions()["sci_mode"] is None
        with torch._tensor_str.printoptions(precision=1, linewidth=20):
            check(torch.arange(10.0) / 3)
    assert get_printoptions() == {"precision": 3, "threshold": 1000, "edgeitems": 3,
                                  "linewidth": 80, "sci_mode": True}
    with pytest.raises(KeyError):
        with printoptions(precision=1):
            raise KeyError
    assert get_printoptions()["precision"] == 3


# ---------------------------------------------------------------------------------------------
# Default dtype float64.

DEFAULT_FLOAT64_TENSORS = [
    lambda: torch.tensor([1.5]), lambda: torch.tensor([1.5], dtype=torch.float32),
    lambda: torch.tensor([1j]), lambda: torch.tensor([1j], dtype=torch.complex64),
    lambda: torch.tensor([]), lambda: torch.tensor([], dtype=torch.float32),
    lambda: torch.tensor([], dtype=torch.complex128), lambda: torch.zeros(2, 0, dtype=torch.float32),
    lambda: torch.arange(2.0), lambda: torch.arange(2) * 1.5, lambda: torch.tensor([1, 2]),
    lambda: torch.tensor([True]), lambda: torch.tensor(2.0, requires_grad=True) * 3,
    lambda: torch.arange(12.0, requires_grad=True) * 1,
    lambda: torch.arange(12.0, dtype=torch.float32, requires_grad=True) * 1,
    lambda: torch.tensor([0.1], dtype=torch.float16),
]


@pytest.mark.parametrize("build", DEFAULT_FLOAT64_TENSORS)
def test_default_dtype_float64(build):
    torch.set_default_dtype(torch.float64)
    check(build())


def test_default_dtype_float64_reference_example():
    torch.set_default_dtype(torch.float64)
    t = torch.tensor([1.5])
    assert repr(t) == "tensor([1.5000])"
    assert format_tensor(np.array([1.5]), dtype_name="float64", default_float_name="float64") == repr(t)


# ---------------------------------------------------------------------------------------------
# Direct calls (no torch conversion in between).

def test_direct_calls():
    assert format_tensor(np.array([1.0, 2.0]), dtype_name="float32") == "tensor([1., 2.])"
    assert format_tensor(np.array(7), dtype_name="int64") == "tensor(7)"
    assert format_tensor(np.array([1, 0]), dtype_name="bool") == "tensor([ True, False])"
    assert format_tensor(np.array([3.0, -1.0]), dtype_name="int32") == "tensor([ 3, -1], dtype=torch.int32)"
    assert format_tensor([[1.5, 2.0]], dtype_name="float32") == "tensor([[1.5000, 2.0000]])"
    assert (format_tensor(np.array([0.5], dtype=np.float32), dtype_name="bfloat16",
                          suffixes=("requires_grad=True",))
            == "tensor([0.5000], dtype=torch.bfloat16, requires_grad=True)")
    assert format_tensor(np.zeros((0, 2)), dtype_name="float64", default_float_name="float64") \
        == "tensor([], size=(0, 2))"


# ---------------------------------------------------------------------------------------------
# Property tests against torch.

shapes = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)
magnitude_floats = st.builds(
    lambda mantissa, exponent, sign: sign * mantissa * 10.0**exponent,
    st.floats(1.0, 10.0), st.integers(-30, 30), st.sampled_from([1.0, -1.0]))
float_elements = st.one_of(
    magnitude_floats,
    st.integers(-(10**9), 10**9).map(float),
    st.sampled_from([0.0, -0.0, nan, inf, -inf, 0.5, 0.25, 1.5, 0.1, 1000.0, 1e8, 1e-4]),
    st.floats(-1e3, 1e3),
)


@st.composite
def float_arrays(draw, dtype):
    shape = draw(shapes)
    n = int(np.prod(shape))
    values = draw(st.lists(float_elements, min_size=n, max_size=n))
    return np.array(values, dtype=np.float64).reshape(shape).astype(dtype)


@HYPOTHESIS
@given(data=st.data(), dtype=st.sampled_from(["float32", "float64"]),
       grad=st.sampled_from([None, "requires_grad", "mul"]))
def test_random_floats_match_torch(data, dtype, grad):
    values = data.draw(float_arrays(dtype))
    check(make(values, dtype, grad))


@HYPOTHESIS
@given(data=st.data(), dtype=st.sampled_from(["float16", "bfloat16"]))
def test_random_half_floats_match_torch(data, dtype):
    values = data.draw(float_arrays("float32"))
    finite = np.isfinite(values)
    values[finite] = np.clip(values[finite], -60000.0, 60000.0)  # stay inside float16 range
    check(make(values.tolist(), dtype))


@HYPOTHESIS
@given(data=st.data(), dtype=st.sampled_from(["complex64", "complex128"]))
def test_random_complex_match_torch(data, dtype):
    real = data.draw(float_arrays("float64"))
    imag = data.draw(st.lists(float_elements, min_size=real.size, max_size=real.size))
    values = np.empty(real.shape, dtype=np.complex128)
    values.real = real  # set the parts directly: arithmetic with inf would create extra nans
    values.imag = np.array(imag, dtype=np.float64).reshape(real.shape)
    check(make(values.astype(dtype), dtype))


@HYPOTHESIS
@given(shape=shapes, dtype=st.sampled_from(INT_DTYPES + ["bool"]), data=st.data())
def test_random_ints_match_torch(shape, dtype, data):
    info = np.iinfo(np.int64) if dtype == "int64" else (None if dtype == "bool" else np.iinfo(dtype))
    n = int(np.prod(shape))
    if dtype == "bool":
        elements = st.booleans()
    else:
        elements = st.one_of(st.integers(info.min, info.max), st.integers(-100, 100).map(
            lambda v: min(max(v, info.min), info.max)))
    values = np.array(data.draw(st.lists(elements, min_size=n, max_size=n)), dtype=dtype).reshape(shape)
    check(make(values.tolist(), dtype))


@HYPOTHESIS
@given(data=st.data(), dtype=st.sampled_from(["float32", "float64", "int64"]),
       precision=st.integers(0, 8), threshold=st.integers(0, 40), edgeitems=st.integers(0, 4),
       linewidth=st.integers(1, 120), sci_mode=st.sampled_from([None, True, False]))
def test_random_options_match_torch(data, dtype, precision, threshold, edgeitems, linewidth, sci_mode):
    both_printoptions(precision=precision, threshold=threshold, edgeitems=edgeitems,
                      linewidth=linewidth, sci_mode=sci_mode)
    values = data.draw(float_arrays("float64"))
    if dtype == "int64":
        values = np.nan_to_num(values, posinf=7.0, neginf=-7.0).clip(-1e15, 1e15).astype(np.int64)
    t = make(values.astype(dtype) if dtype != "int64" else values.tolist(), dtype)
    check(t)


# --------------------------------------------------------------------------------------------
# printing with autograd suffixes (differential: ``same`` is in snippets.py)

@pytest.fixture
def torch_():
    return torch


PRINT_CASES = cases("""
x = torch.tensor([1., 2., 3.], requires_grad=True); x, x * 2, x.sum(), x.mean(), x[0], x.double(), (x * 2).detach()
---
x = torch.tensor(2., requires_grad=True); x ** 2, x.exp(), [x * 2, torch.tensor([1., 2.])]
---
torch.arange(16., requires_grad=True) * 1, torch.arange(12., dtype=torch.float64, requires_grad=True) * 1
---
torch.tensor([123.5, 1.25, 2.5, 3.5, 4.5, 5.5, 6.5], requires_grad=True), torch.zeros(0, requires_grad=True)
---
x = torch.ones(2, 2, requires_grad=True); y = x.clone(); y[0, 0] = 5.; y, str(y), f"{y}"
---
x = torch.ones(3, dtype=torch.float16, requires_grad=True); x, x * 3, torch.ones(2, dtype=torch.bfloat16, requires_grad=True) * 2
---
x = torch.tensor([1.5, 2.5], requires_grad=True)
with torch.no_grad(): y = x * 2
y, x.detach(), x.data
---
x = torch.tensor([1.+2.j], requires_grad=True); x, x * 2
---
x = torch.tensor([1., 2.], requires_grad=True); (x * 2).sum().backward(); x.grad, x
""")


@pytest.mark.parametrize("src", PRINT_CASES, ids=ids(PRINT_CASES))
def test_printing_with_suffixes_matches_torch(torch_, src):
    same(torch_, src)


def test_printing_suffix_literals():
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    assert repr(x) == "tensor([1., 2., 3.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 4., 6.], grad_fn=<MulBackward0>)"
    assert repr(x.sum()) == "tensor(6., grad_fn=<SumBackward0>)"
    assert repr(x.double()) == "tensor([1., 2., 3.], dtype=torch.float64, grad_fn=<ToCopyBackward0>)"
    assert str(x * 2) == repr(x * 2) == f"{x * 2}"


# --------------------------------------------------------------------------------------------
# named tuples (values, indices, ...) and memory formats print as PyTorch's

NAMED = {
    "sort": lambda m, x: m.sort(x),
    "topk": lambda m, x: x.topk(2),
    "cummax": lambda m, x: m.cummax(x, 1),
    "cummin": lambda m, x: x.cummin(0),
    "aminmax": lambda m, x: m.aminmax(x, dim=0),
    "median": lambda m, x: x.median(1),
    "nanmedian": lambda m, x: m.nanmedian(x, 0),
    "mode": lambda m, x: m.mode(x),
    "linalg_slogdet": lambda m, x: m.linalg.slogdet(x[:, :2]),
    "linalg_qr": lambda m, x: m.linalg.qr(x),
    "linalg_eigh": lambda m, x: m.linalg.eigh(x[:, :2] @ x[:, :2].mT),
    "linalg_lstsq": lambda m, x: m.linalg.lstsq(x, x[:, :1]),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_tuple_fields_and_repr_match_torch(name):
    values = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], np.float32)
    ours = NAMED[name](tg, tg.tensor(values))
    theirs = NAMED[name](torch, torch.tensor(values))
    assert type(ours).__name__ == type(theirs).__name__ == name
    for field in ours._fields:
        getattr(theirs, field)
    assert len(ours) == len(theirs)
    if name not in ("linalg_qr", "linalg_eigh", "linalg_lstsq"):  # last digits may differ
        assert repr(ours) == repr(theirs)


def test_memory_formats_exist_and_print():
    for name in ("preserve_format", "contiguous_format", "channels_last", "channels_last_3d"):
        assert repr(getattr(tg, name)) == repr(getattr(torch, name))
