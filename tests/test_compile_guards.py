"""What a compiled step says when it traces again (``explain()`` names the guard: which tensor,
attribute or value, old -> new), how it meets new shapes (traced at once; a warning when an
argument keeps changing; ``dynamic=True``), ``compile(module)``'s first call, and the fused
backward's first compile running behind the step."""

import warnings

import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.nn.functional as F
from tensorgrad import nn
from tensorgrad._autograd import engine

from test_compile import _step_fn


def _model():
    tg.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 3))


def _batches(sizes, seed=0):
    rng = np.random.default_rng(seed)
    return [(tg.tensor(rng.standard_normal((n, 4)).astype(np.float32)), tg.tensor(rng.integers(0, 3, n)))
            for n in sizes]


def _reasons(compiled):
    return [line.split(": ", 1)[1] for line in compiled.explain().splitlines() if line.startswith("traced program")]


def test_explain_names_the_guard_that_changed():
    model = _model()
    opt = tg.optim.SGD(model.parameters(), lr=0.1)
    step = tg.compile(_step_fn(model, opt))
    x, y = _batches([16])[0]
    step(x, y), step(x, y)
    opt.param_groups[0]["lr"] = 0.05
    step(x, y)
    model.eval()
    step(x, y)
    model.train()
    step(x, y)          # the first program again: no trace
    assert _reasons(step) == ["second call", "SGD.param_groups[0]['lr']: 0.1 -> 0.05",
                              "Sequential.training: train() -> eval()"]
    accumulate = tg.compile(_step_fn(model, opt, zero_inside=False))
    accumulate(x, y), accumulate(x, y)
    opt.zero_grad(set_to_none=True)
    accumulate(x, y)
    assert _reasons(accumulate) == ["second call", "parameter '4.weight' of Sequential.grad: set -> None"]


def test_a_submodule_mode_and_a_new_shape_are_named():
    model = _model()
    forward = tg.compile(lambda x: model(x).detach())
    x, _ = _batches([6])[0]
    forward(x), forward(x)
    model[3].eval()
    forward(x)
    forward(x[:, :2].contiguous().repeat(1, 2))         # same shape: no new trace
    assert _reasons(forward) == ["second call", "Sequential.3 (Dropout).training: train() -> eval()"]
    z, _ = _batches([9])[0]
    forward(z)
    assert _reasons(forward)[-1] == "argument 0 shape: (6, 4) -> (9, 4)"


def test_an_epoch_with_a_smaller_last_batch_traces_twice_and_matches_eager():
    model, twin = _model(), _model()
    opt, twin_opt = tg.optim.SGD(model.parameters(), lr=0.1), tg.optim.SGD(twin.parameters(), lr=0.1)
    compiled, eager = tg.compile(_step_fn(model, opt)), _step_fn(twin, twin_opt)
    epoch = _batches([16, 16, 16, 5])
    losses, expected = [], []
    for _ in range(3):
        for k, (x, y) in enumerate(epoch):
            tg.manual_seed(k)
            losses.append(compiled(x, y).item())
            tg.manual_seed(k)
            expected.append(eager(x, y).item())
    assert _reasons(compiled) == ["second call", "argument 0 shape: (16, 4) -> (5, 4); argument 1 shape: (16,) -> (5,)"]
    assert compiled.explain().count("ran eagerly") == 1
    np.testing.assert_allclose(losses, expected, rtol=1e-5)
    for p, q in zip(model.parameters(), twin.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_an_argument_that_keeps_changing_shape_warns_once():
    double = tg.compile(lambda a: (a * 2).sum())
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        values = [double(tg.ones(n)).item() for n in range(1, 8)]
    assert values == [2.0 * n for n in range(1, 8)]
    messages = [str(w.message) for w in seen if "tensorgrad.compile" in str(w.message)]
    assert len(messages) == 1
    assert "argument 0" in messages[0] and "4 shapes ((1,), (2,), (3,), (4,))" in messages[0]
    assert "dynamic=True" in messages[0]
    assert double.explain().count("traced program") == 6


@pytest.mark.parametrize("dynamic", [True, False])
def test_dynamic_true_runs_further_shapes_eagerly_and_false_never_warns(dynamic):
    double = tg.compile(lambda a: (a * 2).sum(), dynamic=dynamic)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = [double(tg.ones(n)).item() for n in range(1, 8)]
    assert values == [2.0 * n for n in range(1, 8)]
    eager = double.explain().count("running eagerly")
    assert (eager, double.explain().count("traced program")) == ((4, 2) if dynamic else (0, 6))


def test_compiled_module_records_compiled_function_backward_from_the_first_call():
    model, twin = _model(), _model()
    compiled = tg.compile(model)
    x, _ = _batches([8])[0]
    tg.manual_seed(1)
    out = compiled(x)
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    tg.manual_seed(1)
    expected = twin(x)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    out.sum().backward()
    expected.sum().backward()
    for p, q in zip(model.parameters(), twin.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert "ran eagerly" not in compiled.explain()


def test_the_first_fused_backward_compiles_behind_the_step_fn():
    w = tg.randn(5, 3, requires_grad=True)
    x = tg.randn(4, 5)
    grads = []
    for _ in range(4):
        w.grad = None
        (x @ w).tanh().sin().sum().backward()
        grads.append(w.grad.numpy().copy())
        for thread in list(engine._COMPILING.values()):
            thread.join()
    for g in grads[1:]:
        np.testing.assert_allclose(g, grads[0], rtol=1e-6)
    assert not engine._COMPILING


def test_background_compiles_can_be_turned_off(monkeypatch):
    monkeypatch.setitem(engine.BACKGROUND, "on", False)
    w = tg.randn(6, 2, requires_grad=True)
    for _ in range(3):
        (tg.ones(3, 6) @ w).exp().sum().backward()
        assert not engine._COMPILING
    np.testing.assert_allclose(w.grad.numpy(), 3 * (tg.ones(3, 6).T @ (tg.ones(3, 6) @ w).exp()).detach().numpy(),
                               rtol=1e-5)


def test_sliced_batches_share_one_program_and_writes_reach_the_sliced_tensor():
    model = _model()
    opt = tg.optim.SGD(model.parameters(), lr=0.1)
    step = tg.compile(_step_fn(model, opt))
    (x, y), = _batches([40])
    for _ in range(2):
        for i in range(0, 40, 16):
            step(x[i:i + 16], y[i:i + 16])
    assert _reasons(step) == ["second call", "argument 0 shape: (16, 4) -> (8, 4); argument 1 shape: (16,) -> (8,)"]
    double = tg.compile(lambda v: v.mul_(2).sum())
    z = tg.ones(6)
    version = z._version
    assert [double(z[i:i + 2]).item() for i in range(0, 6, 2)] == [4.0, 4.0, 4.0]
    assert z.tolist() == [2.0] * 6 and z._version == version + 3


def _deep(x, w, k, depth=6, flat=False):
    y = x @ w
    for j in range(depth):      # a configuration per node (beta, threshold) that no other test uses
        y = F.softplus(F.leaky_relu(y, 0.01 + k), beta=1.0 + k, threshold=17.0 + j)
    if flat:                    # a reshape, whose configuration (its shape) changes with the batch
        y = y.reshape(y.shape[0] * y.shape[1])
    return y.sum()


def _seen_once():
    from tensorgrad import _cache
    return sum(1 for value, _ in _cache.FUSED._entries.values() if value is engine._SEEN)


def test_a_first_backward_of_cold_kernels_compiles_one_program_else_goes_node_by_node():
    from tensorgrad import _cache
    # room in the fused cache, which the tests before this one in its process may have filled
    # (a full cache evicts one entry for each it adds, and the counts below would not move)
    old = _cache.set_limits(fused=_cache.limits()["fused"] + 8)
    try:
        _first_backward_of_cold_kernels()
    finally:
        _cache.set_limits(**old)


def _first_backward_of_cold_kernels():
    from tensorgrad import _cache
    w = tg.randn(17, 19, requires_grad=True)       # shapes no other test uses: kernels not compiled
    x = tg.randn(23, 3, 17)[:, 2]
    programs, seen = _cache.FUSED.stats()["entries"], _seen_once()
    _deep(x, w, 0.1234).backward()          # every node's kernel is new: the fused program at once
    first = w.grad.numpy().copy()
    assert _cache.FUSED.stats()["entries"] == programs + 1 and _seen_once() == seen and not engine._COMPILING
    w.grad = None
    _deep(x, w, 0.1234).backward()          # the same structure: the same program, the same values
    np.testing.assert_allclose(w.grad.numpy(), first, rtol=1e-6)
    w.grad = None
    _deep(x, w, 0.1234, depth=7).backward()    # a new structure, its kernels mostly served: node by node
    assert _cache.FUSED.stats()["entries"] == programs + 2 and _seen_once() == seen + 1
    w.grad = None
    with tg.no_grad():
        expected = tg.func.grad(lambda v: _deep(x, v, 0.1234, depth=7))(w)
    _deep(x, w, 0.1234, depth=7).backward()
    np.testing.assert_allclose(w.grad.numpy(), expected.numpy(), rtol=1e-5, atol=1e-7)
    # a smaller batch (an epoch's last) through a reshape: a new structure whose nodes have new
    # shapes, so their kernels would all compile: the fused program at once again
    seen = _seen_once()
    w.grad = None
    _deep(x, w, 0.4321, flat=True).backward()          # new configurations: at once
    w.grad = None
    _deep(x[:7], w, 0.4321, flat=True).backward()
    assert _cache.FUSED.stats()["entries"] == programs + 4 and _seen_once() == seen and not engine._COMPILING
    with tg.no_grad():
        expected = tg.func.grad(lambda v: _deep(x[:7], v, 0.4321, flat=True))(w)
    np.testing.assert_allclose(w.grad.numpy(), expected.numpy(), rtol=1e-5, atol=1e-7)
