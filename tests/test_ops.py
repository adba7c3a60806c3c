"""Every row of the op table through every check (see tests/op_table.py and tests/op_checks.py).

Values, gradients, grad_fn names and error types are compared with PyTorch where it is
installed; gradients are compared with float64 finite differences always.
"""

import pytest

from tensorgrad._ops.registry import OPS as REGISTRY

import op_checks as C
from op_table import KINKS, OPS, PENDING

CASES = C.cases(OPS)


def params(check):
    return C.params(CASES, check)


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("row, payload", params("values"))
def test_values_match_torch(row, payload, torch):
    C.run_case("values", row, payload, torch)


@pytest.mark.parametrize("row, payload", params("grad_torch"))
def test_gradients_match_torch(row, payload, torch):
    C.run_case("grad_torch", row, payload, torch)


@pytest.mark.parametrize("row, payload", params("grad_fd"))
def test_gradients_match_finite_differences(row, payload):
    C.run_case("grad_fd", row, payload, None)


@pytest.mark.parametrize("row, payload", params("grad_fn"))
def test_grad_fn_names_match_torch(row, payload, torch):
    C.run_case("grad_fn", row, payload, torch)


@pytest.mark.parametrize("row, payload", params("errors"))
def test_rejected_inputs_raise_torch_error_type(row, payload, torch):
    C.run_case("errors", row, payload, torch)


@pytest.mark.parametrize("kink", KINKS, ids=[k.name for k in KINKS])
def test_gradient_at_kink(kink):
    C.check_kink(kink)


@pytest.mark.parametrize("kink", KINKS, ids=[k.name for k in KINKS])
def test_gradient_at_kink_matches_torch(kink, torch):
    C.check_kink_vs_torch(kink, torch)


def test_table_reaches_every_registered_op():
    missing = set(REGISTRY) - C.reached_ops(OPS)
    assert missing == PENDING, (
        f"registered ops that no row of tests/op_table.py reaches (add rows): {sorted(missing - PENDING)}; "
        f"listed in PENDING but reached or gone (remove them): {sorted(PENDING - missing)}")
