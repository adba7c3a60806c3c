"""Factories: ``tensor``, ``as_tensor``, ``from_numpy``, ``zeros``/``ones``/``full``/``empty``,
``*_like``, ``eye``, ``arange``, ``linspace`` and the legacy tensor classes
(``tensorgrad/_api/creation.py``).

Most cases are differential: the same snippet runs with ``torch`` bound to tensorgrad and to
real PyTorch, and the repr of its last expression (or the exception type and message, and any
warnings) must be equal (``run`` and ``same`` are in snippets.py).
"""

import numpy as np
import pytest

import tensorgrad as tg
from snippets import cases, ids, same


@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


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
torch.tensor([2 ** 63])
---
torch.tensor([[1], [2 ** 64]])
---
torch.tensor(2 ** 63 - 1), torch.tensor([-2 ** 63]), torch.tensor([2 ** 64], dtype=torch.float32), torch.tensor([2 ** 64], dtype=torch.bool)
---
torch.tensor([2 ** 64], dtype=torch.int32)
---
torch.tensor([300], dtype=torch.uint8)
---
torch.tensor(300, dtype=torch.uint8)
---
torch.tensor([2 ** 31], dtype=torch.int32)
---
torch.tensor([[1, 2], [3, -129]], dtype=torch.int8)
---
torch.tensor([-1, -255, 7], dtype=torch.uint8), torch.tensor([[-1, 2.5]], dtype=torch.uint8), torch.tensor([True, 2], dtype=torch.int8)
---
torch.tensor([-256], dtype=torch.uint8)
---
torch.tensor([np.int64(300)], dtype=torch.uint8)
---
torch.tensor([-1.5], dtype=torch.uint8)
---
torch.tensor([255.9], dtype=torch.uint8)
---
torch.tensor([1e20], dtype=torch.int32)
---
torch.tensor([float("nan")], dtype=torch.int32)
---
torch.tensor([float("inf")], dtype=torch.int64)
---
torch.tensor([1 + 2j], dtype=torch.int32)
---
torch.tensor([torch.tensor(3), 200], dtype=torch.int8)
---
torch.tensor(list(range(5))), torch.tensor([0.5] * 3), torch.tensor([True, False]), torch.tensor([1, 2], dtype=torch.float64)
---
torch.tensor([np.float64(1e300), 1]), torch.tensor([np.int8(3), np.int16(2)]), torch.tensor([np.float16(1), 2]), torch.tensor([[np.int32(2)], [True]])
---
torch.tensor([np.uint8(3), np.int8(-1)]), torch.tensor([np.int8(3), 1.5]), torch.tensor([torch.tensor(2, dtype=torch.int8), np.int16(3)])
---
torch.tensor(np.uint8(200), dtype=torch.int8)
---
torch.tensor(np.float64(1e300), dtype=torch.int32)
---
torch.full((2,), 3j, dtype=torch.bool), torch.zeros(2, dtype=torch.bool).fill_(2j), torch.full((1,), 2.5 + 0j, dtype=torch.int32), torch.zeros(1).fill_(2 + 0j)
---
torch.full((2,), 1 + 1j, dtype=torch.float32)
---
torch.zeros(2, dtype=torch.int8).fill_(3j)
---
torch.full((1,), 1e39j, dtype=torch.complex64)
---
torch.zeros(1, dtype=torch.complex64).fill_(1e39), torch.full((1,), 1e39j, dtype=torch.complex128)
---
m = torch.tensor([True, False]); torch.zeros(2, dtype=torch.bool).masked_fill(m, 3j), torch.zeros(2).masked_fill(m, 1 + 0j)
---
torch.zeros(2, dtype=torch.float16).masked_fill(torch.tensor([True, False]), 1 + 1j)
---
torch.zeros(2).index_fill(0, torch.tensor([1]), 1 + 0j)
---
torch.zeros(2, dtype=torch.bool).index_fill(0, torch.tensor([1]), torch.tensor(2j))
---
t = torch.zeros(3, dtype=torch.uint8); t[0] = -1; t[1] = -255; t[torch.tensor([False, False, True])] = -3; t
---
t = torch.zeros(3, dtype=torch.float16); t[0] = 65520.0; t[1] = -2 ** 40; t[2] = 1e39; u = torch.zeros(2, dtype=torch.bfloat16); u[0] = 1e39; t, u
---
t = torch.zeros(2); t[0] = 1e39
---
t = torch.zeros(2, dtype=torch.int32); t[0] = float("nan")
---
t = torch.zeros(2); t[0] = 2 ** 63
---
t = torch.zeros(2, dtype=torch.bool); t[0] = 3j; u = torch.zeros(2); u[1] = 2 + 0j; t, u
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
