"""Every row of the op table through every check (see tests/op_table.py and tests/op_checks.py).

Values, gradients, grad_fn names and error types are compared with PyTorch where it is
installed; gradients are compared with float64 finite differences always.
"""

import pytest

from tensorgrad._ops.registry import OPS as REGISTRY

import op_checks as C
from op_table import KINKS, OPS, PENDING

CASES = C.cases(OPS)


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


# the ops the cases apply, for the last test (which runs the table itself when some were left out)
REACH = C.Reach()


# one test per case, a row's checks one after another (values, gradients against PyTorch and
# finite differences, grad_fn names, errors): its compiled kernels are still cached for the next
@pytest.mark.parametrize("check, row, payload", C.params(CASES))
def test_row_matches_torch(check, row, payload):
    torch = None if check == "grad_fd" else pytest.importorskip("torch")
    with REACH:
        try:
            C.run_case(check, row, payload, torch)
        finally:
            REACH.ran += 1


@pytest.mark.parametrize("kink", KINKS, ids=[k.name for k in KINKS])
def test_gradient_at_kink(kink):
    C.check_kink(kink)


@pytest.mark.parametrize("kink", KINKS, ids=[k.name for k in KINKS])
def test_gradient_at_kink_matches_torch(kink, torch):
    C.check_kink_vs_torch(kink, torch)


def test_table_reaches_every_registered_op():
    reached = REACH.seen if REACH.ran == len(CASES) else C.reached_ops(OPS)
    missing = set(REGISTRY) - reached
    assert missing == PENDING, (
        f"registered ops that no row of tests/op_table.py reaches (add rows): {sorted(missing - PENDING)}; "
        f"listed in PENDING but reached or gone (remove them): {sorted(PENDING - missing)}")
