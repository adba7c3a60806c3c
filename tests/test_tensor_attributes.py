"""The autograd attributes of a Tensor: ``requires_grad``, ``is_leaf``, ``grad``, ``retain_grad``,
``grad_fn`` and its ``next_functions`` (reference sections 1.1 and 1.7).

Most cases are differential: the same snippet runs with ``torch`` bound to tensorgrad and to
real PyTorch, and the repr of its last expression (or the exception type and message, and any
warnings) must be equal (``run`` and ``same`` are in snippets.py).
"""

import re
import warnings

import pytest

import tensorgrad as tg
from snippets import cases, ids, same


@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


# --------------------------------------------------------------------------------------------
# requires_grad, is_leaf, grad, grad_fn

ATTRIBUTE_CASES = cases("""
t = torch.tensor([1, 2])
t.requires_grad = True
---
t = torch.tensor([1, 2])
t.requires_grad_()
---
t = torch.tensor([True])
t.requires_grad_()
---
t = torch.tensor([1, 2]); t.requires_grad_(False)
---
torch.tensor([1 + 2j]).requires_grad_(), torch.tensor([1.], dtype=torch.float16).requires_grad_(), torch.tensor([1.], dtype=torch.bfloat16).requires_grad_()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2
y.requires_grad = False
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2
y.requires_grad = True
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2
y.requires_grad_(False)
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2
y.requires_grad_() is y, y
---
x = torch.tensor([1., 2.]); x.requires_grad_() is x, x.is_leaf, x.requires_grad, x
---
x = torch.tensor([1., 2.])
x.requires_grad = 1
---
x = torch.tensor([1., 2.])
x.requires_grad_(1)
---
x = torch.tensor([1., 2.], requires_grad=True); x.requires_grad = False; x, x.is_leaf
---
(torch.tensor([1., 2.]) * 2).is_leaf, torch.tensor([1., 2.], requires_grad=True).is_leaf, (torch.tensor([1., 2.]) * 2).requires_grad
---
x = torch.tensor([1., -2.], requires_grad=True); x[0].is_leaf, x.view(2).is_leaf, x.double().is_leaf, x.clone().is_leaf
---
x = torch.tensor([1., -2.], requires_grad=True); x.float() is x, x.contiguous() is x, x.float().grad_fn, x.to(torch.float32) is x
---
x = torch.tensor([1., -2.], requires_grad=True); x.long(), x.long().requires_grad, (x > 0).requires_grad, x.argmax().requires_grad
---
x = torch.tensor([1., -2.], requires_grad=True); x.round(), x.floor(), x.sign(), x.ceil(), x.trunc()
---
x = torch.tensor([1., -2.], requires_grad=True); d = x.detach(); d, d.requires_grad, d.is_leaf, d.grad_fn
---
x = torch.tensor([1., 2., 3.], requires_grad=True); x.grad, x.grad_fn, x.output_nr, (x * 2).output_nr
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2
y.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2; y.retain_grad(); y.grad, y.retains_grad, x.retains_grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2; y.retain_grad(); y.sum().backward(); y.grad, x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); x.retain_grad(); x.retains_grad
---
x = torch.tensor([1., 2., 3.]); x.retain_grad()
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = torch.tensor([1., 2., 3.])
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = torch.tensor([1., 2.], dtype=torch.float64)
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = torch.tensor([1, 2])
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = [1., 2.]
---
x = torch.tensor([1., 2.], requires_grad=True)
try: x.grad = torch.ones(3)
except RuntimeError: pass
x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = torch.tensor([10., 10.]); (x * 1).sum().backward(); x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); x.grad = torch.tensor([10., 10.]); x.grad = None; x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); (x * x).sum().backward(); del x.grad; x.grad
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
y = a * 2
y.grad_fn, y.grad_fn.name(), type(y.grad_fn), type(y.grad_fn).__module__, y.grad_fn is y.grad_fn, y.grad_fn.metadata
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
acc = (a * 2).grad_fn.next_functions[0][0]
acc, acc.variable is a, acc.next_functions, acc.name(), type(acc).__name__, type(acc).__module__, str(type(acc))
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
y = a * 2
y.grad_fn.next_functions[0][0] is (a + 1).grad_fn.next_functions[0][0]
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
isinstance((a * 2).grad_fn, torch.autograd.graph.Node), isinstance((a * 2).grad_fn.next_functions[0][0], torch.autograd.graph.Node)
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = torch.tensor([4., 5., 6.], requires_grad=True); c = torch.tensor([7., 8., 9.])
(a * b).grad_fn.next_functions, (a * c).grad_fn.next_functions, (a * 2).grad_fn.next_functions, (a + 2).grad_fn.next_functions
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
(1 - a).grad_fn, (1 - a).grad_fn.next_functions, (a ** 2).grad_fn.next_functions, (torch.ones(3) + a).grad_fn.next_functions
---
a = torch.tensor([1., 2., 3.], requires_grad=True)
(c := a * 2).grad_fn.next_functions, (2 * a).grad_fn.next_functions, (2 / a).grad_fn, (2 / a).grad_fn.next_functions
---
import math
a = torch.linspace(0, 2 * math.pi, 5, requires_grad=True); b = torch.sin(a); c = 2 * b; d = c + 1
d.grad_fn, d.grad_fn.next_functions, d.grad_fn.next_functions[0][0].next_functions
---
import math
a = torch.linspace(0, 2 * math.pi, 5, requires_grad=True); b = torch.sin(a); c = 2 * b; d = c + 1
sin = d.grad_fn.next_functions[0][0].next_functions[0][0]
sin.next_functions, sin.next_functions[0][0].next_functions, sin.next_functions[0][0].variable is a
---
import math
a = torch.linspace(0, 2 * math.pi, 5, requires_grad=True); b = torch.sin(a); c = 2 * b; d = c + 1
a, b, c, d
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone()
b.add_(1); r1 = b.grad_fn; b.mul_(2); r2 = b.grad_fn; b.exp_(); r3 = b.grad_fn; b += 1; r4 = b.grad_fn
r1, r2, r3, r4, b
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone()
b.sub_(1); r1 = b.grad_fn; b.div_(2); r2 = b.grad_fn; b.pow_(2); r3 = b.grad_fn; b.sigmoid_(); r4 = b.grad_fn; b.tanh_(); r5 = b.grad_fn
r1, r2, r3, r4, r5
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone()
b.clamp_(0, 2); r1 = b.grad_fn; b.zero_(); r2 = b.grad_fn; b.fill_(1.); r3 = b.grad_fn; b.copy_(a); r4 = b.grad_fn; b.relu_(); r5 = b.grad_fn
r1, r2, r3, r4, r5, r4.name()
---
a = torch.tensor([1., 2., 3.], requires_grad=True); w = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); b *= w
b.grad_fn, b.grad_fn.next_functions
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); b[0] = 5.; b.grad_fn, b.grad_fn.next_functions, b.grad_fn.name()
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); b[torch.tensor([0])] = 3.; b.grad_fn, b.grad_fn.next_functions
---
a = torch.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); b[b > 1] = 0.; b.grad_fn, b.grad_fn.next_functions
---
x = torch.tensor([1., 2.], requires_grad=True); y = x * 2; y.sum().backward(); y.grad_fn.next_functions[0][0].variable is x, x.grad.requires_grad, x.grad.is_leaf, x.grad.grad_fn
---
x = torch.tensor([1., 2.], requires_grad=True); (x * 2).sum().backward(); x.grad.requires_grad_(), x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); x.requires_grad_(False); x.requires_grad_(True); (x * 2).grad_fn.next_functions
---
x = torch.tensor([1., 2.]); y = x * 2; x.requires_grad_(); y.requires_grad, (x * 2).requires_grad
---
x = torch.tensor([1., 2.], requires_grad=True); y = x[0]; y.requires_grad_(False)
---
x = torch.ones(2, requires_grad=True); torch.ones(2).requires_grad_(True) + x
---
x = torch.ones(2, 2, requires_grad=True); x.sum(1).grad_fn, x.sum((0, 1)).grad_fn, x.mean((0,)).grad_fn, x.amax().grad_fn, x.max(1)[0].grad_fn, x.max(1)[1].requires_grad
---
x = torch.ones(2, requires_grad=True); y = x.unbind(); [t.grad_fn for t in y], [t.output_nr for t in y], y[1].grad_fn is y[0].grad_fn
---
x = torch.ones(4, requires_grad=True); y = x.split(2); [t.output_nr for t in y], y[0].grad_fn.next_functions
---
with torch.inference_mode():
    t = torch.ones(2, requires_grad=True)
    y = t * 2
t, t.is_inference(), t.requires_grad, y, y.requires_grad
""")


@pytest.mark.parametrize("src", ATTRIBUTE_CASES, ids=ids(ATTRIBUTE_CASES))
def test_attributes_match_torch(torch_, src):
    same(torch_, src)


def test_requires_grad_error_texts():
    """Reference section 1.1: three code paths, three texts."""
    t = tg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype can require gradients$"):
        t.requires_grad = True
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        t.requires_grad_()
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        tg.tensor([True]).requires_grad_()
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        tg.tensor([1, 2], requires_grad=True)
    assert not t.requires_grad
    assert t.requires_grad_(False) is t


def test_requires_grad_only_on_leaves():
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError) as info:
        y.requires_grad = False
    assert str(info.value) == (
        "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in "
        "a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
    with pytest.raises(RuntimeError, match=r"^you can only change requires_grad flags of leaf variables\.$"):
        y.requires_grad = True
    with pytest.raises(RuntimeError, match="var_no_grad"):
        y.requires_grad_(False)
    assert y.requires_grad and y.grad_fn is not None
    assert y.requires_grad_() is y


def test_is_leaf_rules():
    x = tg.tensor([1., -2.], requires_grad=True)
    assert x.is_leaf and x.grad_fn is None
    assert (tg.tensor([1., 2.]) * 2).is_leaf
    assert not (x * 2).is_leaf
    assert not x[0].is_leaf and not x.clone().is_leaf
    assert type(x.double().grad_fn).__name__ == "ToCopyBackward0"
    assert x.float() is x
    with tg.no_grad():
        y = x * 2
    assert y.is_leaf and not y.requires_grad
    assert x.detach().is_leaf and not x.detach().requires_grad
    long = x.long()
    assert long.is_leaf and not long.requires_grad and long.grad_fn is None
    assert repr(x.round()) == "tensor([ 1., -2.], grad_fn=<RoundBackward0>)"


def test_grad_on_non_leaf_warns():
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match=r"^The \.grad attribute of a Tensor that is not a leaf Tensor is being "
                                         r"accessed\..*TensorBody\.h:493\.\)$"):
        assert y.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is None                 # a leaf without grad: no warning
        assert y.detach().grad is None        # detached: no warning
        y.retain_grad()
        assert y.grad is None                 # retained: no warning


def test_grad_assignment_checks_leave_grad_unchanged():
    x = tg.tensor([1., 2.], requires_grad=True)
    g = tg.tensor([5., 6.])
    x.grad = g
    assert x.grad is g
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient of size '\[3\]' to a tensor of size "
                                           r"'\[2\]'\. Please ensure"):
        x.grad = tg.ones(3)
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient with dtype 'double' to a tensor with "
                                           r"grad_dtype 'Float'\."):
        x.grad = tg.ones(2, dtype=tg.float64)
    with pytest.raises(RuntimeError, match=r"dtype 'long int'"):
        x.grad = tg.ones(2, dtype=tg.int64)
    with pytest.raises(TypeError, match="^assigned grad expected to be a Tensor or None but got grad of type list$"):
        x.grad = [1., 2.]
    assert x.grad is g and g.tolist() == [5., 6.]


def test_grad_fn_repr_and_names():
    a = tg.tensor([1., 2., 3.], requires_grad=True)
    y = a * 2
    fn = y.grad_fn
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(fn))
    assert str(fn) == repr(fn)
    assert type(fn).__name__ == "MulBackward0" and type(fn).__module__ == "builtins"
    assert str(type(fn)) == "<class 'MulBackward0'>"
    assert fn.name() == "MulBackward0"
    assert fn is y.grad_fn
    assert isinstance(fn, tg.autograd.graph.Node)
    acc, nr = fn.next_functions[0]
    assert nr == 0 and acc.variable is a and acc.next_functions == ()
    assert acc.name() == "torch::autograd::AccumulateGrad" and type(acc).__name__ == "AccumulateGrad"
    assert re.fullmatch(r"<AccumulateGrad object at 0x[0-9a-f]+>", repr(acc))
    assert fn.next_functions[1] == (None, 0)
    assert acc is (a + 1).grad_fn.next_functions[0][0]


def _structure(fn, depth=3):
    """A node as (class name, children) with (None, 0) slots kept and output numbers."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__, tuple((_structure(f, depth - 1), nr) for f, nr in fn.next_functions))


# Reference section 1.7 (a, b 1-D leaves; M, N 3x3 leaves; B a 2x3x3 leaf).
GRAD_FN_TABLE = [
    "a+b", "a+1", "1+a", "a-b", "a-1", "1-a", "a*b", "a*2", "2*a", "a/b", "a/2", "2/a", "a**2", "a.pow(2)",
    "a.square()", "a**0.5", "a**b", "2**a", "a.exp()", "a.log()", "a.sin()", "a.cos()", "a.tanh()",
    "a.sigmoid()", "a.sqrt()", "a.abs()", "a.neg()", "-a", "torch.relu(a)", "a.exp2()", "a.log1p()",
    "a.rsqrt()", "a.reciprocal()", "a.sum()", "a.sum(0)", "M.sum(dim=1)", "a.mean()", "M.mean(0)",
    "torch.dot(a,b)", "a@b", "M@N", "M.mm(N)", "torch.matmul(M,a)", "M.mv(a)", "torch.matmul(a, M)",
    "torch.bmm(B,B)", "M.view(9)", "M.reshape(9)", "M.flatten()", "a.view_as(a)", "M.transpose(0,1)", "M.t()",
    "M.T", "M.permute(1,0)", "a[0]", "M[0]", "M[0,1]", "a[1:]", "a.narrow(0,0,2)", "a[[0,2]]",
    "a[a>1]", "a[None]", "a.unsqueeze(0)", "a[...]", "a[None].squeeze(0)", "a[None].squeeze()", "a.clone()",
    "torch.cat([a,b])", "torch.stack([a,b])", "a.max()", "a.min()", "a.max(0).values", "torch.max(a,b)",
    "torch.maximum(a,b)", "a.norm()", "a.norm(p=1)", "a.expand(2,3)", "a.repeat(2)",
    "torch.where(a>1, a, b)", "torch.where(a>1, a, 0.)", "a.clamp(0,2)", "a.clamp(min=0)",
    "a.to(torch.float64)", "a.double()", "a.type_as(torch.ones(1, dtype=torch.float64))", "a.prod()",
    "a.cumsum(0)", "a.var()", "a.std()", "a.logsumexp(0)", "a.flip(0)", "a.sign()", "a.floor()", "a.round()",
    "a.split(1)[0]", "a.chunk(3)[0]", "a.unbind()[0]", "torch.addmm(M, M, N)", "sum([a,b])", "a.float()",
    "a.contiguous()", "a.argmax()", "M[:,0]", "a.masked_fill(a>1, 0.)", "torch.outer(a,b)", "B@M",
    "M.diagonal()", "M.select(1, 0)", "torch.movedim(M, 0, 1)", "a.index_select(0, torch.tensor([0, 2]))",
    "M.t().reshape(9)", "M.t().contiguous()", "B@torch.ones(3)", "M[:, :]", "a[:]", "M[0:3, 1:]",
]


def _table_env(module):
    return {
        "torch": module,
        "a": module.tensor([1., 2., 3.], requires_grad=True),
        "b": module.tensor([0.5, 0.25, 0.125], requires_grad=True),
        "M": module.arange(1., 10.).reshape(3, 3).requires_grad_(),
        "N": (module.arange(1., 10.).reshape(3, 3) * 0.1).requires_grad_(),
        "B": module.ones(2, 3, 3, requires_grad=True),
    }


@pytest.mark.parametrize("expr", GRAD_FN_TABLE)
def test_grad_fn_table_matches_torch(torch_, expr):
    """grad_fn class names, next_functions structure (three levels, (None, 0) slots), value repr."""
    def describe(module):
        value = eval(expr, _table_env(module))
        return (_structure(value.grad_fn), value.requires_grad, value.is_leaf, repr(value))
    assert describe(tg) == describe(torch_)


GRAD_FN_LITERAL = [
    ("a+b", ("AddBackward0", (("AccumulateGrad", 0), ("AccumulateGrad", 0)))),
    ("a+1", ("AddBackward0", (("AccumulateGrad", 0), (None, 0)))),
    ("1+a", ("AddBackward0", (("AccumulateGrad", 0), (None, 0)))),
    ("1-a", ("RsubBackward1", (("AccumulateGrad", 0),))),
    ("2*a", ("MulBackward0", (("AccumulateGrad", 0), (None, 0)))),
    ("2/a", ("MulBackward0", (("ReciprocalBackward0", 0), (None, 0)))),
    ("a**2", ("PowBackward0", (("AccumulateGrad", 0),))),
    ("a**b", ("PowBackward1", (("AccumulateGrad", 0), ("AccumulateGrad", 0)))),
    ("2**a", ("PowBackward2", (("AccumulateGrad", 0),))),
    ("a.sum(0)", ("SumBackward1", (("AccumulateGrad", 0),))),
    ("M.mean(0)", ("MeanBackward1", (("AccumulateGrad", 0),))),
    ("a.max()", ("MaxBackward1", (("AccumulateGrad", 0),))),
    ("a.max(0).values", ("MaxBackward0", (("AccumulateGrad", 0),))),
    ("M[0,1]", ("SelectBackward0", (("SelectBackward0", 0),))),
    ("torch.matmul(a, M)", ("SqueezeBackward4", (("MmBackward0", 0),))),
    ("torch.where(a>1, a, 0.)", ("WhereBackward0", (("AccumulateGrad", 0), (None, 0)))),
    ("a.double()", ("ToCopyBackward0", (("AccumulateGrad", 0),))),
    ("sum([a,b])", ("AddBackward0", (("AddBackward0", 0), ("AccumulateGrad", 0)))),
    ("a.norm()", ("LinalgVectorNormBackward0", (("AccumulateGrad", 0),))),
]


@pytest.mark.parametrize("expr, expected", GRAD_FN_LITERAL, ids=[e for e, _ in GRAD_FN_LITERAL])
def test_grad_fn_reference_table(expr, expected):
    value = eval(expr, _table_env(tg))
    assert _structure(value.grad_fn, depth=1) == expected


def test_no_grad_fn_for_ops_returning_self_or_integers():
    env = _table_env(tg)
    a = env["a"]
    assert a.float() is a and a.contiguous() is a
    assert a.argmax().grad_fn is None and not a.argmax().requires_grad
    assert (a > 1).grad_fn is None
