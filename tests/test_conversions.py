"""Conversions and Python protocols: ``item``, ``tolist``, ``numpy``, ``float``/``int``/``bool``,
``len``, iteration, ``__index__``, ``format``, hashing, ``to``/``type``/``double``/...,
``detach``, ``clone`` and ``data``.

Most cases are differential: the same snippet runs with ``torch`` bound to tensorgrad and to
real PyTorch, and the repr of its last expression (or the exception type and message, and any
warnings) must be equal (``run`` and ``same`` are in snippets.py).
"""

import pytest

import tensorgrad as tg
from snippets import cases, ids, same


@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


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
