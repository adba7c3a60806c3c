"""The Tensor facade: dtypes and promotion, Size, device, factories, attributes and conversions.

Most cases are differential: the same snippet runs with ``torch`` bound to tensorgrad and to
real PyTorch, and the repr of its last expression (or the exception type and message, and any
warnings) must be equal. Cases whose expected text the reference records are also checked
literally, so they run without PyTorch.
"""

import re
import threading
import warnings

import numpy as np
import pytest

import tensorgrad as tg
from snippets import cases, ids, run, same


# --------------------------------------------------------------------------------------------
# the differential harness (``run`` and ``same`` are in snippets.py)

@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


# --------------------------------------------------------------------------------------------
# dtypes

def test_dtype_reprs_and_aliases():
    assert repr(tg.float32) == "torch.float32"
    assert str(tg.int64) == "torch.int64"
    assert tg.float is tg.float32 and tg.double is tg.float64 and tg.half is tg.float16
    assert tg.long is tg.int64 and tg.int is tg.int32 and tg.short is tg.int16
    assert tg.cfloat is tg.complex64 and tg.cdouble is tg.complex128
    assert tg.float32.is_floating_point and not tg.int64.is_floating_point
    assert tg.complex64.is_complex and tg.float32.itemsize == 4 and tg.float64.itemsize == 8


DTYPE_CASES = cases("""
torch.float32, torch.float, torch.double, torch.long, torch.int, torch.half, torch.bool, torch.bfloat16, torch.cfloat
---
torch.float is torch.float32, torch.long is torch.int64, torch.int is torch.int32, torch.half is torch.float16
---
str(torch.float32), torch.float32.is_floating_point, torch.int64.is_floating_point, torch.complex64.is_complex
---
torch.float32.itemsize, torch.int16.itemsize, torch.float32 == torch.float32, torch.float32 != torch.float64
---
torch.ones(2, dtype=int).dtype, torch.ones(2, dtype=float).dtype, torch.ones(2, dtype=bool)
""")


@pytest.mark.parametrize("src", DTYPE_CASES, ids=ids(DTYPE_CASES))
def test_dtypes_match_torch(torch_, src):
    same(torch_, src)


INFERRED = [
    (lambda: tg.tensor([1, 2]), tg.int64),
    (lambda: tg.tensor(3), tg.int64),
    (lambda: tg.arange(4), tg.int64),
    (lambda: tg.full((2,), 3), tg.int64),
    (lambda: tg.randint(0, 5, (2,)), tg.int64),
    (lambda: tg.tensor([1, 2.]), tg.float32),
    (lambda: tg.tensor(3.), tg.float32),
    (lambda: tg.arange(4.), tg.float32),
    (lambda: tg.arange(0, 1, 0.25), tg.float32),
    (lambda: tg.zeros(2), tg.float32),
    (lambda: tg.linspace(0, 1, 3), tg.float32),
    (lambda: tg.full((2,), 3.), tg.float32),
    (lambda: tg.tensor(True), tg.bool),
    (lambda: tg.tensor([1 + 2j]), tg.complex64),
    (lambda: tg.tensor(np.array([1., 2.])), tg.float64),
    (lambda: tg.from_numpy(np.array([1., 2.])), tg.float64),
    (lambda: tg.tensor(np.float64(1.)), tg.float64),
    (lambda: tg.ones(2, dtype=int), tg.int64),
]


@pytest.mark.parametrize("make, dtype", INFERRED)
def test_inferred_dtypes(make, dtype):
    """Reference section 8.1."""
    assert make().dtype is dtype


# --------------------------------------------------------------------------------------------
# promotion (reference section 8.2)

PROMOTION_LITERAL = [
    ("torch.arange(4) * 2.5", "tensor([0.0000, 2.5000, 5.0000, 7.5000])"),
    ("torch.arange(4) * 2", "tensor([0, 2, 4, 6])"),
    ("torch.arange(4) / 2", "tensor([0.0000, 0.5000, 1.0000, 1.5000])"),
    ("torch.arange(4) / torch.arange(1, 5)", "tensor([0.0000, 0.5000, 0.6667, 0.7500])"),
    ("torch.arange(4) // 2", "tensor([0, 0, 1, 1])"),
    ("torch.arange(4) ** 2", "tensor([0, 1, 4, 9])"),
    ("torch.arange(4) ** 0.5", "tensor([0.0000, 1.0000, 1.4142, 1.7321])"),
    ("(torch.arange(3) + True).dtype", "torch.int64"),
    ("(torch.tensor([True]) + torch.tensor([True])).dtype", "torch.bool"),
    ("(torch.tensor([True]) + 1).dtype", "torch.int64"),
    ("(torch.tensor([True]) * 1.5).dtype", "torch.float32"),
    ("(torch.arange(3) + torch.ones(3)).dtype", "torch.float32"),
    ("(torch.arange(3, dtype=torch.int32) + torch.arange(3)).dtype", "torch.int64"),
    ("(torch.ones(2) + torch.ones(2, dtype=torch.float64)).dtype", "torch.float64"),
    ("(torch.ones(2) + torch.tensor(1., dtype=torch.float64)).dtype", "torch.float32"),
    ("(torch.arange(2) + torch.tensor(1., dtype=torch.float64)).dtype", "torch.float64"),
    ("(torch.ones(2, dtype=torch.float16) + torch.tensor(1.)).dtype", "torch.float16"),
    ("(torch.ones(2, dtype=torch.float16) + 1.5).dtype", "torch.float16"),
    ("(torch.ones(2, dtype=torch.int32) + 1).dtype", "torch.int32"),
    ("(torch.ones(2, dtype=torch.int32) + 1.5).dtype", "torch.float32"),
    ("(torch.ones(2, dtype=torch.uint8) + 1).dtype", "torch.uint8"),
    ("(torch.ones(2, dtype=torch.uint8) + torch.ones(2, dtype=torch.int8)).dtype", "torch.int16"),
    ("torch.arange(4, dtype=torch.uint8) + 300", "tensor([44, 45, 46, 47], dtype=torch.uint8)"),
    ("(torch.tensor(1) + torch.ones(2)).dtype", "torch.float32"),
    ("(torch.ones(2) * 1j).dtype", "torch.complex64"),
    ("(torch.ones(2) + np.float64(1.)).dtype", "torch.float32"),
    ("(torch.ones(2) > 1).dtype", "torch.bool"),
    ("torch.sqrt(torch.arange(4))", "tensor([0.0000, 1.0000, 1.4142, 1.7321])"),
    ("torch.tensor([True, True, False]).sum()", "tensor(2)"),
    ("torch.arange(3, dtype=torch.int32).sum().dtype", "torch.int64"),
    ("torch.arange(3).argmax().dtype", "torch.int64"),
    ("torch.result_type(torch.arange(4), 2.5)", "torch.float32"),
    ("torch.promote_types(torch.int32, torch.float16)", "torch.float16"),
]


@pytest.mark.parametrize("src, expected", PROMOTION_LITERAL, ids=[s for s, _ in PROMOTION_LITERAL])
def test_promotion_reference_table(src, expected):
    assert run(tg, src) == ("ok", expected, ())


PROMOTION_ERRORS = [
    ("torch.arange(4) ** -1", "RuntimeError", "Integers to negative integer powers are not allowed."),
    ("torch.arange(3).mean()", "RuntimeError",
     "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
     "Got: Long"),
    ("torch.arange(4).add_(1.5)", "RuntimeError", "result type Float can't be cast to the desired output type Long"),
    ("a = torch.arange(4)\na += torch.ones(4)", "RuntimeError",
     "result type Float can't be cast to the desired output type Long"),
    ("torch.ones(2) @ torch.ones(2, dtype=torch.float64)", "RuntimeError",
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    ("torch.arange(2) @ torch.ones(2)", "RuntimeError",
     "dot : expected both vectors to have same dtype, but found Long and Float"),
]


@pytest.mark.parametrize("src, kind, message", PROMOTION_ERRORS, ids=[s for s, _, _ in PROMOTION_ERRORS])
def test_promotion_errors(src, kind, message):
    assert run(tg, src) == ("error", kind, message, ())


PROMOTION_CASES = cases("""
torch.tensor([1, 2, 3]) / torch.tensor([2, 2, 2]), torch.tensor(3) / torch.tensor(2), 7 / torch.tensor(2)
---
torch.tensor(3) // torch.tensor(2), 7 // torch.tensor(2), torch.tensor([-7, 7]) // 2, torch.tensor([-7., 7.]) // 2
---
2 ** torch.arange(3), 2.5 ** torch.arange(3), torch.arange(3) ** torch.arange(3), torch.arange(3) ** 1.5
---
torch.arange(4) ** torch.tensor(-1)
---
torch.arange(4).pow(-2)
---
torch.tensor([-3, 3]) % 2, torch.tensor([-3., 3.]) % 2, 5 % torch.tensor([3, -3])
---
torch.tensor([True, False]) + torch.tensor([True, True]), torch.tensor([True, False]) * torch.tensor([True, True])
---
torch.tensor([True, False]) / torch.tensor([True, True]), torch.tensor([True]) + 2.5, torch.tensor([1.5]) + True
---
torch.tensor([True, False]) - torch.tensor([True, True])
---
torch.tensor([True]) - 1
---
1 - torch.tensor([True])
---
-torch.tensor([True])
---
torch.tensor([1, 2]) == torch.tensor([1., 3.]), torch.tensor([1, 2]) < 1.5
---
(torch.tensor(1, dtype=torch.int32) + torch.tensor(1)).dtype, (torch.tensor(1., dtype=torch.float16) + torch.tensor(1.)).dtype
---
(torch.tensor([1], dtype=torch.int32) + torch.tensor(1)).dtype, (torch.tensor([1], dtype=torch.int8) + torch.tensor(1000)).dtype
---
torch.tensor(1) + torch.tensor(1.5, dtype=torch.float64)
---
(torch.ones(2, dtype=torch.float16) + torch.ones(2, dtype=torch.bfloat16)).dtype, (torch.ones(1, dtype=torch.complex64) + torch.ones(1, dtype=torch.float64)).dtype
---
a = torch.ones(2); a.add_(torch.ones(2, dtype=torch.float64)); a
---
a = torch.ones(2); a += torch.ones(2, dtype=torch.float64); a
---
a = torch.arange(3); a.mul_(torch.ones(3))
---
a = torch.arange(3); a /= 2
---
a = torch.arange(5); a //= 2; a
---
torch.tensor([3]) & 1, torch.tensor([True]) & torch.tensor([False]), ~torch.tensor([True, False]), ~torch.tensor([1])
---
torch.ones(2) & torch.ones(2)
---
torch.exp(torch.arange(2)).dtype, torch.arange(3).float().mean(), torch.tensor([1, 2]).float() / 3
""")


@pytest.mark.parametrize("src", PROMOTION_CASES, ids=ids(PROMOTION_CASES))
def test_promotion_matches_torch(torch_, src):
    same(torch_, src)


def test_promotion_exhaustive_pairs(torch_):
    """Every pair of (dtype, 1-D or 0-d) tensors and Python numbers promotes as in PyTorch."""
    names = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64"]
    operands = [("t", n) for n in names] + [("z", n) for n in names] + [("s", v) for v in (True, 2, 2.5, 1j)]

    def make(module, kind, what):
        if kind == "s":
            return what
        shape = (2,) if kind == "t" else ()
        return module.ones(shape, dtype=getattr(module, what))

    bad = []
    for ka, a in operands:
        for kb, b in operands:
            if ka == "s" and kb == "s":
                continue
            ours = tg.result_type(make(tg, ka, a), make(tg, kb, b))
            theirs = torch_.result_type(make(torch_, ka, a), make(torch_, kb, b))
            if theirs is torch_.complex32:
                continue            # float16 with complex: JAX has no complex32
            if repr(ours) != repr(theirs):
                bad.append((ka, a, kb, b, ours, theirs))
    assert not bad


# --------------------------------------------------------------------------------------------
# Size and device

def test_size_is_a_tuple_that_prints_as_torch():
    s = tg.zeros(2, 3, 4).shape
    assert repr(s) == str(s) == "torch.Size([2, 3, 4])"
    assert repr(tg.tensor(1.).shape) == "torch.Size([])"
    assert isinstance(s, tuple) and isinstance(s, tg.Size)
    assert s == (2, 3, 4) and len(s) == 3 and s[0] == 2 and s[-1] == 4
    assert repr(s[1:]) == "torch.Size([3, 4])"
    assert isinstance(s[0], int)
    assert s.numel() == 24
    assert repr(s + (5,)) == "torch.Size([2, 3, 4, 5])"
    assert tuple(s) == (2, 3, 4) and list(s) == [2, 3, 4]
    assert tg.zeros(2, 3).size() == (2, 3) and tg.zeros(2, 3).size(-1) == 3
    assert hash(s) == hash((2, 3, 4))


SIZE_CASES = cases("""
torch.Size([2, 3]), torch.Size([]), torch.zeros(2, 3).shape, torch.zeros(2, 3).size()
---
s = torch.zeros(2, 3, 4).shape
s[0], s[1:], s[-1], len(s), tuple(s), s == (2, 3, 4), isinstance(s, tuple), s.numel(), list(s), s[::2]
---
s = torch.zeros(2, 3).shape
s + (4,), (1,) + s, s * 2, 2 * s, s[:0], torch.Size((5,)) == torch.Size([5])
---
torch.zeros(2, 3).size(1), torch.zeros(2, 3).size(-1), torch.zeros(2, 3).dim(), torch.zeros(2, 3).ndim, torch.zeros(2, 3).numel()
---
torch.zeros(2, 3).size(2)
---
torch.zeros(2, 3).size(-3)
---
torch.tensor(1.).size(), torch.tensor(1.).dim(), torch.tensor(1.).numel(), torch.zeros(0, 3).numel()
""")


@pytest.mark.parametrize("src", SIZE_CASES, ids=ids(SIZE_CASES))
def test_size_matches_torch(torch_, src):
    same(torch_, src)


def test_device_repr():
    d = tg.device("cpu")
    assert repr(d) == "device(type='cpu')"
    assert str(d) == "cpu"
    assert tg.zeros(2).device == d
    assert repr(tg.zeros(2).device) == "device(type='cpu')"
    assert repr(tg.device("cpu", 0)) == "device(type='cpu', index=0)"


DEVICE_CASES = cases("""
torch.device('cpu'), str(torch.device('cpu')), torch.zeros(2).device, torch.device('cpu') == torch.zeros(1).device
---
torch.device("cpu", 0), torch.device("cpu:0"), str(torch.device("cpu:0")), torch.device("cuda:1").index, torch.device(torch.device("cpu"))
---
torch.device("cpu") == "cpu", torch.device("cpu") == torch.device("cpu"), {torch.device("cpu"): 1}[torch.device("cpu")]
---
torch.device("cpu").type, torch.device("cpu").index, torch.device("cuda").type
---
torch.zeros(2, device="cpu").device, torch.zeros(2, device=torch.device("cpu")).device, torch.ones(2).is_cuda, torch.zeros(2).cpu().device
---
torch.device("foo")
---
torch.device("cpu:x")
""")


@pytest.mark.parametrize("src", DEVICE_CASES, ids=ids(DEVICE_CASES))
def test_device_matches_torch(torch_, src):
    same(torch_, src)


# --------------------------------------------------------------------------------------------
# factories

FACTORY_CASES = cases("""
torch.tensor([[1, 2], [3, 4]]), torch.tensor(2.5), torch.tensor([]), torch.tensor([[]]).shape
---
torch.tensor(2.5, dtype=torch.int64), torch.tensor([1.7, -1.7], dtype=torch.int32), torch.tensor([1, 2.5, True])
---
torch.tensor([True, 1]), torch.tensor([1, 2], dtype=torch.float16), torch.tensor([1, 2], dtype=torch.bfloat16), torch.tensor([1, 2], dtype=torch.complex64)
---
torch.tensor(np.array([1, 2], dtype=np.int32)).dtype, torch.tensor(np.array([1., 2.], dtype=np.float32)).dtype, torch.tensor(np.int64(3)).dtype
---
torch.tensor(torch.ones(2))
---
torch.tensor(torch.ones(2, requires_grad=True)).requires_grad
---
torch.tensor([torch.tensor(1.), torch.tensor(2.)]), torch.tensor([torch.tensor(1), torch.tensor(2)])
---
torch.tensor([[1, 2], [3]])
---
torch.tensor(None)
---
torch.tensor([1., 2.], requires_grad=True), torch.tensor(1., requires_grad=True).is_leaf
---
torch.tensor([1, 2], requires_grad=True)
---
torch.Tensor([1, 2]), torch.Tensor(2, 3).shape, torch.Tensor([[1, 2]]).dtype, torch.Tensor(2).dtype
---
torch.Tensor()
---
torch.Tensor(torch.Size([2, 3])).shape
---
torch.FloatTensor([1, 2]), torch.LongTensor([1, 2]), torch.DoubleTensor(2).shape, torch.FloatTensor([1, 2]).requires_grad
---
isinstance(torch.ones(2), torch.FloatTensor), isinstance(torch.ones(2), torch.LongTensor), isinstance(torch.ones(2), torch.Tensor)
---
t = torch.ones(2); torch.as_tensor(t) is t, torch.as_tensor(t, dtype=torch.float64).dtype
---
torch.as_tensor([1, 2]), torch.as_tensor(np.array([1, 2], dtype=np.int32)), torch.as_tensor(2.5)
---
a = np.array([1., 2.]); t = torch.from_numpy(a); t
---
torch.from_numpy(np.array([1, 2], dtype=np.int16)), torch.from_numpy(np.array(True))
---
torch.from_numpy([1., 2.])
---
torch.zeros(3, 4).shape, torch.zeros((3, 4)).shape, torch.zeros([3, 4]).shape, torch.zeros(size=(3, 4)).shape, torch.zeros(torch.Size([3, 4])).shape
---
torch.ones(3, 4).shape, torch.ones((3, 4)).shape, torch.ones(size=(3, 4)).shape, torch.empty(3, 4).shape, torch.empty((3, 4)).shape, torch.empty(size=[3, 4]).shape
---
torch.ones(2, dtype=torch.int32), torch.ones(2, 2, requires_grad=True), torch.zeros(0), torch.zeros(()), torch.zeros([])
---
torch.zeros(2, 3, dtype=torch.float64, requires_grad=True), torch.ones(2, dtype=torch.bool)
---
torch.full((2,), 3), torch.full((2, 2), 1.5), torch.full((2,), True), torch.full([2], 7, dtype=torch.float64), torch.full((2,), 1.5, requires_grad=True)
---
torch.full((2,), torch.tensor(4.)), torch.full(size=(1,), fill_value=2)
---
torch.empty(2, 3).shape, torch.empty(2, dtype=torch.int64).dtype, torch.empty((2, 3), requires_grad=True).requires_grad
---
torch.eye(3), torch.eye(2, 3), torch.eye(2, dtype=torch.int64), torch.eye(2, requires_grad=True)
---
torch.zeros(2, 3, dtype=torch.long, requires_grad=True)
---
torch.ones(2, dtype=torch.int32, requires_grad=True)
---
torch.arange(3, requires_grad=True)
---
torch.arange(3., requires_grad=True), torch.linspace(0, 1, 3, requires_grad=True), torch.rand(2, requires_grad=True).requires_grad
---
torch.randint(0, 5, (2,), requires_grad=True)
---
torch.eye(2, dtype=torch.int64, requires_grad=True)
---
t = torch.ones(2, 3, dtype=torch.float64); torch.zeros_like(t), torch.ones_like(t).dtype, torch.full_like(t, 7), torch.empty_like(t).shape
---
t = torch.ones(2, 3, dtype=torch.float64); torch.rand_like(t).dtype, torch.randn_like(t).shape, torch.rand_like(t).requires_grad
---
torch.zeros_like(torch.ones(2), requires_grad=True), torch.ones_like(torch.arange(2), dtype=torch.float32), torch.full_like(torch.arange(2), 2.7)
---
torch.zeros_like(torch.ones(2, requires_grad=True)), torch.ones_like(torch.ones(2, requires_grad=True) * 2)
---
torch.zeros_like(torch.arange(2), requires_grad=True)
---
torch.arange(5), torch.arange(1, 4), torch.arange(0, 1, 0.25), torch.arange(1, 2.5, 0.5), torch.arange(5, 0, -2)
---
torch.arange(0, 10, 3, dtype=torch.float64), torch.arange(10, dtype=torch.float32), torch.arange(2.5), torch.arange(torch.tensor(3))
---
torch.arange(0, 5, 0)
---
torch.arange(0, 5, -1)
---
torch.arange(5, 0)
---
torch.linspace(-1, 1, 7)
---
torch.linspace(0, 1, 5), torch.linspace(-5, 5, 11), torch.linspace(-2, 2, 9), torch.linspace(0, 1, 11)
---
torch.linspace(0, 1, 1), torch.linspace(0, 1, 0), torch.linspace(0, 10, 4, dtype=torch.int64), torch.linspace(2, 2, 3)
---
torch.linspace(0, 1, -1)
---
import math
torch.linspace(0, 2 * math.pi, 5, requires_grad=True)
---
torch.rand(2, 3).shape, torch.rand(2, 3).dtype, torch.randn((2, 3)).shape, torch.randn(2, dtype=torch.float64).dtype, torch.rand(size=(4,)).shape
---
torch.randint(5, (3,)).dtype, torch.randint(2, 5, (3,)).shape, torch.randint(0, 5, size=(2, 2)).shape, torch.randint(3, (2,), dtype=torch.int32).dtype
---
torch.normal(0., 1., (2, 3)).shape, torch.normal(torch.zeros(3), torch.ones(3)).shape, torch.normal(2., 3., size=(4,)).dtype
---
torch.zeros(-1)
---
torch.ones(-1)
---
torch.empty(2, -1)
---
torch.full((-1,), 1.)
---
torch.rand(-1)
---
torch.randn(2, -1)
---
torch.zeros(2.5)
---
torch.ones(2.5)
---
torch.empty("a")
---
torch.rand(2.5)
---
torch.full(2, 3)
---
torch.zeros((2, 3), 4)
---
torch.zeros(2, 2.5)
---
torch.zeros([2.5])
---
torch.zeros(size=3)
---
torch.zeros(2, 3, size=(2,))
---
torch.zeros(None)
---
torch.ones(True)
---
torch.zeros(torch.tensor(3)), torch.ones(np.int64(2)), torch.zeros(size=torch.Size([1, 2]))
---
torch.zeros(torch.tensor(3.))
---
torch.Tensor(2, -1)
---
torch.FloatTensor(-1)
---
torch.eye(-1)
---
torch.randint(5, 0, (2,))
""")


@pytest.mark.parametrize("src", FACTORY_CASES, ids=ids(FACTORY_CASES))
def test_factories_match_torch(torch_, src):
    same(torch_, src)


def test_factory_requires_grad_message():
    """Reference section 1.1: the factory path says "Only" with a capital O."""
    message = "Only Tensors of floating point and complex dtype can require gradients"
    for make in (lambda: tg.tensor([1, 2], requires_grad=True), lambda: tg.arange(3, requires_grad=True),
                 lambda: tg.zeros(3, dtype=tg.long, requires_grad=True)):
        with pytest.raises(RuntimeError) as info:
            make()
        assert str(info.value) == message


def test_linspace_reference_example():
    """Reference appendix B: the symmetric formula leaves -2.9802e-08 in the middle."""
    assert repr(tg.linspace(-1, 1, 7)) == (
        "tensor([-1.0000e+00, -6.6667e-01, -3.3333e-01, -2.9802e-08,  3.3333e-01,\n"
        "         6.6667e-01,  1.0000e+00])")
    assert repr(tg.linspace(-5, 5, 11)).startswith("tensor([-5., -4.,")


def test_arange_reference_example():
    """Reference appendix B: each element is start + i*step in double, rounded once."""
    values = tg.arange(0, 1, 0.1).tolist()
    assert len(values) == 10
    assert values[-1] == 0.8999999761581421


LINSPACE_ARGS = [(-1, 1, 7), (0, 1, 5), (-5, 5, 11), (-2, 2, 9), (0, 1, 11), (0, 6.283185307179586, 5),
                 (0.1, 0.7, 13), (3, -3, 7), (-10, 10, 101), (1e-3, 1.0, 17), (0, 1, 2), (-3.7, 2.2, 50),
                 (0, 3.141592653589793, 8)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64", "int64"])
@pytest.mark.parametrize("start, end, steps", LINSPACE_ARGS)
def test_linspace_bit_for_bit(torch_, start, end, steps, dtype):
    ours = tg.linspace(start, end, steps, dtype=getattr(tg, dtype))
    theirs = torch_.linspace(start, end, steps, dtype=getattr(torch_, dtype))
    if dtype == "bfloat16":
        ours, theirs = ours.float(), theirs.float()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert repr(ours) == repr(theirs)


def test_linspace_complex_and_bool(torch_):
    for args in [(1 + 2j, -3 - 1j, 9), (0.5j, 2.0, 6)]:
        ours = tg.linspace(*args, dtype=tg.complex64).numpy()
        np.testing.assert_array_equal(ours, torch_.linspace(*args, dtype=torch_.complex64).numpy())
    with pytest.raises(NotImplementedError, match="^\"linspace_cpu\" not implemented for 'Bool'$"):
        tg.linspace(0, 1, 3, dtype=tg.bool)


ARANGE_ARGS = [(0, 1, 0.1), (-1, 1, 0.3), (0.1, 1.3, 0.2), (0, 10, 3), (1, 2.5, 0.5), (5, 0, -0.7),
               (0, 2, 0.001), (-0.5, 0.5, 1 / 3), (1e-3, 0.1, 7e-3)]


@pytest.mark.parametrize("dtype", [None, "float64"])
@pytest.mark.parametrize("start, end, step", ARANGE_ARGS)
def test_arange_bit_for_bit(torch_, start, end, step, dtype):
    kw = {} if dtype is None else {"dtype": getattr(tg, dtype)}
    ours = tg.arange(start, end, step, **kw).numpy()
    kw = {} if dtype is None else {"dtype": getattr(torch_, dtype)}
    theirs = torch_.arange(start, end, step, **kw).numpy()
    np.testing.assert_array_equal(ours, theirs)
    assert ours.dtype == theirs.dtype


def test_both_size_forms_and_keyword():
    for f in (tg.zeros, tg.ones, tg.empty, tg.rand, tg.randn):
        assert f(3, 4).shape == f((3, 4)).shape == f([3, 4]).shape == f(size=(3, 4)).shape == (3, 4)
    assert tg.zeros(3).shape == (3,)
    assert tg.zeros(()).shape == ()
    assert repr(tg.zeros(2, 2)) == "tensor([[0., 0.],\n        [0., 0.]])"


def test_factory_keywords():
    t = tg.ones(2, 3, dtype=tg.float64, requires_grad=True)
    assert t.dtype is tg.float64 and t.requires_grad and t.is_leaf and t.grad_fn is None
    assert repr(t) == "tensor([[1., 1., 1.],\n        [1., 1., 1.]], dtype=torch.float64, requires_grad=True)"
    assert tg.full((2,), 3).dtype is tg.int64
    assert repr(tg.eye(2)) == "tensor([[1., 0.],\n        [0., 1.]])"
    like = tg.zeros_like(t)
    assert like.dtype is tg.float64 and not like.requires_grad and like.shape == (2, 3)


def test_from_numpy_keeps_dtype():
    a = np.array([1, 2], dtype=np.int32)
    t = tg.from_numpy(a)
    assert t.dtype is tg.int32
    assert t.tolist() == [1, 2]


def test_tensor_from_tensor_warns():
    src = tg.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        t = tg.tensor(src)
    assert not t.requires_grad and t.is_leaf


# --------------------------------------------------------------------------------------------
# random

@pytest.mark.parametrize("draw", [
    lambda: tg.rand(3, 4), lambda: tg.randn(5), lambda: tg.randint(0, 10, (6,)), lambda: tg.randperm(7),
    lambda: tg.normal(0., 1., (3,)), lambda: tg.normal(tg.zeros(3), tg.ones(3)), lambda: tg.rand_like(tg.ones(2)),
    lambda: tg.randn_like(tg.ones(2, dtype=tg.float64)),
])
def test_manual_seed_reproduces(draw):
    tg.manual_seed(1234)
    first = draw().tolist()
    second = draw().tolist()
    tg.manual_seed(1234)
    assert draw().tolist() == first
    assert draw().tolist() == second
    assert first != second
    tg.manual_seed(99)
    assert draw().tolist() != first


def test_manual_seed_sequence_reproduces():
    tg.manual_seed(0)
    a = (tg.rand(3).tolist(), tg.randn(2).tolist(), tg.randint(5, (4,)).tolist())
    tg.manual_seed(0)
    b = (tg.rand(3).tolist(), tg.randn(2).tolist(), tg.randint(5, (4,)).tolist())
    assert a == b
    assert tg.initial_seed() == 0


def test_random_distributions():
    tg.manual_seed(7)
    u = tg.rand(20000).numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.02
    n = tg.randn(20000).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    r = tg.randint(3, 8, (5000,)).numpy()
    assert r.min() == 3 and r.max() == 7
    m = tg.normal(10., 2., (20000,)).numpy()
    assert abs(m.mean() - 10) < 0.1 and abs(m.std() - 2) < 0.1
    p = tg.randperm(50).tolist()
    assert sorted(p) == list(range(50))
    assert tg.randn(3, dtype=tg.float64).dtype is tg.float64


# --------------------------------------------------------------------------------------------
# requires_grad, is_leaf, grad, grad_fn

ATTRIBUTE_CASES = cases("""
t = torch.tensor([1, 2])
t.requires_grad = True
---
t = torch.tensor([1, 2])
t.requires_grad_()
---
t = torch.tensor([True])
t.requires_grad_()
---
t = torch.tensor([1, 2]); t.requires_grad_(False)
---
torch.tensor([1 + 2j]).requires_grad_(), torch.tensor([1.], dtype=torch.float16).requires_grad_(), torch.tensor([1.], dtype=torch.bfloat16).requires_grad_()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2
y.requires_grad = False
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2
y.requires_grad = True
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2
y.requires_grad_(False)
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2
y.requires_grad_() is y, y
---
x = torch.tensor([1., 2.]); x.requires_grad_() is x, x.is_leaf, x.requires_grad, x
---
x = torch.tensor([1., 2.])
x.requires_grad = 1
---
x = torch.tensor([1., 2.])
x.requires_grad_(1)
---
x = torch.tensor([1., 2.], requires_grad=True); x.requires_grad = False; x, x.is_leaf
---
(torch.tensor([1., 2.]) * 2).is_leaf, torch.tensor([1., 2.], requires_grad=True).is_leaf, (torch.tensor([1., 2.]) * 2).requires_grad
---
x = torch.tensor([1., -2.], requires_grad=True); x[0].is_leaf, x.view(2).is_leaf, x.double().is_leaf, x.clone().is_leaf
---
x = torch.tensor([1., -2.], requires_grad=True); x.float() is x, x.contiguous() is x, x.float().grad_fn, x.to(torch.float32) is x
---
x = torch.tensor([1., -2.], requires_grad=True); x.long(), x.long().requires_grad, (x > 0).requires_grad, x.argmax().requires_grad
---
x = torch.tensor([1., -2.], requires_grad=True); x.round(), x.floor(), x.sign(), x.ceil(), x.trunc()
---
x = torch.tensor([1., -2.], requires_grad=True); d = x.detach(); d, d.requires_grad, d.is_leaf, d.grad_fn
---
x = torch.tensor([1., 2., 3.], requires_grad=True); x.grad, x.grad_fn, x.output_nr, (x * 2).output_nr
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2
y.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2; y.retain_grad(); y.grad, y.retains_grad, x.retains_grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2; y.retain_grad(); y.sum().backward(); y.grad, x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); x.retain_grad(); x.retains_grad
---
x = torch.tensor([1., 2., 3.]); x.retain_grad()
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = torch.tensor([1., 2., 3.])
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = torch.tensor([1., 2.], dtype=torch.float64)
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = torch.tensor([1, 2])
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = [1., 2.]
---
x = torch.tensor([1., 2.], requires_grad=True)
try: x.grad = torch.ones(3)
except RuntimeError: pass
x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = torch.tensor([10., 10.]); (x * 1).sum().backward(); x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = torch.tensor([10., 10.]); x.grad = None; x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); (x * x).sum().backward(); del x.grad; x.grad
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
y = a * 2
y.grad_fn, y.grad_fn.name(), type(y.grad_fn), type(y.grad_fn).__module__, y.grad_fn is y.grad_fn, y.grad_fn.metadata
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
acc = (a * 2).grad_fn.next_functions[0][0]
acc, acc.variable is a, acc.next_functions, acc.name(), type(acc).__name__, type(acc).__module__, str(type(acc))
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
y = a * 2
y.grad_fn.next_functions[0][0] is (a + 1).grad_fn.next_functions[0][0]
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
isinstance((a * 2).grad_fn, torch.autograd.graph.Node), isinstance((a * 2).grad_fn.next_functions[0][0], torch.autograd.graph.Node)
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = torch.tensor([4., 5., 6.], requires_grad=True); c = torch.tensor([7., 8., 9.])
(a * b).grad_fn.next_functions, (a * c).grad_fn.next_functions, (a * 2).grad_fn.next_functions, (a + 2).grad_fn.next_functions
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
(1 - a).grad_fn, (1 - a).grad_fn.next_functions, (a ** 2).grad_fn.next_functions, (torch.ones(3) + a).grad_fn.next_functions
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
(c := a * 2).grad_fn.next_functions, (2 * a).grad_fn.next_functions, (2 / a).grad_fn, (2 / a).grad_fn.next_functions
---
import math
a = torch.linspace(0, 2 * math.pi, 5, requires_grad=True); b = torch.sin(a); c = 2 * b; d = c + 1
d.grad_fn, d.grad_fn.next_functions, d.grad_fn.next_functions[0][0].next_functions
---
import math
a = torch.linspace(0, 2 * math.pi, 5, requires_grad=True); b = torch.sin(a); c = 2 * b; d = c + 1
sin = d.grad_fn.next_functions[0][0].next_functions[0][0]
sin.next_functions, sin.next_functions[0][0].next_functions, sin.next_functions[0][0].variable is a
---
import math
a = torch.linspace(0, 2 * math.pi, 5, requires_grad=True); b = torch.sin(a); c = 2 * b; d = c + 1
a, b, c, d
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone()
b.add_(1); r1 = b.grad_fn; b.mul_(2); r2 = b.grad_fn; b.exp_(); r3 = b.grad_fn; b += 1; r4 = b.grad_fn
r1, r2, r3, r4, b
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone()
b.sub_(1); r1 = b.grad_fn; b.div_(2); r2 = b.grad_fn; b.pow_(2); r3 = b.grad_fn; b.sigmoid_(); r4 = b.grad_fn; b.tanh_(); r5 = b.grad_fn
r1, r2, r3, r4, r5
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone()
b.clamp_(0, 2); r1 = b.grad_fn; b.zero_(); r2 = b.grad_fn; b.fill_(1.); r3 = b.grad_fn; b.copy_(a); r4 = b.grad_fn; b.relu_(); r5 = b.grad_fn
r1, r2, r3, r4, r5, r4.name()
---
a = torch.tensor([1., 2., 3.], requires_grad=True); w = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); b *= w
b.grad_fn, b.grad_fn.next_functions
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); b[0] = 5.; b.grad_fn, b.grad_fn.next_functions, b.grad_fn.name()
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); b[torch.tensor([0])] = 3.; b.grad_fn, b.grad_fn.next_functions
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); b[b > 1] = 0.; b.grad_fn, b.grad_fn.next_functions
---
x = torch.tensor([1., 2.], requires_grad=True); y = x * 2; y.sum().backward(); y.grad_fn.next_functions[0][0].variable is x, x.grad.requires_grad, x.grad.is_leaf, x.grad.grad_fn
---
x = torch.tensor([1., 2.], requires_grad=True); (x * 2).sum().backward(); x.grad.requires_grad_(), x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); x.requires_grad_(False); x.requires_grad_(True); (x * 2).grad_fn.next_functions
---
x = torch.tensor([1., 2.]); y = x * 2; x.requires_grad_(); y.requires_grad, (x * 2).requires_grad
---
x = torch.tensor([1., 2.], requires_grad=True); y = x[0]; y.requires_grad_(False)
---
x = torch.ones(2, requires_grad=True); torch.ones(2).requires_grad_(True) + x
---
x = torch.ones(2, 2, requires_grad=True); x.sum(1).grad_fn, x.sum((0, 1)).grad_fn, x.mean((0,)).grad_fn, x.amax().grad_fn, x.max(1)[0].grad_fn, x.max(1)[1].requires_grad
---
x = torch.ones(2, requires_grad=True); y = x.unbind(); [t.grad_fn for t in y], [t.output_nr for t in y], y[1].grad_fn is y[0].grad_fn
---
x = torch.ones(4, requires_grad=True); y = x.split(2); [t.output_nr for t in y], y[0].grad_fn.next_functions
---
with torch.inference_mode():
    t = torch.ones(2, requires_grad=True)
    y = t * 2
t, t.is_inference(), t.requires_grad, y, y.requires_grad
""")


@pytest.mark.parametrize("src", ATTRIBUTE_CASES, ids=ids(ATTRIBUTE_CASES))
def test_attributes_match_torch(torch_, src):
    same(torch_, src)


def test_requires_grad_error_texts():
    """Reference section 1.1: three code paths, three texts."""
    t = tg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype can require gradients$"):
        t.requires_grad = True
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        t.requires_grad_()
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        tg.tensor([True]).requires_grad_()
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        tg.tensor([1, 2], requires_grad=True)
    assert not t.requires_grad
    assert t.requires_grad_(False) is t


def test_requires_grad_only_on_leaves():
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError) as info:
        y.requires_grad = False
    assert str(info.value) == (
        "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in "
        "a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
    with pytest.raises(RuntimeError, match=r"^you can only change requires_grad flags of leaf variables\.$"):
        y.requires_grad = True
    with pytest.raises(RuntimeError, match="var_no_grad"):
        y.requires_grad_(False)
    assert y.requires_grad and y.grad_fn is not None
    assert y.requires_grad_() is y


def test_is_leaf_rules():
    x = tg.tensor([1., -2.], requires_grad=True)
    assert x.is_leaf and x.grad_fn is None
    assert (tg.tensor([1., 2.]) * 2).is_leaf
    assert not (x * 2).is_leaf
    assert not x[0].is_leaf and not x.clone().is_leaf
    assert type(x.double().grad_fn).__name__ == "ToCopyBackward0"
    assert x.float() is x
    with tg.no_grad():
        y = x * 2
    assert y.is_leaf and not y.requires_grad
    assert x.detach().is_leaf and not x.detach().requires_grad
    long = x.long()
    assert long.is_leaf and not long.requires_grad and long.grad_fn is None
    assert repr(x.round()) == "tensor([ 1., -2.], grad_fn=<RoundBackward0>)"


def test_grad_on_non_leaf_warns():
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match=r"^The \.grad attribute of a Tensor that is not a leaf Tensor is being "
                                         r"accessed\..*TensorBody\.h:493\.\)$"):
        assert y.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is None                 # a leaf without grad: no warning
        assert y.detach().grad is None        # detached: no warning
        y.retain_grad()
        assert y.grad is None                 # retained: no warning


def test_grad_assignment_checks_leave_grad_unchanged():
    x = tg.tensor([1., 2.], requires_grad=True)
    g = tg.tensor([5., 6.])
    x.grad = g
    assert x.grad is g
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient of size '\[3\]' to a tensor of size "
                                           r"'\[2\]'\. Please ensure"):
        x.grad = tg.ones(3)
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient with dtype 'double' to a tensor with "
                                           r"grad_dtype 'Float'\."):
        x.grad = tg.ones(2, dtype=tg.float64)
    with pytest.raises(RuntimeError, match=r"dtype 'long int'"):
        x.grad = tg.ones(2, dtype=tg.int64)
    with pytest.raises(TypeError, match="^assigned grad expected to be a Tensor or None but got grad of type list$"):
        x.grad = [1., 2.]
    assert x.grad is g and g.tolist() == [5., 6.]


def test_grad_fn_repr_and_names():
    a = tg.tensor([1., 2., 3.], requires_grad=True)
    y = a * 2
    fn = y.grad_fn
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(fn))
    assert str(fn) == repr(fn)
    assert type(fn).__name__ == "MulBackward0" and type(fn).__module__ == "builtins"
    assert str(type(fn)) == "<class 'MulBackward0'>"
    assert fn.name() == "MulBackward0"
    assert fn is y.grad_fn
    assert isinstance(fn, tg.autograd.graph.Node)
    acc, nr = fn.next_functions[0]
    assert nr == 0 and acc.variable is a and acc.next_functions == ()
    assert acc.name() == "torch::autograd::AccumulateGrad" and type(acc).__name__ == "AccumulateGrad"
    assert re.fullmatch(r"<AccumulateGrad object at 0x[0-9a-f]+>", repr(acc))
    assert fn.next_functions[1] == (None, 0)
    assert acc is (a + 1).grad_fn.next_functions[0][0]


def _structure(fn, depth=3):
    """A node as (class name, children) with (None, 0) slots kept and output numbers."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__, tuple((_structure(f, depth - 1), nr) for f, nr in fn.next_functions))


# Reference section 1.7 (a, b 1-D leaves; M, N 3x3 leaves; B a 2x3x3 leaf).
GRAD_FN_TABLE = [
    "a+b", "a+1", "1+a", "a-b", "a-1", "1-a", "a*b", "a*2", "2*a", "a/b", "a/2", "2/a", "a**2", "a.pow(2)",
    "a.square()", "a**0.5", "a**b", "2**a", "a.exp()", "a.log()", "a.sin()", "a.cos()", "a.tanh()",
    "a.sigmoid()", "a.sqrt()", "a.abs()", "a.neg()", "-a", "torch.relu(a)", "a.exp2()", "a.log1p()",
    "a.rsqrt()", "a.reciprocal()", "a.sum()", "a.sum(0)", "M.sum(dim=1)", "a.mean()", "M.mean(0)",
    "torch.dot(a,b)", "a@b", "M@N", "M.mm(N)", "torch.matmul(M,a)", "M.mv(a)", "torch.matmul(a, M)",
    "torch.bmm(B,B)", "M.view(9)", "M.reshape(9)", "M.flatten()", "a.view_as(a)", "M.transpose(0,1)", "M.t()",
    "M.T", "M.permute(1,0)", "a[0]", "M[0]", "M[0,1]", "a[1:]", "a.narrow(0,0,2)", "a[[0,2]]",
    "a[a>1]", "a[None]", "a.unsqueeze(0)", "a[...]", "a[None].squeeze(0)", "a[None].squeeze()", "a.clone()",
    "torch.cat([a,b])", "torch.stack([a,b])", "a.max()", "a.min()", "a.max(0).values", "torch.max(a,b)",
    "torch.maximum(a,b)", "a.norm()", "a.norm(p=1)", "a.expand(2,3)", "a.repeat(2)",
    "torch.where(a>1, a, b)", "torch.where(a>1, a, 0.)", "a.clamp(0,2)", "a.clamp(min=0)",
    "a.to(torch.float64)", "a.double()", "a.type_as(torch.ones(1, dtype=torch.float64))", "a.prod()",
    "a.cumsum(0)", "a.var()", "a.std()", "a.logsumexp(0)", "a.flip(0)", "a.sign()", "a.floor()", "a.round()",
    "a.split(1)[0]", "a.chunk(3)[0]", "a.unbind()[0]", "torch.addmm(M, M, N)", "sum([a,b])", "a.float()",
    "a.contiguous()", "a.argmax()", "M[:,0]", "a.masked_fill(a>1, 0.)", "torch.outer(a,b)", "B@M",
    "M.diagonal()", "M.select(1, 0)", "torch.movedim(M, 0, 1)", "a.index_select(0, torch.tensor([0, 2]))",
    "M.t().reshape(9)", "M.t().contiguous()", "B@torch.ones(3)", "M[:, :]", "a[:]", "M[0:3, 1:]",
]


def _table_env(module):
    return {
        "torch": module,
        "a": module.tensor([1., 2., 3.], requires_grad=True),
        "b": module.tensor([0.5, 0.25, 0.125], requires_grad=True),
        "M": module.arange(1., 10.).reshape(3, 3).requires_grad_(),
        "N": (module.arange(1., 10.).reshape(3, 3) * 0.1).requires_grad_(),
        "B": module.ones(2, 3, 3, requires_grad=True),
    }


@pytest.mark.parametrize("expr", GRAD_FN_TABLE)
def test_grad_fn_table_matches_torch(torch_, expr):
    """grad_fn class names, next_functions structure (three levels, (None, 0) slots), value repr."""
    def describe(module):
        value = eval(expr, _table_env(module))
        return (_structure(value.grad_fn), value.requires_grad, value.is_leaf, repr(value))
    assert describe(tg) == describe(torch_)


GRAD_FN_LITERAL = [
    ("a+b", ("AddBackward0", (("AccumulateGrad", 0), ("AccumulateGrad", 0)))),
    ("a+1", ("AddBackward0", (("AccumulateGrad", 0), (None, 0)))),
    ("1+a", ("AddBackward0", (("AccumulateGrad", 0), (None, 0)))),
    ("1-a", ("RsubBackward1", (("AccumulateGrad", 0),))),
    ("2*a", ("MulBackward0", (("AccumulateGrad", 0), (None, 0)))),
    ("2/a", ("MulBackward0", (("ReciprocalBackward0", 0), (None, 0)))),
    ("a**2", ("PowBackward0", (("AccumulateGrad", 0),))),
    ("a**b", ("PowBackward1", (("AccumulateGrad", 0), ("AccumulateGrad", 0)))),
    ("2**a", ("PowBackward2", (("AccumulateGrad", 0),))),
    ("a.sum(0)", ("SumBackward1", (("AccumulateGrad", 0),))),
    ("M.mean(0)", ("MeanBackward1", (("AccumulateGrad", 0),))),
    ("a.max()", ("MaxBackward1", (("AccumulateGrad", 0),))),
    ("a.max(0).values", ("MaxBackward0", (("AccumulateGrad", 0),))),
    ("M[0,1]", ("SelectBackward0", (("SelectBackward0", 0),))),
    ("torch.matmul(a, M)", ("SqueezeBackward4", (("MmBackward0", 0),))),
    ("torch.where(a>1, a, 0.)", ("WhereBackward0", (("AccumulateGrad", 0), (None, 0)))),
    ("a.double()", ("ToCopyBackward0", (("AccumulateGrad", 0),))),
    ("sum([a,b])", ("AddBackward0", (("AddBackward0", 0), ("AccumulateGrad", 0)))),
    ("a.norm()", ("LinalgVectorNormBackward0", (("AccumulateGrad", 0),))),
]


@pytest.mark.parametrize("expr, expected", GRAD_FN_LITERAL, ids=[e for e, _ in GRAD_FN_LITERAL])
def test_grad_fn_reference_table(expr, expected):
    value = eval(expr, _table_env(tg))
    assert _structure(value.grad_fn, depth=1) == expected


def test_no_grad_fn_for_ops_returning_self_or_integers():
    env = _table_env(tg)
    a = env["a"]
    assert a.float() is a and a.contiguous() is a
    assert a.argmax().grad_fn is None and not a.argmax().requires_grad
    assert (a > 1).grad_fn is None


# --------------------------------------------------------------------------------------------
# conversions and Python protocols

CONVERSION_CASES = cases("""
x = torch.tensor([1., 2.], requires_grad=True); x.item()
---
x = torch.tensor([1.5], requires_grad=True); x.item(), x.tolist(), int(x), bool(x)
---
x = torch.tensor([1.5], requires_grad=True); float(x)
---
torch.tensor(0.1).item(), torch.tensor(7).item(), torch.tensor(True).item(), torch.tensor([[1, 2], [3, 4]]).tolist(), torch.tensor(2.5).tolist()
---
type(torch.tensor(7).item()), type(torch.tensor(7.).item()), type(torch.tensor(True).item()), type(torch.tensor([1.]).tolist()[0])
---
torch.tensor(1 + 2j).item(), torch.tensor([2.5], dtype=torch.float16).item(), torch.tensor([[3]]).item()
---
torch.ones(2).item()
---
torch.ones(0).item()
---
float(torch.ones(2))
---
int(torch.ones(2))
---
bool(torch.ones(2))
---
bool(torch.zeros(0))
---
bool(torch.tensor([0.])), bool(torch.tensor(2)), bool(torch.tensor([[True]])), float(torch.tensor([[3]])), int(torch.tensor(-2.7))
---
complex(torch.tensor(2.)), float(torch.tensor(1, dtype=torch.int8))
---
x = torch.tensor([1., 2.], requires_grad=True); x.numpy()
---
x = torch.tensor([1., 2.], requires_grad=True); x.detach().numpy(), (x * 2).detach().numpy()
---
x = torch.tensor([1., 2.]); x.numpy(), type(x.numpy()), torch.tensor([1, 2]).numpy().dtype
---
len(torch.zeros(3, 2)), len(torch.zeros(0)), len(torch.zeros(2, 0))
---
len(torch.tensor(1.))
---
list(torch.tensor([1., 2.])), [r for r in torch.tensor([[1, 2], [3, 4]])], list(torch.zeros(0))
---
iter(torch.tensor(1.))
---
x = torch.tensor([1., 2.], requires_grad=True); list(x)
---
operator.index(torch.tensor(3)), operator.index(torch.tensor([3])), [10, 20, 30][torch.tensor(1)], list(range(5))[torch.tensor(1):torch.tensor(3)]
---
operator.index(torch.tensor(3.))
---
operator.index(torch.tensor([1, 2]))
---
operator.index(torch.tensor(True))
---
f"{torch.tensor(2.5):.2f}", f"{torch.tensor(3):d}", f"{torch.tensor([1., 2.])}", format(torch.tensor(1.5)), f"{torch.tensor(2.5)}", f"{torch.tensor(2.5, requires_grad=True):.3f}"
---
f"{torch.tensor([2.5]):.2f}"
---
f"{torch.tensor([1., 2.]):.2f}"
---
f"{torch.tensor([1., 2.]):>30}"
---
format(torch.tensor([1., 2.]), ""), "{}".format(torch.tensor([1, 2])), f"{torch.tensor(1.)!r}"
---
t = torch.ones(2); hash(t) == hash(t), {t: 1}[t], hash(t) == id(t), t in {t}
---
2. in torch.tensor([1., 2.]), 5 in torch.tensor([1, 2]), torch.tensor(1.) in torch.tensor([1., 2.])
---
x = torch.tensor([1., 2.], requires_grad=True); c = x.clone(); c, c.grad_fn.next_functions, c.is_leaf
---
x = torch.tensor([1., 2.]); c = x.clone(); c[0] = 5; x, c
---
x = torch.tensor([1., 2.]); d = x.detach(); d[0] = 5; x, x._version, d._version
---
x = torch.tensor([1., 2.], requires_grad=True); x.to(torch.float64), x.to(torch.float32) is x, x.to('cpu') is x, x.to(dtype=torch.int64)
---
x = torch.tensor([1., 2.], requires_grad=True); x.to(torch.zeros(1, dtype=torch.float16)), x.to(torch.float64).grad_fn.next_functions, x.to('cpu', torch.float64)
---
x = torch.tensor([1.5, -2.5]); x.float(), x.double(), x.long(), x.int(), x.bool(), x.half()
---
x = torch.tensor([1.5, -2.5]); x.type(), x.type(torch.int64), x.long().type(), x.type('torch.DoubleTensor'), torch.tensor([True]).type()
---
x = torch.tensor([1.5, -2.5], requires_grad=True); x.double(), x.half(), x.type(torch.float64), x.bfloat16()
---
torch.tensor([1, 2]).float().dtype, torch.tensor([0, 2]).bool(), torch.tensor([1, 2]).type(torch.FloatTensor)
---
torch.tensor([1., 2.]).type('torch.Foo')
---
x = torch.tensor([1., 2.], requires_grad=True); x.detach_()
---
x = torch.tensor([1., 2.], requires_grad=True); y = x * 2; y.detach_() is y, y, y.requires_grad, y.is_leaf, y.grad_fn
---
x = torch.tensor([1., 2.], requires_grad=True); y = x[0]; y.detach_()
---
x = torch.tensor([1., 2.], requires_grad=True); x.data, x.data.requires_grad, x.data.is_leaf
---
x = torch.tensor([1., 2.], requires_grad=True); x.data = torch.tensor([5., 6., 7.]); x
---
torch.tensor([1., 2.]).is_floating_point(), torch.tensor([1]).is_floating_point(), torch.tensor([1j]).is_complex(), torch.ones(2).element_size(), torch.ones(2).nelement()
---
torch.is_tensor(torch.ones(1)), torch.is_tensor([1]), torch.numel(torch.ones(2, 3)), torch.is_floating_point(torch.ones(1))
""")


@pytest.mark.parametrize("src", CONVERSION_CASES, ids=ids(CONVERSION_CASES))
def test_conversions_match_torch(torch_, src):
    same(torch_, src)


def test_item_tolist_numpy():
    assert tg.tensor(0.1).item() == 0.10000000149011612
    assert tg.tensor(7).item() == 7 and isinstance(tg.tensor(7).item(), int)
    assert tg.tensor([[1., 2.]]).tolist() == [[1.0, 2.0]]
    x = tg.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad\. Use "
                                           r"tensor\.detach\(\)\.numpy\(\) instead\.$"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1., 2.]
    with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
        float(tg.ones(2))
    with pytest.raises(RuntimeError, match="^a Tensor with 2 elements cannot be converted to Scalar$"):
        tg.ones(2).item()


def test_dunder_protocols():
    t = tg.tensor([1., 2., 3.])
    assert len(t) == 3
    assert [v.item() for v in t] == [1., 2., 3.]
    assert f"{tg.tensor(2.5):.2f}" == "2.50"
    assert int(tg.tensor(3.7)) == 3 and float(tg.tensor(2)) == 2.0
    assert [10, 20, 30][tg.tensor(2)] == 30
    assert hash(t) == id(t)
    with pytest.raises(TypeError, match="^len\\(\\) of a 0-d tensor$"):
        len(tg.tensor(1.))
    with pytest.raises(TypeError, match="^iteration over a 0-d tensor$"):
        iter(tg.tensor(1.))
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(t)
    assert bool(tg.tensor([0.5])) and not bool(tg.tensor(0))


def test_detach_and_clone_share_or_copy():
    x = tg.tensor([1., 2.], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.is_leaf
    with tg.no_grad():
        d[0] = 10.
    assert x.tolist() == [10., 2.] and x._version == d._version == 1
    c = x.clone()
    assert type(c.grad_fn).__name__ == "CloneBackward0"
    with tg.no_grad():
        c[1] = 5.
    assert x.tolist() == [10., 2.]


def test_float_scalar_conversion_of_grad_tensor_warns():
    x = tg.tensor([1.5], requires_grad=True)
    with pytest.warns(UserWarning, match="^Converting a tensor with requires_grad=True to a scalar may lead to "
                                         "unexpected behavior"):
        assert float(x) == 1.5


# --------------------------------------------------------------------------------------------
# printing with autograd suffixes (the number formatting is tests/test_printing.py's)

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
# bad inputs: PyTorch's exception type and message, and nothing changed

ERROR_CASES = cases("""
torch.ones(2) + torch.ones(3)
---
torch.ones(2, 3) * torch.ones(3, 2)
---
x = torch.ones(2, requires_grad=True)
try: x * torch.ones(3)
except RuntimeError as e: print(e)
x, x.grad, (x * torch.ones(1)).grad_fn
---
torch.ones(3, requires_grad=True) + torch.ones(2, 2)
---
torch.maximum(torch.ones(2), torch.ones(3)), torch.atan2(torch.ones(2), torch.ones(3))
---
torch.ones(2, 1, 3) - torch.ones(4, 3, 2)
---
torch.where(torch.tensor([True, False]), torch.ones(2), torch.ones(3))
---
a = torch.ones(2); a.add_(torch.ones(3))
---
a = torch.ones(2)
try: a.add_(torch.ones(3))
except RuntimeError: pass
a, a._version
---
a = torch.ones(1); a.add_(torch.ones(3))
---
a = torch.ones(2); a.add_(torch.ones(2, 2))
---
a = torch.ones(2, requires_grad=True); a.add_(1)
---
a = torch.ones(2, requires_grad=True)
try: a.mul_(2)
except RuntimeError: pass
a, a._version, a.grad_fn
---
a = torch.arange(3)
try: a.add_(1.5)
except RuntimeError: pass
a, a._version
---
torch.ones(2) + "a"
---
torch.ones(2) + None
---
torch.ones(2) * [1., 2.]
---
[1., 2.] + torch.ones(2)
---
None - torch.ones(2)
---
torch.ones(2) @ "a"
---
torch.ones(2).sum(2)
---
torch.ones(2).sum(-2)
---
torch.ones(2).view(3)
---
torch.ones(2, 3).view(-1, -1)
---
torch.ones(2)[2]
---
torch.ones(2)[0, 0]
---
torch.ones(2) @ torch.ones(3)
---
torch.ones(2).dot(torch.ones(3))
---
torch.ones(2, 3) @ torch.ones(2, 3)
---
torch.mm(torch.ones(2), torch.ones(2, 2))
---
torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))
---
torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.int64))
---
torch.ones(2, 2) @ torch.ones(2, dtype=torch.float64)
---
torch.bmm(torch.ones(1, 2, 2), torch.ones(1, 2, 2, dtype=torch.float64))
---
torch.ones(2, 2, 3) @ torch.ones(3, 2, dtype=torch.float64)
---
torch.ones(2, 2, 3) @ torch.ones(2, 2)
---
torch.ones(2, 2, 3) @ torch.ones(2)
---
torch.ones(2, 3, 4).t()
---
torch.cat([torch.ones(2), torch.ones(2, 2)])
---
torch.cat([torch.ones(2, 3), torch.ones(2, 2)])
---
torch.cat([])
---
torch.stack([torch.ones(2), torch.ones(3)])
---
torch.stack([])
---
torch.ones(2).expand(3)
---
torch.ones(2).transpose(0, 2)
---
torch.ones(2, 3).permute(0)
---
torch.ones(2).unsqueeze(3)
---
torch.ones(2).max(1)
---
torch.ones(0).max()
---
torch.ones(2).dot(torch.ones(2, 1))
---
torch.where(torch.ones(2), torch.ones(2), torch.ones(2))
---
torch.ones(2).clamp()
---
torch.ones(2).mean(dtype=torch.int64)
---
torch.ones(2).to("foo")
---
torch.ones(2).reshape(3, -1)
""")


@pytest.mark.parametrize("src", ERROR_CASES, ids=ids(ERROR_CASES))
def test_errors_match_torch(torch_, src):
    same(torch_, src)


def test_broadcast_error_leaves_operands_unchanged():
    a = tg.ones(2)
    b = tg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 0$"):
        a + b
    with pytest.raises(RuntimeError, match="must match the size"):
        a.add_(b)
    assert a.tolist() == [1., 1.] and a._version == 0 and a.grad_fn is None
    assert b.grad is None and b.is_leaf


def test_inplace_error_on_leaf_leaves_it_unchanged():
    a = tg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place "
                                           "operation.$"):
        a.add_(1)
    assert a.tolist() == [1., 1.] and a._version == 0 and a.is_leaf
    with tg.no_grad():
        a.add_(1)
    assert a.tolist() == [2., 2.] and a._version == 1 and a.is_leaf and a.requires_grad


def test_binary_ops_reject_non_numbers_with_python_message():
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for \+: 'Tensor' and 'str'$"):
        tg.ones(2) + "a"
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for -: 'Tensor' and 'list'$"):
        tg.ones(2) - [1., 2.]
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for \*\* or pow\(\): 'Tensor' and "
                                        r"'NoneType'$"):
        tg.ones(2) ** None


# --------------------------------------------------------------------------------------------
# default dtype and threads

def test_set_default_dtype_changes_inference():
    try:
        tg.set_default_dtype(tg.float64)
        assert tg.tensor([1.5]).dtype is tg.float64
        assert repr(tg.tensor([1.5])) == "tensor([1.5000])"
        assert tg.arange(2.).dtype is tg.float64 and (tg.arange(2) * 1.5).dtype is tg.float64
        assert tg.zeros(1).dtype is tg.float64
    finally:
        tg.set_default_dtype(tg.float32)
    assert tg.tensor([1.5]).dtype is tg.float32
    with pytest.raises(TypeError):
        tg.set_default_dtype(tg.int64)


def test_tensors_work_across_threads():
    x = tg.tensor([1., 2.], requires_grad=True)
    results = []

    def work():
        results.append(((x * x).sum(), tg.is_grad_enabled()))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    y, enabled = results[0]
    assert enabled
    y.backward()
    assert x.grad.tolist() == [2., 4.]
