"""The UserWarnings PyTorch gives for deprecated calling forms (meshgrid without ``indexing``,
cross without ``dim``, chain_matmul, scatter's ``reduce`` with a tensor source): tensorgrad
gives the same text, and no warning for the current forms.

These stay hand-written rather than op-table rows: PyTorch warns once per process for some of
them, so a row run several times would see the warning only the first time.
"""

import warnings

import numpy as np
import pytest

import tensorgrad as tg


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


WARNING_CASES = {
    "meshgrid_without_indexing": lambda m: m.meshgrid(m.ones(2), m.ones(3)),
    "cross_without_dim": lambda m: m.cross(m.ones(2, 3), m.ones(2, 3)),
    "chain_matmul": lambda m: m.chain_matmul(m.ones(2, 2), m.ones(2, 2)),
    "scatter_reduce_with_tensor": lambda m: m.ones(2).scatter(0, m.tensor([0]), m.ones(1), reduce="add"),
}


@pytest.mark.parametrize("name", sorted(WARNING_CASES))
def test_deprecation_warnings_match_torch(name, torch):
    with pytest.warns(UserWarning) as ours:
        a = WARNING_CASES[name](tg)
    with pytest.warns(UserWarning) as theirs:
        b = WARNING_CASES[name](torch)
    assert str(ours[0].message).split(" (Triggered")[0] == str(theirs[0].message).split(" (Triggered")[0]
    a, b = (a, b) if isinstance(a, tuple) else ((a,), (b,))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_meshgrid_with_indexing_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, y = tg.meshgrid(tg.arange(3), tg.arange(2), indexing="xy")
    assert tuple(x.shape) == (2, 3) and tuple(y.shape) == (2, 3)
