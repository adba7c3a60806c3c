"""dtypes: their reprs and aliases, the dtype a factory infers, and the default dtype
(``tensorgrad/_dtype.py``).

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
x = torch.tensor([[3, 0], [1, 2]], dtype=torch.uint8); x.any(), x.all(1), x.any(0, keepdim=True), torch.all(x, dim=(0, 1)), x.bool().any()
---
x = torch.tensor([[3, 0], [1, 2]], dtype=torch.uint8); o, p = torch.empty(2, dtype=torch.bool), torch.empty(2, dtype=torch.uint8); torch.any(x, 0, out=o), torch.all(x.bool(), 1, out=p), torch.any(x.float(), 0, out=p)
---
torch.any(torch.ones(2), 0, out=torch.empty(2))
---
torch.all(torch.ones(2, dtype=torch.uint8), 0, out=torch.empty(2, dtype=torch.int64))
---
~torch.ones(2)
---
~torch.tensor([1 + 1j])
---
~torch.tensor([5, 0]), ~torch.tensor([True, False]), ~torch.tensor([3], dtype=torch.uint8)
---
torch.tensor([1 + 1j, 2]).nansum()
---
x = torch.ones(2); y = torch.tensor([1., 2.]); torch.add(x, y, alpha=torch.tensor(2.)), x.sub(y, alpha=torch.tensor(3)), x.clone().add_(y, alpha=torch.tensor(0.5))
---
torch.add(torch.ones(2), torch.ones(2), alpha=torch.tensor([2., 3.]))
---
torch.sub(torch.ones(2), torch.ones(2), alpha=torch.tensor([2.]))
---
torch.tensor([True]).pow(True), torch.tensor([True, False]).pow(False), torch.tensor([True, False]).clone().pow_(True), torch.tensor([2, 3]).pow(True)
---
torch.tensor([1, 2]) < 2j
---
torch.tensor([1., 2.]).ge(1j)
---
torch.add(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64), alpha=torch.tensor(2.5))
---
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
# default dtype

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
