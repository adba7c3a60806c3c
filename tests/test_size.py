"""``torch.Size``: a tuple that prints as PyTorch's, and ``size()``/``dim()``/``numel()``.

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
# Size

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
