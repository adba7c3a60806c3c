"""What an op's node saves, and what its create_graph gradients require, compared with PyTorch.

PyTorch's derivative formulas decide which inputs (and outputs) a node keeps, and some keep an
input only when another one requires grad (``mul`` keeps ``b`` for ``a``'s gradient). That
decides three things checked here for many ops, for every choice of which inputs require grad:

* writing in place into an input or an output after the op makes backward raise "modified by
  an inplace operation" exactly when PyTorch's does;
* a second backward through the freed graph raises exactly when PyTorch's does;
* ``autograd.grad(..., create_graph=True)`` gives gradients that require grad exactly when
  PyTorch's do (a mask-based derivative such as ``clamp``'s does not read x differentiably;
  ``relu``'s ``threshold_backward`` does).
"""

import numpy as np
import pytest

import tensorgrad

from oracle import _oracle, torch  # noqa: F401  (the autouse fixture that skips without PyTorch)


def _values(kind, shape, rng):
    if kind == "pos":
        return rng.uniform(0.5, 2.0, shape)
    if kind == "unit":
        return rng.uniform(-0.8, 0.8, shape)
    if kind == "spd":
        a = rng.standard_normal(shape)
        return a @ np.swapaxes(a, -1, -2) + 3 * np.eye(shape[-1])
    if kind == "bool":
        return rng.random(shape) < 0.5
    values = rng.standard_normal(shape)
    return np.where(np.abs(values) < 0.25, 0.5, values)


# the cases of the default run (issue #11's examples and one of each kind of saving); the others
# run with ``pytest --long``
DEFAULT = {"mul", "mul_number", "div", "hypot", "maximum", "lerp_number", "lerp_tensor", "addcmul", "where",
           "clamp", "relu", "abs", "sgn", "floor", "max", "max_dim", "prod_size1_dim", "cumprod", "amax", "std", "sort",
           "kron", "svdvals", "layer_norm", "hardtanh"}


def _case(name, fn, *inputs):
    """``inputs``: ``(shape, kind)`` per tensor argument (kind ``"f"`` for any float)."""
    return pytest.param(fn, inputs, id=name, marks=() if name in DEFAULT else pytest.mark.long)


F = "f"
V3 = ((3,), F)
M23 = ((2, 3), F)
P3 = ((3,), "pos")
U3 = ((3,), "unit")
SQ = ((3, 3), F)
SPD = ((3, 3), "spd")
IDX = [2, 0]

CASES = [
    _case("mul", lambda m, a, b: a * b, V3, V3),
    _case("mul_number", lambda m, a: a * 2, V3),
    _case("div", lambda m, a, b: a / b, V3, P3),
    _case("div_number", lambda m, a: a / 2, V3),
    _case("div_floor", lambda m, a, b: m.div(a, b, rounding_mode="floor"), V3, P3),
    _case("add", lambda m, a, b: a + b, V3, V3),
    _case("hypot", lambda m, a, b: m.hypot(a, b), V3, V3),
    _case("atan2", lambda m, a, b: m.atan2(a, b), V3, V3),
    _case("maximum", lambda m, a, b: m.maximum(a, b), V3, V3),
    _case("fmin", lambda m, a, b: m.fmin(a, b), V3, V3),
    _case("pow_tensor", lambda m, a, b: a ** b, P3, V3),
    _case("pow_number", lambda m, a: a ** 2.5, P3),
    _case("rpow", lambda m, a: 2.0 ** a, V3),
    _case("copysign", lambda m, a, b: m.copysign(a, b), V3, V3),
    _case("remainder", lambda m, a, b: m.remainder(a, b), V3, P3),
    _case("fmod_number", lambda m, a: m.fmod(a, 1.5), V3),
    _case("xlogy", lambda m, a, b: m.xlogy(a, b), V3, P3),
    _case("logaddexp", lambda m, a, b: m.logaddexp(a, b), V3, V3),
    _case("lerp_number", lambda m, a, b: m.lerp(a, b, 0.3), V3, V3),
    _case("lerp_tensor", lambda m, a, b, w: m.lerp(a, b, w), V3, V3, U3),
    _case("addcmul", lambda m, x, a, b: m.addcmul(x, a, b, value=0.5), V3, V3, V3),
    _case("addcdiv", lambda m, x, a, b: m.addcdiv(x, a, b), V3, V3, P3),
    _case("where", lambda m, c, a, b: m.where(c, a, b), ((3,), "bool"), V3, V3),
    _case("clamp", lambda m, a: a.clamp(-0.5, 0.5), V3),
    _case("clamp_tensor", lambda m, a, lo, hi: m.clamp(a, lo, hi + 3), V3, V3, V3),
    _case("clamp_min_tensor", lambda m, a, lo: m.clamp_min(a, lo), V3, V3),
    _case("exp", lambda m, a: a.exp(), V3),
    _case("sigmoid", lambda m, a: a.sigmoid(), V3),
    _case("tanh", lambda m, a: a.tanh(), V3),
    _case("relu", lambda m, a: a.relu(), V3),
    _case("abs", lambda m, a: a.abs(), V3),
    _case("sgn", lambda m, a: a.sgn(), V3),
    _case("sign", lambda m, a: a.sign(), V3),
    _case("floor", lambda m, a: a.floor(), V3),
    _case("round", lambda m, a: a.round(), V3),
    _case("clamp_min", lambda m, a: a.clamp_min(0.0), V3),
    _case("masked_select", lambda m, a: a.masked_select(m.tensor([True, False, True])), V3),
    _case("take", lambda m, a: a.take(m.tensor(IDX)), V3),
    _case("erfinv", lambda m, a: m.erfinv(a), U3),
    _case("special_i1", lambda m, a: m.special.i1(a), V3),
    _case("special_ndtri", lambda m, a: m.special.ndtri(a.sigmoid()), V3),
    _case("frexp", lambda m, a: m.frexp(a).mantissa, V3),
    _case("sum", lambda m, a: a.sum(), V3),
    _case("prod", lambda m, a: a.prod(), V3),
    _case("prod_dim", lambda m, a: a.prod(1), M23),
    _case("prod_size1_dim", lambda m, a: a.prod(0), ((1, 3), F)),
    _case("max", lambda m, a: a.max(), V3),
    _case("amax", lambda m, a: a.amax(1), M23),
    _case("aminmax", lambda m, a: m.aminmax(a), V3),
    _case("max_dim", lambda m, a: a.max(1), M23),
    _case("median", lambda m, a: a.median(), V3),
    _case("sort", lambda m, a: a.sort(), V3),
    _case("topk", lambda m, a: a.topk(2), V3),
    _case("kthvalue", lambda m, a: a.kthvalue(2), V3),
    _case("cumsum", lambda m, a: a.cumsum(0), V3),
    _case("cumprod", lambda m, a: a.cumprod(0), V3),
    _case("cummax", lambda m, a: a.cummax(0), V3),
    _case("logcumsumexp", lambda m, a: a.logcumsumexp(0), V3),
    _case("logsumexp", lambda m, a: a.logsumexp(0), V3),
    _case("std", lambda m, a: a.std(), V3),
    _case("var", lambda m, a: a.var(), V3),
    _case("std_mean", lambda m, a: m.std_mean(a), V3),
    _case("norm", lambda m, a: a.norm(), V3),
    _case("vector_norm_inf", lambda m, a: m.linalg.vector_norm(a, float("inf")), V3),
    _case("dist", lambda m, a, b: m.dist(a, b), V3, V3),
    _case("cdist", lambda m, a, b: m.cdist(a, b), M23, M23),
    _case("softmax", lambda m, a: a.softmax(0), V3),
    _case("log_softmax", lambda m, a: a.log_softmax(0), V3),
    _case("mm", lambda m, a, b: a @ b, M23, ((3, 2), F)),
    _case("addmm", lambda m, c, a, b: m.addmm(c, a, b), ((2, 2), F), M23, ((3, 2), F)),
    _case("addr", lambda m, c, a, b: m.addr(c, a, b), SQ, V3, V3),
    _case("kron", lambda m, a, b: m.kron(a, b), ((2,), F), ((2,), F)),
    _case("gather", lambda m, a: a.gather(0, m.tensor(IDX)), V3),
    _case("index_select", lambda m, a: a.index_select(0, m.tensor(IDX)), V3),
    _case("index_add", lambda m, a, s: a.index_add(0, m.tensor(IDX), s), V3, ((2,), F)),
    _case("index_copy", lambda m, a, s: a.index_copy(0, m.tensor(IDX), s), V3, ((2,), F)),
    _case("scatter_add", lambda m, a, s: a.scatter_add(0, m.tensor(IDX), s), V3, ((2,), F)),
    _case("scatter_reduce", lambda m, a, s: a.scatter_reduce(0, m.tensor(IDX), s, "prod"), V3, ((2,), F)),
    _case("masked_fill", lambda m, a: a.masked_fill(m.tensor([True, False, True]), 0.0), V3),
    _case("masked_scatter", lambda m, a, s: a.masked_scatter(m.tensor([True, False, True]), s), V3, V3),
    _case("det", lambda m, a: m.linalg.det(a), SQ),
    _case("inv", lambda m, a: m.linalg.inv(a), SPD),
    _case("slogdet", lambda m, a: m.linalg.slogdet(a), SPD),
    _case("solve", lambda m, a, b: m.linalg.solve(a, b), SPD, V3),
    _case("cholesky", lambda m, a: m.linalg.cholesky(a), SPD),
    _case("eigh", lambda m, a: m.linalg.eigh(a), SPD),
    _case("svdvals", lambda m, a: m.linalg.svdvals(a), M23),
    _case("pinv", lambda m, a: m.linalg.pinv(a), M23),
    _case("linear", lambda m, x, w, b: m.nn.functional.linear(x, w, b), M23, ((4, 3), F), ((4,), F)),
    _case("conv1d", lambda m, x, w, b: m.nn.functional.conv1d(x, w, b), ((1, 2, 4), F), ((3, 2, 2), F), V3),
    _case("layer_norm", lambda m, x, w, b: m.nn.functional.layer_norm(x, (3,), w, b), M23, V3, V3),
    _case("mse_loss", lambda m, x, t: m.nn.functional.mse_loss(x, t), V3, V3),
    _case("cross_entropy", lambda m, x: m.nn.functional.cross_entropy(x, m.tensor([2, 0])), M23),
    _case("leaky_relu", lambda m, x: m.nn.functional.leaky_relu(x, 0.1), V3),
    _case("hardtanh", lambda m, x: m.nn.functional.hardtanh(x, -0.5, 0.5), V3),
    _case("prelu", lambda m, x, w: m.nn.functional.prelu(x, w), M23, ((1,), "pos")),
    _case("max_pool1d", lambda m, x: m.nn.functional.max_pool1d(x, 2), ((1, 1, 4), F)),
    _case("avg_pool1d", lambda m, x: m.nn.functional.avg_pool1d(x, 2), ((1, 1, 4), F)),
]


def _inputs(m, arrays, requires):
    """Leaves made from ``arrays`` (those at ``requires`` require grad) and stand-ins for them that
    can be written in place (a product with 1, or a clone)."""
    leaves = [m.tensor(a, requires_grad=i in requires) for i, a in enumerate(arrays)]
    return leaves, [t * 1 if t.requires_grad else t.clone() for t in leaves]


def _flat(m, out):
    if isinstance(out, m.Tensor):
        return [out]
    flat = []
    for o in out:
        flat.extend(_flat(m, o))
    return flat


def _write(t):
    if t.dtype.is_floating_point:
        t.mul_(1.0)
    elif t.dtype.itemsize == 1 and not t.dtype.is_signed:
        t.logical_not_().logical_not_()
    else:
        t.add_(0)


def _outcome(action):
    try:
        action()
    except RuntimeError as error:
        return "raises: " + str(error).split(":")[0].split(".")[0]
    return "runs"


def _after_write(m, fn, arrays, requires, target):
    """Run ``fn``, write in place into ``target`` (``("input", i)`` or ``("output", k)``), backward."""
    leaves, inputs = _inputs(m, arrays, requires)
    outs = _flat(m, fn(m, *inputs))
    _write(inputs[target[1]] if target[0] == "input" else outs[target[1]])
    diff = [o for o in outs if o.requires_grad]
    return _outcome(lambda: m.autograd.grad(diff, [t for t in leaves if t.requires_grad],
                                            [m.ones_like(o) for o in diff], allow_unused=True))


def _backward_twice(m, fn, arrays, requires):
    leaves, inputs = _inputs(m, arrays, requires)
    loss = sum(o.sum() for o in _flat(m, fn(m, *inputs)) if o.requires_grad)
    loss.backward()
    return _outcome(loss.backward)


def _create_graph(m, fn, arrays, requires):
    leaves = [m.tensor(a, requires_grad=i in requires) for i, a in enumerate(arrays)]
    outs = [o for o in _flat(m, fn(m, *leaves)) if o.requires_grad]
    rng = np.random.default_rng(5)
    cts = [m.tensor(rng.uniform(0.5, 1.5, tuple(o.shape))) for o in outs]
    grads = m.autograd.grad(outs, [t for t in leaves if t.requires_grad], cts, create_graph=True,
                            allow_unused=True)
    return [None if g is None else g.requires_grad for g in grads]


def _patterns(arrays):
    """Which inputs require grad: all floating ones, then each alone."""
    floats = tuple(i for i, a in enumerate(arrays) if a.dtype.kind == "f")
    return [floats] + ([(i,) for i in floats] if len(floats) > 1 else [])


def _arrays(inputs):
    rng = np.random.default_rng(0)
    return [_values(kind, shape, rng) for shape, kind in inputs]


@pytest.mark.parametrize("fn, inputs", CASES)
def test_inplace_write_after_op_raises_as_torch(fn, inputs):
    arrays = _arrays(inputs)
    n_out = len(_flat(torch, fn(torch, *[torch.tensor(a) for a in arrays])))
    targets = [("input", i) for i in range(len(arrays))] + [("output", k) for k in range(n_out)]
    differ = []
    for requires in _patterns(arrays):
        for target in targets:
            ours = _after_write(tensorgrad, fn, arrays, requires, target)
            theirs = _after_write(torch, fn, arrays, requires, target)
            if ours != theirs:
                differ.append(f"{target} written, inputs {requires} require grad: tensorgrad {ours}, PyTorch {theirs}")
    assert not differ, "\n".join(differ)


@pytest.mark.parametrize("fn, inputs", CASES)
def test_second_backward_raises_as_torch(fn, inputs):
    arrays = _arrays(inputs)
    for requires in _patterns(arrays):
        ours = _backward_twice(tensorgrad, fn, arrays, requires)
        assert ours == _backward_twice(torch, fn, arrays, requires), f"inputs {requires} require grad: {ours}"


@pytest.mark.parametrize("fn, inputs", CASES)
def test_create_graph_gradients_require_grad_as_torch(fn, inputs):
    arrays = _arrays(inputs)
    for requires in _patterns(arrays):
        ours = _create_graph(tensorgrad, fn, arrays, requires)
        theirs = _create_graph(torch, fn, arrays, requires)
        assert ours == theirs, f"inputs {requires} require grad: tensorgrad {ours}, PyTorch {theirs}"


def test_second_order_gradient_of_a_masked_derivative_is_an_error_in_both():
    # d/dx clamp(x) is a mask: the gradient does not require grad, so differentiating it again raises
    for m in (tensorgrad, torch):
        x = m.tensor([0.5, 2.0], requires_grad=True)
        g, = m.autograd.grad(x.clamp(0, 1).sum(), x, create_graph=True)
        assert not g.requires_grad
        with pytest.raises(RuntimeError, match="does not require grad"):
            g.sum().backward()


def test_inference_tensor_may_be_an_input_that_is_not_saved():
    # add saves nothing, so an inference tensor may take part; mul saves it for the other's gradient
    with tensorgrad.inference_mode():
        frozen = tensorgrad.ones(3)
    x = tensorgrad.ones(3, requires_grad=True)
    (x + frozen).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        x * frozen
    with torch.inference_mode():
        frozen_t = torch.ones(3)
    xt = torch.ones(3, requires_grad=True)
    (xt + frozen_t).sum().backward()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        xt * frozen_t


@pytest.mark.parametrize("fn, target", [
    (lambda m, x, y: x.max(1), ("output", 1)),
    (lambda m, x, y: x.cumprod(0), ("output", 0)),
    (lambda m, x, y: m.hypot(x, y), ("input", 0)),
    (lambda m, x, y: x * y, ("input", 1)),
    (lambda m, x, y: x.sort(0), ("output", 1)),
], ids=["max_dim_indices", "cumprod_result", "hypot_self", "mul_other", "sort_indices"])
def test_version_error_message_matches_torch(fn, target):
    # a saved integer output (indices) has no history: the message names no node for it
    arrays = [np.array([[1.0, 3.0], [2.0, 0.5]]), np.array([[0.5, 1.0], [1.5, 2.0]])]
    messages = []
    for m in (tensorgrad, torch):
        leaves, inputs = _inputs(m, arrays, (0, 1))
        outs = _flat(m, fn(m, *inputs))
        _write(inputs[target[1]] if target[0] == "input" else outs[target[1]])
        with pytest.raises(RuntimeError) as error:
            outs[0].sum().backward()
        messages.append(str(error.value))
    assert messages[0] == messages[1]
