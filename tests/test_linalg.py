"""``tensorgrad.linalg`` beyond the op table: its errors are ``LinAlgError``, a RuntimeError as
in PyTorch, and its values equal NumPy's without PyTorch installed. Values, gradients and error
types against PyTorch are the op table's rows (``tests/op_table.py``).
"""

import numpy as np
import pytest

import tensorgrad as tg
from oracle import raises_alike


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def test_linalg_errors_are_linalg_error_and_runtime_error(torch):
    with pytest.raises(tg.linalg.LinAlgError):
        tg.linalg.inv(tg.ones(2, 2))
    with pytest.raises(RuntimeError):
        tg.linalg.cholesky(-tg.eye(2))
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.cholesky(-torch.eye(2))
    assert issubclass(tg.linalg.LinAlgError, RuntimeError)


def test_linalg_matches_numpy_without_torch():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    spd = a @ a.T + np.eye(3)
    t = tg.tensor(spd)
    np.testing.assert_allclose(tg.linalg.inv(t).numpy(), np.linalg.inv(spd), rtol=1e-10)
    np.testing.assert_allclose(tg.linalg.det(t).item(), np.linalg.det(spd), rtol=1e-10)
    np.testing.assert_allclose(tg.linalg.cholesky(t).numpy(), np.linalg.cholesky(spd), rtol=1e-10)
    np.testing.assert_allclose(tg.linalg.eigvalsh(t).numpy(), np.linalg.eigvalsh(spd), rtol=1e-10)
    np.testing.assert_allclose(tg.linalg.matrix_power(t, 3).numpy(), np.linalg.matrix_power(spd, 3), rtol=1e-10)
    np.testing.assert_allclose(tg.einsum("ij,jk->ik", t, t).numpy(), spd @ spd, rtol=1e-12)
    np.testing.assert_allclose(tg.kron(t, t[:2, :2]).numpy(), np.kron(spd, spd[:2, :2]), rtol=1e-12)


def test_vecdot_and_multi_dot_without_torch():
    x = tg.tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(tg.linalg.vecdot(x, x).numpy(), [5.0, 25.0])
    np.testing.assert_allclose(tg.linalg.multi_dot([x, x, x]).numpy(), np.linalg.matrix_power(x.numpy(), 3))


HALF_REFUSED = ["linalg.inv", "inverse", "linalg.inv_ex", "linalg.det", "det", "logdet", "linalg.slogdet", "linalg.eigh",
                "linalg.eigvalsh", "linalg.eig", "linalg.eigvals", "linalg.cholesky", "linalg.cholesky_ex", "linalg.solve",
                "linalg.solve_ex", "linalg.pinv", "linalg.lstsq", "linalg.ldl_factor", "linalg.householder_product",
                "cholesky_inverse", "linalg.qr", "linalg.svd", "linalg.lu_factor"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", HALF_REFUSED)
def test_half_precision_linalg_raises_as_pytorch(torch, name, dtype):
    def call(lib):
        x = lib.tensor([[2.5, -0.5], [0.5, 3.0]]).to(getattr(lib, dtype))
        fn = lib
        for part in name.split("."):
            fn = getattr(fn, part)
        two = name.endswith(("solve", "solve_ex", "lstsq"))
        return fn(x, x) if two else fn(x, x[0]) if name.endswith("householder_product") else fn(x)
    raises_alike(call)


def test_half_precision_matrix_exp_computes_in_float32():
    x = tg.tensor([[0.5, -0.25], [0.125, 0.3]])
    for dtype in (tg.float16, tg.bfloat16):
        out = tg.linalg.matrix_exp(x.to(dtype))
        assert out.dtype is dtype
        np.testing.assert_allclose(out.float().numpy(), tg.linalg.matrix_exp(x).to(dtype).float().numpy())
