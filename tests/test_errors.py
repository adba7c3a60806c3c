"""Bad inputs: PyTorch's exception type and message, and nothing changed (broadcasting,
in-place writes, operand types, dims, views, matmul, cat/stack, ...).

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
