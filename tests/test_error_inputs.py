"""Bad inputs found by PyTorch's OpInfo ``error_inputs`` and the ``out=`` dtype probe: each
snippet runs under tensorgrad and under PyTorch, and the exception (type and message) or the
result must be the same (``same`` in snippets.py).

- ``out=`` of another dtype: most elementwise ops cast into it, the ops in
  ``_api/out_rules.py`` refuse it, each with its own message; ``out=`` sharing memory with an
  input, or showing an element twice, is refused;
- two Python numbers where an op needs a Tensor on one side (``torch.pow(2, 3)``), Tensor
  operators called unbound on a non-Tensor;
- ``arange`` with an integer dtype and float bounds (PyTorch truncates), an infinite bound;
  ``linspace``/``logspace`` with a float ``steps``;
- the argument checks of pools, ``prelu``, ``narrow``, ``roll``, the directional splits, the
  stacking functions and ``movedim``.
"""

import pytest

from snippets import cases, ids, same


@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


OUT_CASES = cases("""
torch.abs(torch.ones(3), out=torch.empty(3, dtype=torch.float64))
---
torch.abs(torch.tensor([1, -2]), out=torch.empty(2))
---
torch.sin(torch.ones(3), out=torch.empty(3, dtype=torch.float64))
---
torch.add(torch.ones(3), 1, out=torch.empty(3, dtype=torch.float64))
---
torch.gather(torch.ones(2, 2), 1, torch.tensor([[0, 1], [1, 0]]), out=torch.empty(2, 2, dtype=torch.float64))
---
torch.mm(torch.ones(2, 2), torch.ones(2, 2), out=torch.empty(2, 2, dtype=torch.bfloat16))
---
torch.matmul(torch.ones(2, 2), torch.ones(2, 2), out=torch.empty(2, 2, dtype=torch.float64))
---
torch.max(torch.ones(2, 3), 1, out=(torch.empty(2, dtype=torch.float64), torch.empty(2, dtype=torch.long)))
---
torch.max(torch.ones(3), torch.zeros(3), out=torch.empty(3, dtype=torch.float64))
---
torch.sort(torch.ones(3), out=(torch.empty(3), torch.empty(3)))
---
torch.argmax(torch.ones(3), out=torch.empty((), dtype=torch.float32))
---
torch.all(torch.ones(3), out=torch.empty((), dtype=torch.long))
---
torch.multinomial(torch.ones(1, 2, dtype=torch.float64), 2, out=torch.empty(1, 2, dtype=torch.float64))
---
torch.complex(torch.ones(2), torch.ones(2), out=torch.empty(2, dtype=torch.complex128))
---
torch.arange(3, dtype=torch.float32, out=torch.empty(3, dtype=torch.float64))
---
torch.arange(3, out=torch.empty(3, dtype=torch.float64))
---
torch.linalg.det(torch.eye(2), out=torch.empty((), dtype=torch.float64))
---
torch.take(torch.ones(3), torch.tensor([0, 1]), out=torch.empty(2, dtype=torch.float64))
---
torch.norm(torch.ones(3), dim=0, out=torch.empty((), dtype=torch.float64))
---
torch.round(torch.ones(3), decimals=2, out=torch.empty(3, dtype=torch.float64))
---
x = torch.arange(6.)
torch.gather(x, 0, torch.tensor([0, 1, 2]), out=x[:3])
---
x = torch.arange(6.)
torch.index_select(x, 0, torch.tensor([0, 1]), out=x[2:4])
---
a = torch.ones(4, 6)
torch.cat((a[:2], a[2:]), out=a)
---
a = torch.ones(4, 6)
torch.stack((a[0], a[1]), out=a[2:]), a
---
torch.cat([torch.ones(2, 2), torch.ones(2, 2)], out=torch.empty(1, 2).expand(4, 2))
---
x = torch.ones(3)
torch.exp(x, out=x), x
""")

NUMBER_CASES = cases("""
torch.pow(2, 3)
---
torch.float_power(2, 3)
---
torch.remainder(2, 3)
---
torch.xlogy(2, 3)
---
torch.add(2, 3)
---
torch.pow(2, torch.tensor([1., 2.]))
---
torch.Tensor.__radd__(2, torch.tensor([1]))
---
torch.Tensor.__rmul__(2, 3)
---
torch.Tensor.__rsub__(2, 3)
---
torch.Tensor.__rdiv__(2, 3)
---
torch.Tensor.__rpow__(2, 3)
""")

RANGE_CASES = cases("""
torch.arange(0, float("inf"), 2)
---
torch.arange(float("-inf"), 1, 2)
---
torch.arange(0.5, float("nan"))
---
torch.arange(0, 64, 0.5, dtype=torch.int64)
---
torch.arange(0, 5, 0.5, dtype=torch.int32)
---
torch.arange(0.7, 5.2, 1.5, dtype=torch.int64)
---
torch.arange(0, 5, 1.5, dtype=torch.int32)
---
torch.arange(-2.5, 10, 3, dtype=torch.int64)
---
torch.arange(0, 5, 0.5, dtype=torch.uint8)
---
torch.arange(0.7, 0.1, 0.9, dtype=torch.int64)
---
torch.linspace(0, 3, 1.0)
---
torch.logspace(0, 3, 1.0)
---
torch.linspace(0, 3, 2.0, dtype=torch.float64)
---
torch.linspace(0, 3, torch.tensor(4))
""")

CHECK_CASES = cases("""
torch.nn.functional.adaptive_avg_pool2d(torch.ones(2, 2), (2, 2))
---
torch.nn.functional.adaptive_avg_pool2d(torch.ones(2, 2), 2)
---
torch.nn.functional.adaptive_max_pool3d(torch.ones(2, 2, 2), (2, 2, 2))
---
torch.nn.functional.avg_pool3d(torch.ones(0, 1, 49), kernel_size=2, stride=50)
---
torch.nn.functional.avg_pool3d(torch.ones(2, 0, 3, 3), 2)
---
torch.nn.functional.avg_pool2d(torch.ones(0, 49), kernel_size=2, stride=50)
---
torch.nn.functional.prelu(torch.ones(2, 8, 3), torch.ones(2, 4))
---
torch.narrow(torch.ones(4, 3), 0, torch.tensor([1, 2]), 2)
---
torch.narrow(torch.ones(4, 3), 0, torch.tensor(True), 2)
---
torch.narrow(torch.ones(4, 3), 0, torch.tensor(1.), 2)
---
torch.narrow(torch.ones(4, 3), 0, torch.tensor(1), 2)
---
torch.roll(torch.tensor(1.), 0, 0)
---
torch.roll(torch.tensor(1.), 1, -1)
---
torch.roll(torch.tensor(1.), 1)
---
torch.hsplit(torch.ones(5, 5, 5), "abc")
---
torch.dsplit(torch.ones(5, 5, 5), 2.5)
---
torch.hstack(())
---
torch.vstack([])
---
torch.row_stack([])
---
torch.column_stack(())
---
torch.dstack(())
---
torch.cat(torch.ones(2, 3))
---
torch.stack(x for x in [torch.ones(2)])
---
torch.cat([torch.ones(2), 3])
---
torch.hstack([torch.ones(2), 3])
---
torch.movedim(torch.ones(2, 3, 4, 5, 6), (3, -3), (1, 0, -1))
---
torch.movedim(torch.ones(2, 3, 4, 5, 6), (3, -3, 4), (1, 0))
---
torch.movedim(torch.ones(2, 3, 4, 5, 6), (1, 0, 2), (0, 4, -5))
---
torch.movedim(torch.ones(2, 3, 4, 5, 6), (1, 0, -4), (0, 4, -5))
---
torch.movedim(torch.ones(2, 3, 4), (0, -1), (-1, 0)).shape
""")


@pytest.mark.parametrize("src", OUT_CASES + NUMBER_CASES + RANGE_CASES + CHECK_CASES,
                         ids=ids(OUT_CASES + NUMBER_CASES + RANGE_CASES + CHECK_CASES))
def test_error_inputs_match_torch(torch_, src):
    same(torch_, src)
