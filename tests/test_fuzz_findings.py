"""Regression tests for the differences the program fuzzer found (tests/test_fuzz_programs.py).

Each finding is the fuzzer's shrunk program, as source that runs under ``import torch`` and
``import tensorgrad as torch``; the test runs it in both and compares everything the fuzzer
compares (values after every line, dtypes, ``requires_grad``, ``is_leaf``, ``grad_fn``,
``_version``, ``.grad``, exception types, warnings), with values read after every line and only
after the last. A finding that is still open is a strict
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
    """, None),
    "int_remainder_by_zero_scalar": ("""
        t0 = torch.tensor([2, 1, 0])
        t1 = torch.remainder(t0, 0)
    """, None),
    "mask_setitem_value_dtype": ("""
        t0 = torch.zeros(3)
        t0[t0 >= 0] = torch.tensor(1)
    """, None),
    "empty_reduction_error_type": ("""
        t0 = torch.zeros(0, 3)
        t1 = t0.amax(dim=0)
    """, None),
    "empty_argmax_dim_error_type": ("""
        t0 = torch.zeros(0, 3)
        t1 = t0.argmax(dim=0)
    """, None),
    "grad_unreached_output_retain_grad": ("""
        t0 = torch.tensor([2.0, 1.0], requires_grad=True)
        t1 = t0 * 2
        t2 = t0 * 3
        t1.retain_grad()
        t3, = torch.autograd.grad(t1, [t2], torch.tensor([1.0, 1.0]), allow_unused=True)
    """, None),
    "sign_of_nan": ("""
        t0 = torch.tensor([float('nan'), 1.0, -2.0, 0.0])
        t1 = torch.sign(t0)
    """, None),
    "backward_adds_in_place_into_create_graph_grad": ("""
        t0 = torch.tensor([[2.0], [0.0]], dtype=torch.float32, requires_grad=True)
        t1 = t0.log_softmax(dim=1)
        t1.sum().backward(retain_graph=True, create_graph=True)
        t0.backward(torch.tensor([[-1.0], [-0.5]], dtype=torch.float32), retain_graph=True)
    """, None),
    "inplace_with_itself_as_a_saved_argument": ("""
        t0 = torch.tensor([[1.5, -0.5], [0.25, 2.0]], dtype=torch.float64, requires_grad=True)
        t1 = t0 * 1
        t1.addcmul_(t1, t1, value=0.5)
        t1.sum().backward()
    """, None),
    "prod_dim_of_0d": ("""
        t0 = torch.tensor(2.0, requires_grad=True)
        t1 = t0.prod(dim=0)
    """, None),
    "number_as_first_operand_fmod": ("""
        t0 = torch.fmod(2, torch.tensor([1.5]))
    """, None),
    "number_as_first_operand_atan2": ("""
        t0 = torch.atan2(2, torch.tensor([1.5]))
    """, None),
    "ldexp_bool_exponent": ("""
        t0 = torch.ldexp(torch.tensor([0.5]), torch.tensor([True]))
    """, None),
    "empty_median_warning": ("""
        t0 = torch.zeros(0, dtype=torch.int64)
        t1 = t0.median()
    """, None),
    "missing_saved_output_check": ("""
        t0 = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
        t1 = t0.max()
        t1.mul_(2)
        t1.backward()
    """, None),
    "ldexp_saved_output_check": ("""
        t0 = torch.tensor([1.0, 2.0], requires_grad=True)
        t1 = torch.ldexp(t0, t0)
        t1.mul_(2)
        t1.sum().backward()
    """, None),
    "add_number_input_alpha": ("""
        t0 = torch.tensor([1.0, 2.0])
        t1 = torch.add(2, t0, alpha=3)
    """, None),
    "setitem_error_precedence": ("""
        t0 = torch.tensor([1.0, 2.0], requires_grad=True)
        t0[torch.tensor([5])] = 0.5
    """, None),
    "diff_n0_prepend": ("""
        t0 = torch.tensor([5.0, 3.0])
        t1 = torch.diff(t0, n=0, prepend=torch.tensor([1.0]))
    """, None),
    "i0_gradient_at_zero": ("""
        t0 = torch.tensor([0.0, 1.0], requires_grad=True)
        t1 = torch.i0(t0)
        t1.sum().backward()
    """, None),
    "quantile_q_gradient": ("""
        t0 = torch.tensor([1.0, 3.0, 2.0, 5.0], requires_grad=True)
        t1 = torch.tensor([0.3, 0.6], requires_grad=True)
        t2 = torch.quantile(t0, t1)
        t2.sum().backward()
    """, None),
    "unfold_empty_batch": ("""
        t0 = torch.zeros((0, 3, 4, 4))
        t1 = torch.nn.functional.unfold(t0, 2)
    """, None),
    "adaptive_avg_pool1d_empty_batch": ("""
        t0 = torch.zeros((0, 3, 4))
        t1 = torch.nn.functional.adaptive_avg_pool1d(t0, 2)
    """, None),
    "grad_duplicate_inputs_alias": ("""
        t0 = torch.tensor([1.0, 2.0], requires_grad=True)
        t1 = t0 * 2
        t2, t3 = torch.autograd.grad(t1, [t0, t0], torch.tensor([1.0, 1.0]))
        t3 *= 0.5
    """, None),
    "grad_frees_unexecuted_graph": ("""
        t0 = torch.tensor(1.5, requires_grad=True)
        t1 = t0.exp()
        t2, = torch.autograd.grad(t1, [t1], torch.tensor(1.0))
        t1.backward()
    """, None),
    "inplace_dtype_cast_grad_fn": ("""
        t0 = torch.tensor([1.0, 2.0])
        t1 = torch.tensor([1.0, 0.5], dtype=torch.float64, requires_grad=True)
        t0.add_(t1)
    """, None),
    "empty_create_graph_requires_grad": ("""
        t0 = torch.zeros((0, 3), requires_grad=True)
        t1 = t0.var()
        t1.backward(create_graph=True)
    """, "autograd (create_graph): the .grad of an empty tensor requires grad; PyTorch's does not"),
    "error_check_order": ("""
        t0 = torch.tensor([[1.5, 2.0, 0.5], [1.0, 1.0, 1.0]])
        t1 = torch.tensor([[True, False], [True, True]])
        t2 = torch.bitwise_xor(t0, t1)
    """, None),
    "empty_bool_median": ("""
        t0 = torch.zeros((0, 3), dtype=torch.bool)
        t1 = t0.median()
    """, None),
    "backward_inputs_nonleaf_keeps_collecting": ("""
        t0 = torch.tensor([1.0, 2.0], requires_grad=True)
        t1 = t0 * 2
        t1.sum().backward(inputs=[t1])
        t2 = t1 * 3
        t3, = torch.autograd.grad(t1, [t2], torch.tensor([1.0, 1.0]), allow_unused=True)
    """, None),
    "bool_true_division": ("""
        t0 = torch.tensor([False, True], dtype=torch.bool)
        t1 = torch.div(t0, False)
    """, None),
    "double_backward_grad_fn": ("""
        t0 = torch.tensor([1.0, 2.0], requires_grad=True)
        t1 = t0.exp()
        t2, = torch.autograd.grad(t1, [t0], torch.tensor([1.0, 1.0]), create_graph=True)
    """, "autograd (create_graph): the gradient's grad_fn is ExpBackward0Backward (one recorded VJP node); "
         "PyTorch's is MulBackward0, the last op of exp's derivative formula (printing t2 shows it)"),
}

# findings of the OpInfo sweep (tests/test_fuzz_opinfo.py): name -> the OpInfo's label
FROM_OPINFO = {"diff_n0_prepend": "diff", "i0_gradient_at_zero": "i0", "quantile_q_gradient": "quantile",
               "unfold_empty_batch": "nn.functional.unfold",
               "adaptive_avg_pool1d_empty_batch": "nn.functional.adaptive_avg_pool1d"}


def _cases():
    for name, (program, reason) in FINDINGS.items():
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(name, textwrap.dedent(program).strip().splitlines(), id=name, marks=marks)


@pytest.mark.parametrize("name, lines", list(_cases()))
def test_finding_matches_torch(name, lines):
    # values read after every line, and only after the last (reading values can change what happens)
    for values_each_line in (True, False):
        finding = interpret.check(tensorgrad, torch, lines, values_each_line)
        assert finding is None, "tensorgrad and PyTorch differ:\n" + interpret.report(lines, finding)


def test_findings_are_known_to_the_fuzzer():
    """Every open finding has a KNOWN (or known.OPINFO) entry, so the CI profiles tolerate it."""
    for name, (program, reason) in FINDINGS.items():
        if reason is None:
            continue
        if name in FROM_OPINFO:
            assert FROM_OPINFO[name] in known.OPINFO, name
            continue
        lines = textwrap.dedent(program).strip().splitlines()
        for values_each_line in (True, False):
            finding = interpret.check(tensorgrad, torch, lines, values_each_line)
            if finding is not None:
                assert known.tolerated(finding, "\n".join(lines)) is not None, f"{name}: {finding.describe()}"
