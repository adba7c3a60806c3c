"""``torch.device`` and the device of tensors (``tensorgrad/_device.py``).

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
# device

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
