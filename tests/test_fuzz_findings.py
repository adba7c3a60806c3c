"""Regression tests for the differences the program fuzzer found (tests/test_fuzz_programs.py).

Each finding is the fuzzer's shrunk program, as source that runs under ``import torch`` and
``import tensorgrad as torch``; the test runs it in both and compares everything the fuzzer
compares (values after every line, dtypes, ``requires_grad``, ``is_leaf``, ``grad_fn``,
``_version``, ``.grad``, exception types, warnings). A finding that is still open is a strict
xfail, so its fix is noticed: then delete its ``open=`` reason here and its entry in
``tests/fuzz/known.py``.
"""

import textwrap

import pytest

import tensorgrad

from fuzz import interpret, known
from oracle import _oracle, torch  # noqa: F401 - _oracle skips these tests where PyTorch is absent

# name: (program, why it is open: where the fix belongs, or None once fixed)
FINDINGS = {
    "int_division_by_zero": ("""
        t0 = torch.tensor([2, 1, 0])
        t1 = t0 // t0
    """, "ops (grads): integer //, %, div(rounding_mode=), fmod, remainder by zero return values; PyTorch "
         "raises RuntimeError: ZeroDivisionError"),
    "int_remainder_by_zero_scalar": ("""
        t0 = torch.tensor([2, 1, 0])
        t1 = torch.remainder(t0, 0)
    """, "ops (grads): an integer remainder by the number 0 returns values; PyTorch raises RuntimeError"),
    "mask_setitem_value_dtype": ("""
        t0 = torch.zeros(3)
        t0[t0 >= 0] = torch.tensor(1)
    """, "views (_api/subscript.py): x[mask] = a 0-d int64 tensor raises 'Index put requires the source and "
         "destination dtypes match'; PyTorch casts the value"),
    "empty_reduction_error_type": ("""
        t0 = torch.zeros(0, 3)
        t1 = t0.amax(dim=0)
    """, "ops (grads): amax/amin/max/min/argmax/argmin over an empty dim raise ValueError (from NumPy); PyTorch "
         "raises IndexError: Expected reduction dim 0 to have non-zero size"),
    "empty_argmax_dim_error_type": ("""
        t0 = torch.zeros(0, 3)
        t1 = t0.argmax(dim=0)
    """, "ops (grads): as above, for argmax"),
    "grad_unreached_output_retain_grad": ("""
        t0 = torch.tensor([2.0, 1.0], requires_grad=True)
        t1 = t0 * 2
        t2 = t0 * 3
        t1.retain_grad()
        t3, = torch.autograd.grad(t1, [t2], torch.tensor([1.0, 1.0]), allow_unused=True)
    """, "autograd engine: when no input is reached, autograd.grad returns without running the pass, so the "
         "output's retain_grad never fires; PyTorch fills t1.grad with the grad_outputs"),
    "sign_of_nan": ("""
        t0 = torch.tensor([float('nan'), 1.0, -2.0, 0.0])
        t1 = torch.sign(t0)
    """, "ops (grads): torch.sign(nan) is 0 in PyTorch; tensorgrad returns nan"),
    "prod_dim_of_0d": ("""
        t0 = torch.tensor(2.0, requires_grad=True)
        t1 = t0.prod(dim=0)
    """, "ops (grads): prod(dim=0) of a 0-d tensor raises ValueError: axis 0 is out of bounds; PyTorch accepts "
         "dims 0 and -1 of a 0-d tensor (as sum does)"),
    "number_as_first_operand_fmod": ("""
        t0 = torch.fmod(2, torch.tensor([1.5]))
    """, "ops (grads): a Python number as fmod's input is accepted; PyTorch raises TypeError"),
    "number_as_first_operand_atan2": ("""
        t0 = torch.atan2(2, torch.tensor([1.5]))
    """, "ops (grads): a Python number as atan2's input is accepted; PyTorch raises TypeError"),
    "ldexp_bool_exponent": ("""
        t0 = torch.ldexp(torch.tensor([0.5]), torch.tensor([True]))
    """, "ops (grads): ldexp with a bool exponent is accepted; PyTorch raises NotImplementedError"),
    "empty_median_warning": ("""
        t0 = torch.zeros(0, dtype=torch.int64)
        t1 = t0.median()
    """, "ops (grads): median of an empty int64 tensor leaks NumPy's RuntimeWarning; PyTorch is silent"),
}


def _cases():
    for name, (program, reason) in FINDINGS.items():
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(name, textwrap.dedent(program).strip().splitlines(), id=name, marks=marks)


@pytest.mark.parametrize("name, lines", _cases())
def test_finding_matches_torch(name, lines):
    finding = interpret.check(tensorgrad, torch, lines, values_each_line=True)
    assert finding is None, "tensorgrad and PyTorch differ:\n" + interpret.report(lines, finding)


def test_findings_are_known_to_the_fuzzer():
    """Every open finding has a KNOWN entry, so the CI profile tolerates it."""
    for name, (program, reason) in FINDINGS.items():
        if reason is None:
            continue
        lines = textwrap.dedent(program).strip().splitlines()
        finding = interpret.check(tensorgrad, torch, lines, values_each_line=True)
        if finding is not None:
            assert known.tolerated(finding, "\n".join(lines)) is not None, f"{name}: {finding.describe()}"
