"""The factorizations of ``_api/linalg_factor.py`` beyond the op table: PyTorch's named-tuple
results and field names, LAPACK's 1-based int32 pivots, ``info`` and ``check_errors`` per batch
element, errors with PyTorch's messages, and solves that agree with their factorizations."""

import warnings

import numpy as np
import pytest

import tensorgrad as tg
from oracle import raises_alike, torch, _oracle  # noqa: F401


def _pair(fn, *arrays):
    """``fn`` on tensorgrad and on PyTorch with the same float64 inputs."""
    ours = fn(tg, *[tg.tensor(a) for a in arrays])
    theirs = fn(torch, *[torch.tensor(a) for a in arrays])
    return ours, theirs


def _same(ours, theirs):
    assert type(ours).__name__ == type(theirs).__name__
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(np.asarray(ours.numpy()), theirs.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name, fields", [
    ("lu_factor", ("LU", "pivots")), ("lu_factor_ex", ("LU", "pivots", "info")), ("lu", ("P", "L", "U")),
    ("inv_ex", ("inverse", "info")), ("cholesky_ex", ("L", "info")),
])
def test_named_tuples_match_pytorch(name, fields):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 3))
    a = x @ x.swapaxes(-1, -2) + np.eye(3)
    ours, theirs = _pair(lambda m, t: getattr(m.linalg, name)(t), a)
    assert type(ours).__name__ == type(theirs).__name__ == f"linalg_{name}"
    assert ours._fields == fields
    for f in fields:
        _same(getattr(ours, f), getattr(theirs, f))
    assert repr(ours).startswith(f"torch.return_types.linalg_{name}(")


def test_pivots_are_lapack_one_based_int32_and_unpack_reconstructs():
    a = np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 9.0]])
    ours, theirs = _pair(lambda m, t: m.linalg.lu_factor(t), a)
    assert ours.pivots.dtype == tg.int32
    assert ours.pivots.tolist() == theirs.pivots.tolist() == [3, 3, 3]
    P, L, U = tg.lu_unpack(*ours)
    np.testing.assert_allclose((P @ L @ U).numpy(), a, atol=1e-12)


def test_info_and_check_errors_name_the_batch_element():
    a = np.stack([np.eye(3), np.ones((3, 3)), np.eye(3)])
    ours, theirs = _pair(lambda m, t: m.linalg.lu_factor_ex(t).info, a)
    assert ours.tolist() == theirs.tolist() == [0, 2, 0]
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): U\[2,2\] is zero"):
        tg.linalg.lu_factor(tg.tensor(a))
    with pytest.raises(tg.linalg.LinAlgError, match=r"\(Batch element 1\): The diagonal element 2 is zero"):
        tg.linalg.inv_ex(tg.tensor(a), check_errors=True)
    with pytest.raises(tg.linalg.LinAlgError, match=r"\(Batch element 1\): The solver failed"):
        tg.linalg.solve_ex(tg.tensor(a), tg.ones(3, dtype=tg.float64), check_errors=True)
    not_pd = tg.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])
    assert tg.linalg.cholesky_ex(not_pd).info.tolist() == [0, 2]
    with pytest.raises(tg.linalg.LinAlgError, match="leading minor of order 2"):
        tg.linalg.cholesky_ex(not_pd, check_errors=True)


def test_info_is_computed_inside_a_compiled_step():
    step = tg.compile(lambda a: tg.linalg.lu_factor_ex(a).info + tg.linalg.cholesky_ex(a).info)
    a = tg.stack([tg.eye(2), tg.zeros(2, 2)])
    assert step(a).tolist() == [0, 2]


def test_ldl_matches_lapack_and_solves():
    n = 4
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, n))
    a = x + x.T
    a[0, 0] = 1e-3  # forces a 2x2 pivot block
    ours, theirs = _pair(lambda m, t: m.linalg.ldl_factor(t), a)
    assert type(ours).__name__ == "linalg_ldl_factor" and ours._fields == ("LD", "pivots")
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=1e-10, atol=1e-12)
    b = rng.standard_normal((n, 2))
    x_ = tg.linalg.ldl_solve(ours.LD, ours.pivots, tg.tensor(b))
    np.testing.assert_allclose(a @ x_.numpy(), b, atol=1e-9)


def test_errors_match_pytorch():
    cases = [
        lambda m: m.linalg.lu_factor(m.ones(3, 3, dtype=m.int64)),
        lambda m: m.linalg.lu(m.ones(3, 3), pivot=False),
        lambda m: m.linalg.lu_solve(m.eye(3), m.tensor([4, 1, 1], dtype=m.int32), m.ones(3, 2)),
        lambda m: m.lu_unpack(m.eye(3), m.ones(3)),
        lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(2, dtype=m.float64)),
        lambda m: m.ormqr(m.ones(3, 2), m.ones(2), m.ones(4, 3)),
        lambda m: m.geqrf(m.ones(3)),
        lambda m: m.linalg.cond(m.ones(2, 3), "fro"),
        lambda m: m.linalg.tensorinv(m.ones(4, 2, 2), ind=0),
        lambda m: m.linalg.ldl_solve(m.eye(3), m.tensor([0, 1, 1], dtype=m.int32), m.ones(3, 2)),
    ]
    for case in cases:
        raises_alike(case)


def test_deprecated_spellings_warn_and_return_pytorch_structure():
    a = np.eye(3) * 2.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = tg.lu(tg.tensor(a), get_infos=True)
        method = tg.tensor(a).lu(get_infos=True)
        solution = tg.triangular_solve(tg.ones(3, 1, dtype=tg.float64), tg.tensor(a))
    assert type(result).__name__ == "_lu_with_info" and type(method) is tuple
    assert solution._fields == ("solution", "cloned_coefficient")
    assert [str(w.message).split(" is deprecated")[0] for w in caught] == [
        "torch.lu", "torch.lu", "torch.triangular_solve"]


def test_derivatives_pytorch_does_not_define_raise():
    a = tg.eye(3, dtype=tg.float64).requires_grad_()
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented"):
        tg.geqrf(a).a.sum().backward()
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
        tg.linalg.ldl_factor(a).LD.sum().backward()
    assert tg.linalg.ldl_factor(a).LD.grad_fn.name() == "NotImplemented"
