"""Type promotion of operators and ops, and the errors of casts it forbids (reference
section 8.2; ``promote_types``/``result_type`` in ``tensorgrad/_dtype.py``).

Most cases are differential: the same snippet runs with ``torch`` bound to tensorgrad and to
real PyTorch, and the repr of its last expression (or the exception type and message, and any
warnings) must be equal (``run`` and ``same`` are in snippets.py). Cases whose expected text the reference records are also
checked literally, so they run without PyTorch.
"""

import pytest

import tensorgrad as tg
from snippets import cases, ids, run, same


@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


# --------------------------------------------------------------------------------------------
# promotion (reference section 8.2)

PROMOTION_LITERAL = [
    ("torch.arange(4) * 2.5", "tensor([0.0000, 2.5000, 5.0000, 7.5000])"),
    ("torch.arange(4) * 2", "tensor([0, 2, 4, 6])"),
    ("torch.arange(4) / 2", "tensor([0.0000, 0.5000, 1.0000, 1.5000])"),
    ("torch.arange(4) / torch.arange(1, 5)", "tensor([0.0000, 0.5000, 0.6667, 0.7500])"),
    ("torch.arange(4) // 2", "tensor([0, 0, 1, 1])"),
    ("torch.arange(4) ** 2", "tensor([0, 1, 4, 9])"),
    ("torch.arange(4) ** 0.5", "tensor([0.0000, 1.0000, 1.4142, 1.7321])"),
    ("(torch.arange(3) + True).dtype", "torch.int64"),
    ("(torch.tensor([True]) + torch.tensor([True])).dtype", "torch.bool"),
    ("(torch.tensor([True]) + 1).dtype", "torch.int64"),
    ("(torch.tensor([True]) * 1.5).dtype", "torch.float32"),
    ("(torch.arange(3) + torch.ones(3)).dtype", "torch.float32"),
    ("(torch.arange(3, dtype=torch.int32) + torch.arange(3)).dtype", "torch.int64"),
    ("(torch.ones(2) + torch.ones(2, dtype=torch.float64)).dtype", "torch.float64"),
    ("(torch.ones(2) + torch.tensor(1., dtype=torch.float64)).dtype", "torch.float32"),
    ("(torch.arange(2) + torch.tensor(1., dtype=torch.float64)).dtype", "torch.float64"),
    ("(torch.ones(2, dtype=torch.float16) + torch.tensor(1.)).dtype", "torch.float16"),
    ("(torch.ones(2, dtype=torch.float16) + 1.5).dtype", "torch.float16"),
    ("(torch.ones(2, dtype=torch.int32) + 1).dtype", "torch.int32"),
    ("(torch.ones(2, dtype=torch.int32) + 1.5).dtype", "torch.float32"),
    ("(torch.ones(2, dtype=torch.uint8) + 1).dtype", "torch.uint8"),
    ("(torch.ones(2, dtype=torch.uint8) + torch.ones(2, dtype=torch.int8)).dtype", "torch.int16"),
    ("torch.arange(4, dtype=torch.uint8) + 300", "tensor([44, 45, 46, 47], dtype=torch.uint8)"),
    ("(torch.tensor(1) + torch.ones(2)).dtype", "torch.float32"),
    ("(torch.ones(2) * 1j).dtype", "torch.complex64"),
    ("(torch.ones(2) + np.float64(1.)).dtype", "torch.float32"),
    ("(torch.ones(2) > 1).dtype", "torch.bool"),
    ("torch.sqrt(torch.arange(4))", "tensor([0.0000, 1.0000, 1.4142, 1.7321])"),
    ("torch.tensor([True, True, False]).sum()", "tensor(2)"),
    ("torch.arange(3, dtype=torch.int32).sum().dtype", "torch.int64"),
    ("torch.arange(3).argmax().dtype", "torch.int64"),
    ("torch.result_type(torch.arange(4), 2.5)", "torch.float32"),
    ("torch.promote_types(torch.int32, torch.float16)", "torch.float16"),
]


@pytest.mark.parametrize("src, expected", PROMOTION_LITERAL, ids=[s for s, _ in PROMOTION_LITERAL])
def test_promotion_reference_table(src, expected):
    assert run(tg, src) == ("ok", expected, ())


PROMOTION_ERRORS = [
    ("torch.arange(4) ** -1", "RuntimeError", "Integers to negative integer powers are not allowed."),
    ("torch.arange(3).mean()", "RuntimeError",
     "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
     "Got: Long"),
    ("torch.arange(4).add_(1.5)", "RuntimeError", "result type Float can't be cast to the desired output type Long"),
    ("a = torch.arange(4)\na += torch.ones(4)", "RuntimeError",
     "result type Float can't be cast to the desired output type Long"),
    ("torch.ones(2) @ torch.ones(2, dtype=torch.float64)", "RuntimeError",
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    ("torch.arange(2) @ torch.ones(2)", "RuntimeError",
     "dot : expected both vectors to have same dtype, but found Long and Float"),
]


@pytest.mark.parametrize("src, kind, message", PROMOTION_ERRORS, ids=[s for s, _, _ in PROMOTION_ERRORS])
def test_promotion_errors(src, kind, message):
    assert run(tg, src) == ("error", kind, message, ())


PROMOTION_CASES = cases("""
torch.tensor([1, 2, 3]) / torch.tensor([2, 2, 2]), torch.tensor(3) / torch.tensor(2), 7 / torch.tensor(2)
---
torch.tensor(3) // torch.tensor(2), 7 // torch.tensor(2), torch.tensor([-7, 7]) // 2, torch.tensor([-7., 7.]) // 2
---
2 ** torch.arange(3), 2.5 ** torch.arange(3), torch.arange(3) ** torch.arange(3), torch.arange(3) ** 1.5
---
torch.arange(4) ** torch.tensor(-1)
---
torch.arange(4).pow(-2)
---
torch.tensor([-3, 3]) % 2, torch.tensor([-3., 3.]) % 2, 5 % torch.tensor([3, -3])
---
torch.tensor([True, False]) + torch.tensor([True, True]), torch.tensor([True, False]) * torch.tensor([True, True])
---
torch.tensor([True, False]) / torch.tensor([True, True]), torch.tensor([True]) + 2.5, torch.tensor([1.5]) + True
---
torch.tensor([True, False]) - torch.tensor([True, True])
---
torch.tensor([True]) - 1
---
1 - torch.tensor([True])
---
-torch.tensor([True])
---
torch.tensor([1, 2]) == torch.tensor([1., 3.]), torch.tensor([1, 2]) < 1.5
---
(torch.tensor(1, dtype=torch.int32) + torch.tensor(1)).dtype, (torch.tensor(1., dtype=torch.float16) + torch.tensor(1.)).dtype
---
(torch.tensor([1], dtype=torch.int32) + torch.tensor(1)).dtype, (torch.tensor([1], dtype=torch.int8) + torch.tensor(1000)).dtype
---
torch.tensor(1) + torch.tensor(1.5, dtype=torch.float64)
---
(torch.ones(2, dtype=torch.float16) + torch.ones(2, dtype=torch.bfloat16)).dtype, (torch.ones(1, dtype=torch.complex64) + torch.ones(1, dtype=torch.float64)).dtype
---
a = torch.ones(2); a.add_(torch.ones(2, dtype=torch.float64)); a
---
a = torch.ones(2); a += torch.ones(2, dtype=torch.float64); a
---
a = torch.arange(3); a.mul_(torch.ones(3))
---
a = torch.arange(3); a /= 2
---
a = torch.arange(5); a //= 2; a
---
torch.tensor([3]) & 1, torch.tensor([True]) & torch.tensor([False]), ~torch.tensor([True, False]), ~torch.tensor([1])
---
torch.ones(2) & torch.ones(2)
---
torch.exp(torch.arange(2)).dtype, torch.arange(3).float().mean(), torch.tensor([1, 2]).float() / 3
""")


@pytest.mark.parametrize("src", PROMOTION_CASES, ids=ids(PROMOTION_CASES))
def test_promotion_matches_torch(torch_, src):
    same(torch_, src)


def test_promotion_exhaustive_pairs(torch_):
    """Every pair of (dtype, 1-D or 0-d) tensors and Python numbers promotes as in PyTorch."""
    names = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64"]
    operands = [("t", n) for n in names] + [("z", n) for n in names] + [("s", v) for v in (True, 2, 2.5, 1j)]

    def make(module, kind, what):
        if kind == "s":
            return what
        shape = (2,) if kind == "t" else ()
        return module.ones(shape, dtype=getattr(module, what))

    bad = []
    for ka, a in operands:
        for kb, b in operands:
            if ka == "s" and kb == "s":
                continue
            ours = tg.result_type(make(tg, ka, a), make(tg, kb, b))
            theirs = torch_.result_type(make(torch_, ka, a), make(torch_, kb, b))
            if theirs is torch_.complex32:
                continue            # float16 with complex: JAX has no complex32
            if repr(ours) != repr(theirs):
                bad.append((ka, a, kb, b, ours, theirs))
    assert not bad


# --------------------------------------------------------------------------------------------
# promote_types, can_cast and result_type for every pair of dtypes

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128")


def test_promote_types_and_can_cast_match_torch_for_every_pair(torch_):
    for a in DTYPES:
        for b in DTYPES:
            ta, tb = getattr(torch_, a), getattr(torch_, b)
            ga, gb = getattr(tg, a), getattr(tg, b)
            assert repr(tg.promote_types(ga, gb)) == repr(torch_.promote_types(ta, tb)), (a, b)
            assert tg.can_cast(ga, gb) == torch_.can_cast(ta, tb), (a, b)


@pytest.mark.parametrize("bad", [lambda m: m.promote_types(m.int32, 5), lambda m: m.can_cast("x", m.int32)])
def test_dtype_functions_reject_non_dtypes_with_type_error(bad):
    with pytest.raises(TypeError):
        bad(tg)


def test_result_type_matches_torch(torch_):
    cases = [
        lambda m: m.result_type(m.ones(2, dtype=m.int32), 2.5),
        lambda m: m.result_type(m.tensor(1.0, dtype=m.float64), m.ones(2)),
        lambda m: m.result_type(m.ones(2, dtype=m.int8), m.ones(2, dtype=m.uint8)),
        lambda m: m.result_type(True, m.ones(2, dtype=m.bool)),
        lambda m: m.result_type(m.ones(2, dtype=m.bool), 3),
        lambda m: m.result_type(m.ones(2, dtype=m.float16), m.tensor(1, dtype=m.int64)),
    ]
    for case in cases:
        assert repr(case(tg)) == repr(case(torch_))
