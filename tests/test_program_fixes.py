"""Regression programs for what real PyTorch programs hit first (issue 12's lists): calls that
raised where PyTorch works, and inputs accepted where PyTorch refuses them.

Each program runs under ``import torch`` and ``import tensorgrad as torch`` in the fuzzer's
interpreter (``tests/fuzz/interpret.py``), which compares every line's values, dtypes, graph
attributes and exception types and messages.
"""

import textwrap

import pytest

import tensorgrad

from fuzz import interpret
from oracle import _oracle, torch  # noqa: F401 - _oracle skips these tests where PyTorch is absent

PROGRAMS = {
    # raised where PyTorch works
    "where_as_a_method": """
        t0 = torch.arange(6.).reshape(2, 3)
        t1 = t0.where(t0 > 2, torch.zeros(()))
        t2 = t0.where(t0 > 2, 2.0)
    """,
    "to_with_positional_flags": """
        t0 = torch.ones(2, 3)
        t1 = t0.to('cpu', torch.float64, True, True)
        t2 = t0.to(torch.float32, False, True)
        t3 = t0.to('cpu', copy=True)
        t2.add_(1)
        t4 = t0.to(t1, False, True)
        t5 = t0.to('cpu', True)
    """,
    "to_with_too_many_arguments": """
        t0 = torch.ones(2)
        t1 = t0.to(torch.float64, True, True, 5)
    """,
    "zero_dim_nonzero_and_argwhere": """
        t0 = torch.tensor(3.)
        t1 = torch.nonzero(t0)
        t2 = torch.argwhere(torch.tensor(0))
        t3 = torch.nonzero(t0, as_tuple=True)
        t4 = torch.nonzero(torch.tensor(0.))
    """,
    "zero_dim_transpose_is_a_view": """
        t0 = torch.tensor(3., requires_grad=True)
        t1 = torch.transpose(t0, 0, -1)
        t2 = t1 * 2
        t2.backward()
        t3 = torch.tensor(2.)
        t4 = t3.transpose(0, 0)
        t4.mul_(5)
        t5 = torch.transpose(t0, 0, 1)
    """,
    "zero_dim_squeeze_of_a_list": """
        t0 = torch.tensor(3., requires_grad=True)
        t1 = torch.squeeze(t0, [0])
        t2 = torch.squeeze(t0, (0, -1))
    """,
    "inner_with_zero_dim_and_batches": """
        t0 = torch.tensor(3., requires_grad=True)
        t1 = torch.inner(t0, t0)
        t2 = torch.arange(6.).reshape(2, 3).requires_grad_()
        t3 = torch.inner(t2, torch.ones(3))
        t4 = torch.inner(torch.ones(3, requires_grad=True), torch.ones(3))
        t5 = torch.inner(t2, t2)
        t5.sum().backward()
        t6 = torch.inner(t2, torch.ones(4))
    """,
    "tensor_split_by_a_tensor": """
        t0 = torch.arange(5)
        t1 = torch.tensor_split(t0, torch.tensor(2))
        t2 = torch.tensor_split(t0, torch.tensor([1, 3]))
        t3 = torch.tensor_split(t0, torch.tensor(2.0))
    """,
    "det_of_empty_matrices_backward": """
        t0 = torch.zeros(0, 0, requires_grad=True)
        t1 = torch.linalg.det(t0)
        t1.backward()
        t2 = torch.zeros(2, 0, 0, requires_grad=True)
        t3 = torch.linalg.det(t2)
        t3.sum().backward()
    """,
    "atleast_of_a_list": """
        t0 = torch.tensor(3.)
        t1 = torch.atleast_1d([t0, torch.ones(2)])
        t2 = torch.atleast_2d((t0, torch.ones(2)))
        t3 = torch.atleast_1d(t0, torch.tensor(2.))
        t4 = torch.atleast_2d(t0)
    """,
    "nuclear_norm": """
        t0 = torch.arange(6.).reshape(2, 3).requires_grad_()
        t1 = torch.norm(t0, p='nuc')
        t1.backward()
        t2 = torch.norm(torch.ones(2, 2, 2), p='nuc', dim=(1, 2))
        t3 = torch.norm(torch.ones(2, 2, 2), p='nuc')
    """,
    "nuclear_norm_of_a_vector": """
        t0 = torch.norm(torch.ones(3), p='nuc')
    """,
    "take_along_dim_counts_negatives_from_the_end": """
        t0 = torch.arange(6.).reshape(2, 3).requires_grad_()
        t1 = torch.take_along_dim(t0, torch.tensor([[-1], [0]]), 1)
        t1.sum().backward()
        t2 = torch.take_along_dim(t0, torch.tensor([-1, 0]))
    """,
    "tensordot_broadcasts_size_one_dims": """
        t0 = torch.ones(1, 3, requires_grad=True)
        t1 = torch.tensordot(t0, torch.ones(2, 3), dims=([0], [0]))
        t1.sum().backward()
        t2 = torch.tensordot(torch.ones(2, 3), torch.ones(1, 3), dims=([0], [0]))
        t3 = torch.tensordot(torch.ones(3, 3), torch.ones(2, 3), dims=([0], [0]))
    """,
    "scatter_and_gather_with_a_zero_dim_index": """
        t0 = torch.zeros(10)
        t1 = t0.scatter_(0, torch.tensor(3), value=1)
        t2 = torch.arange(5., requires_grad=True)
        t3 = t2.gather(0, torch.tensor(2))
        t3.backward()
        t4 = torch.tensor(2., requires_grad=True)
        t5 = torch.zeros(5, requires_grad=True)
        t6 = t5.scatter(0, torch.tensor(1), t4)
        t7 = t5.scatter_add(0, torch.tensor(4), t4)
        t8 = (t6 * t7).sum()
        t8.backward()
        t9 = torch.zeros(5).scatter_reduce(0, torch.tensor(3), torch.tensor([7., 8.]), 'amax')
        t10 = torch.zeros(2, 3).scatter_(0, torch.tensor(1), value=1)
    """,
    "torch_level_inplace_functions": """
        t0 = torch.tensor([0.5, -1.0, 2.0])
        t1 = torch.sin_(t0)
        t2 = torch.clamp_(t0, max=0.5)
        t3 = torch.relu_(t0)
        t4 = torch.zero_(t0)
        t5 = torch.fill_(t0, 3)
        t6 = torch.sin_(torch.tensor([1, 2]))
    """,
    # accepted where PyTorch refuses
    "narrow_checks_the_length_first": """
        t0 = torch.arange(6.).reshape(2, 3)
        t1 = torch.narrow(t0, 0, 3, -1)
    """,
    "narrow_of_zero_dim": """
        t0 = torch.narrow(torch.tensor(1.), 0, 0, 1)
    """,
    "masked_fill_int8_overflow": """
        t0 = torch.zeros(2, dtype=torch.int8)
        t1 = t0.masked_fill(torch.tensor([True, False]), 1000)
    """,
    "fill_uint8_wraps_small_negatives": """
        t0 = torch.zeros(2, dtype=torch.uint8)
        t0.fill_(-1)
        t1 = t0.masked_fill(torch.tensor([True, False]), -255)
        t2 = t0.index_fill(0, torch.tensor([0]), 255)
        t3 = torch.full((2,), -256, dtype=torch.uint8)
    """,
    "fill_float_overflow": """
        t0 = torch.zeros(2, dtype=torch.float16)
        t0.fill_(float('inf'))
        t1 = torch.full((2,), 65520.0, dtype=torch.float16)
        t2 = torch.full((2,), 1e40)
    """,
    "fill_nan_into_int": """
        t0 = torch.zeros(2, dtype=torch.int32)
        t0.fill_(float('nan'))
    """,
    "isclose_negative_tolerances": """
        t0 = torch.ones(2)
        t1 = torch.isclose(t0, t0, rtol=-1.0)
    """,
    "isclose_negative_atol": """
        t0 = torch.ones(2)
        t1 = torch.isclose(t0, t0, atol=-0.5)
    """,
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_matches_torch(name):
    lines = textwrap.dedent(PROGRAMS[name]).strip().splitlines()
    for values_each_line in (True, False):
        finding = interpret.check(tensorgrad, torch, lines, values_each_line)
        assert finding is None, "tensorgrad and PyTorch differ:\n" + interpret.report(lines, finding)
