"""tensorgrad.compile: a compiled step leaves every tensor as the eager step leaves it."""

import copy
import sys
import threading
import warnings

import jax
import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.nn as nn
import tensorgrad.nn.functional as F

from threads import in_threads


def _mlp(dropout=0.0, norm=False):
    tg.manual_seed(0)
    layers = [nn.Linear(4, 8)]
    if norm:
        layers.append(nn.BatchNorm1d(8))
    layers += [nn.Tanh(), nn.Dropout(dropout), nn.Linear(8, 3)]
    return nn.Sequential(*layers)


def _batches(n, seed=1):
    rng = np.random.default_rng(seed)
    return [(tg.tensor(rng.normal(size=(6, 4)).astype(np.float32)), tg.tensor(rng.integers(0, 3, 6)))
            for _ in range(n)]


def _twins(make_model, make_opt):
    """The same model and optimizer twice: one to run eagerly, one compiled."""
    model = make_model()
    twin = copy.deepcopy(model)
    return (model, make_opt(model.parameters())), (twin, make_opt(twin.parameters()))


def _step_fn(model, opt, zero_inside=True):
    def step(x, y):
        if zero_inside:
            opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def _assert_same(a, b, rtol=1e-6, atol=1e-7):
    for (name, p), q in zip(a.state_dict().items(), b.state_dict().values()):
        np.testing.assert_allclose(np.asarray(p._data), np.asarray(q._data), rtol=rtol, atol=atol, err_msg=name)


OPTIMIZERS = {
    "sgd": lambda ps: tg.optim.SGD(ps, lr=0.1),
    "sgd_momentum_nesterov_wd": lambda ps: tg.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-2),
    "adam": lambda ps: tg.optim.Adam(ps, lr=1e-2),
    "adamw_amsgrad": lambda ps: tg.optim.AdamW(ps, lr=1e-2, amsgrad=True),
    "rmsprop": lambda ps: tg.optim.RMSprop(ps, lr=1e-2, momentum=0.5),
    "adagrad": lambda ps: tg.optim.Adagrad(ps, lr=1e-1, lr_decay=1e-2),
    "nadam": lambda ps: tg.optim.NAdam(ps, lr=1e-2),
    "radam": lambda ps: tg.optim.RAdam(ps, lr=1e-2),
    "adamax": lambda ps: tg.optim.Adamax(ps, lr=1e-2),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_training_steps_match_eager(name):
    (m1, o1), (m2, o2) = _twins(_mlp, OPTIMIZERS[name])
    eager = _step_fn(m1, o1)
    compiled = tg.compile(_step_fn(m2, o2))
    versions = [(p._version, q._version) for p, q in zip(m1.parameters(), m2.parameters())]
    for x, y in _batches(5):
        l1 = eager(x, y)
        l2 = compiled(x, y)
        np.testing.assert_allclose(l2.item(), l1.item(), rtol=1e-6)
        if l2.grad_fn is not None and type(l2.grad_fn).__name__ == "CompiledFunctionBackward":
            with pytest.raises(RuntimeError, match="second time"):
                l2.backward()
    _assert_same(m1, m2, rtol=1e-5, atol=1e-6)
    for p, q, (v1, v2) in zip(m1.parameters(), m2.parameters(), versions):
        np.testing.assert_allclose(np.asarray(q.grad._data), np.asarray(p.grad._data), rtol=1e-5, atol=1e-7)
        assert q._version - v2 == p._version - v1 >= 5
    assert "traced program 1" in compiled.explain()
    assert compiled.explain().count("traced program") == 1, compiled.explain()


def test_dropout_and_batchnorm_state_and_random_stream():
    (m1, o1), (m2, o2) = _twins(lambda: _mlp(dropout=0.5, norm=True), OPTIMIZERS["sgd"])
    eager = _step_fn(m1, o1)
    compiled = tg.compile(_step_fn(m2, o2))
    tg.manual_seed(5)
    losses1 = [eager(x, y).item() for x, y in _batches(4)]
    tg.manual_seed(5)
    losses2 = [compiled(x, y).item() for x, y in _batches(4)]
    np.testing.assert_allclose(losses2, losses1, rtol=1e-6)
    _assert_same(m1, m2)
    assert m2[1].num_batches_tracked.item() == 4
    # the generator's key moves as the eager steps move it
    tg.manual_seed(5)
    [eager(x, y) for x, y in _batches(2)]
    after_eager = tg.rand(2)
    tg.manual_seed(5)
    [compiled(x, y) for x, y in _batches(2)]
    np.testing.assert_array_equal(np.asarray(tg.rand(2)._data), np.asarray(after_eager._data))


def test_train_and_eval_modes_are_guarded():
    model = _mlp(dropout=0.5, norm=True)
    forward = tg.compile(lambda x: model(x).detach())
    x, _ = _batches(1)[0]
    model.eval()
    expected = model(x)
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(forward(x)._data), np.asarray(expected._data), rtol=1e-6, atol=1e-7)
    model.train()
    forward(x)
    forward(x)
    model.eval()
    expected = model(x)     # the running statistics moved in training mode
    np.testing.assert_allclose(np.asarray(forward(x)._data), np.asarray(expected._data), rtol=1e-6, atol=1e-7)
    assert forward.explain().count("traced program") == 2, forward.explain()


def test_zero_grad_outside_and_accumulation_are_guarded():
    (m1, o1), (m2, o2) = _twins(_mlp, OPTIMIZERS["sgd"])
    eager = _step_fn(m1, o1, zero_inside=False)
    compiled = tg.compile(_step_fn(m2, o2, zero_inside=False))
    for k, (x, y) in enumerate(_batches(6)):
        if k % 3 == 0:     # grads accumulate over three steps, then are cleared
            o1.zero_grad()
            o2.zero_grad()
        eager(x, y)
        compiled(x, y)
        for p, q in zip(m1.parameters(), m2.parameters()):
            np.testing.assert_allclose(np.asarray(q.grad._data), np.asarray(p.grad._data), rtol=1e-5, atol=1e-7)
    _assert_same(m1, m2, rtol=1e-5, atol=1e-6)


def test_changed_learning_rate_traces_again():
    (m1, o1), (m2, o2) = _twins(_mlp, lambda ps: tg.optim.SGD(ps, lr=0.1, momentum=0.9))
    s1 = tg.optim.lr_scheduler.StepLR(o1, step_size=2, gamma=0.5)
    s2 = tg.optim.lr_scheduler.StepLR(o2, step_size=2, gamma=0.5)
    eager = _step_fn(m1, o1)
    compiled = tg.compile(_step_fn(m2, o2))
    for x, y in _batches(6):
        eager(x, y)
        compiled(x, y)
        s1.step()
        s2.step()
    _assert_same(m1, m2, rtol=1e-5, atol=1e-6)
    assert compiled.explain().count("traced program") >= 2


def test_compiled_module_forward_is_differentiable():
    model = _mlp()
    twin = copy.deepcopy(model)
    compiled = tg.compile(twin)
    assert repr(compiled).startswith("OptimizedModule(\n  (_orig_mod): Sequential(")
    assert list(compiled.state_dict())[0] == "_orig_mod.0.weight"
    for x, _ in _batches(3):
        out1 = model(x)
        out2 = compiled(x)
        np.testing.assert_allclose(np.asarray(out2._data), np.asarray(out1._data), rtol=1e-6, atol=1e-7)
        assert out2.requires_grad
        (out1 ** 2).sum().backward()
        (out2 ** 2).sum().backward()
    assert type(out2.grad_fn).__name__ == "CompiledFunctionBackward"
    for p, q in zip(model.parameters(), twin.parameters()):
        np.testing.assert_allclose(np.asarray(q.grad._data), np.asarray(p.grad._data), rtol=1e-5, atol=1e-7)
    with tg.no_grad():
        assert not compiled(x).requires_grad


def test_module_compile_compiles_in_place():
    """PyTorch's ``Module.compile``: the module's calls run compiled, hooks included, and it keeps
    its type and state dict; a deep copy is a plain module again."""
    model = _mlp()
    twin = copy.deepcopy(model)
    seen = []
    twin[0].register_forward_hook(lambda mod, args, out: seen.append(out.shape))
    assert twin.compile(mode="max-autotune") is None
    assert type(twin) is type(model) and list(twin.state_dict()) == list(model.state_dict())
    for x, _ in _batches(3):
        out1 = model(x)
        out2 = twin(x)
        np.testing.assert_allclose(np.asarray(out2._data), np.asarray(out1._data), rtol=1e-6, atol=1e-7)
        (out1 ** 2).sum().backward()
        (out2 ** 2).sum().backward()
    assert type(out2.grad_fn).__name__ == "CompiledFunctionBackward"
    assert "traced program" in twin._compiled_call.explain() and len(seen) >= 1
    for p, q in zip(model.parameters(), twin.parameters()):
        np.testing.assert_allclose(np.asarray(q.grad._data), np.asarray(p.grad._data), rtol=1e-5, atol=1e-7)
    assert copy.deepcopy(twin)._compiled_call is None
    plain = _mlp()
    plain.compile(disable=True)
    assert plain._compiled_call is None
    with pytest.raises(RuntimeError, match="Invalid backend"):
        plain.compile(backend="nonsense")
    assert plain._compiled_call is None


def test_compiled_forward_with_input_gradient_and_detach():
    def make():
        w = tg.tensor([1.0, -2.0, 0.5], requires_grad=True)
        return w, lambda x: (w * x).tanh() * x.detach() + (w * 2).data * x

    w1, f = make()
    w2, g = make()
    cg = tg.compile(g)
    for k in range(3):
        x1 = tg.tensor([0.3, 0.2, -0.1]) * (k + 1)
        x1.requires_grad_()
        x2 = x1.detach().clone().requires_grad_()
        f(x1).sum().backward()
        out = cg(x2)
        out.sum().backward()
        np.testing.assert_allclose(np.asarray(x2.grad._data), np.asarray(x1.grad._data), rtol=1e-6, atol=1e-7)
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    np.testing.assert_allclose(np.asarray(w2.grad._data), np.asarray(w1.grad._data), rtol=1e-6, atol=1e-7)


class Cube(tg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2 + 1.0     # deliberately not the true derivative: it must be used


@pytest.mark.parametrize("where", ["step", "forward"])
def test_custom_function_inside_compile(where):
    def run(w, x):
        return Cube.apply(w * x).sum()

    w1 = tg.tensor([1.0, 2.0], requires_grad=True)
    w2 = w1.detach().clone().requires_grad_()
    x = tg.tensor([0.5, -1.0])
    if where == "step":
        def step(w, x):
            w.grad = None
            run(w, x).backward()
            return w.grad * 1
        compiled = tg.compile(step)
        for _ in range(3):
            expected = step(w1, x)
            got = compiled(w2, x)
    else:
        compiled = tg.compile(run)
        for _ in range(3):
            w1.grad = w2.grad = None
            run(w1, x).backward()
            compiled(w2, x).backward()
        expected, got = w1.grad, w2.grad
    np.testing.assert_allclose(np.asarray(got._data), np.asarray(expected._data), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(expected._data), [3 * 0.25 * 0.5 + 0.5, 3 * 4 * -1 - 1])


def test_python_value_inside_step_runs_eagerly_with_a_warning():
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    opt = tg.optim.SGD([w], lr=0.1)

    def step():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        opt.step()
        return loss.item()

    compiled = tg.compile(step)
    assert compiled() == 5.0
    with pytest.warns(UserWarning, match=r"test_compile.py:\d+ \(return loss.item\(\)\)"):
        second = compiled()
    assert abs(second - (0.8 ** 2 + 1.6 ** 2)) < 1e-6
    assert not isinstance(w._cell.value, jax.core.Tracer)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled()      # warned once; later calls run eagerly quietly
    np.testing.assert_allclose(np.asarray(w._data), np.asarray([1.0, 2.0]) * 0.8 ** 3, rtol=1e-6)
    strict = tg.compile(step, fullgraph=True)
    strict()
    with pytest.raises(RuntimeError, match="fullgraph"):
        strict()


def test_failed_trace_restores_every_tensor():
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    opt = tg.optim.SGD([w], lr=0.1, momentum=0.9)
    calls = []

    def step(x):
        opt.zero_grad()
        (w * x).sum().backward()
        opt.step()
        calls.append(1)
        if len(calls) == 2:     # the second call, which traces, fails after every write
            raise ValueError("step failed")
        return w * 1

    compiled = tg.compile(step)
    compiled(tg.ones(2))
    buf = opt.state[w]["momentum_buffer"]
    before = [np.asarray(t._data).copy() for t in (w, w.grad, buf)] + [w._version, w.grad]
    with pytest.raises(ValueError, match="step failed"):
        compiled(tg.ones(2))
    for t, old in zip((w, w.grad, buf), before):
        assert not isinstance(t._cell.value, jax.core.Tracer)
        np.testing.assert_array_equal(np.asarray(t._data), old)
    assert w._version == before[3] and w.grad is before[4]
    compiled(tg.ones(2))
    np.testing.assert_allclose(np.asarray(w._data), [1 - 0.1 - 0.19, 2 - 0.1 - 0.19], rtol=1e-6)


def test_compile_arguments_and_disable():
    f = lambda x: x * 2  # noqa: E731
    assert tg.compile(f, disable=True) is f
    deco = tg.compile(mode="reduce-overhead")
    g = deco(f)
    np.testing.assert_array_equal(np.asarray(g(tg.ones(2))._data), [2.0, 2.0])
    with pytest.raises(RuntimeError):
        tg.compile(3)


def test_compiled_step_inside_jax_jit_traces_through():
    compiled = tg.compile(lambda x: x.sin() * 2)
    out = jax.jit(lambda a: compiled(tg.from_jax(a)).jax())(jax.numpy.ones(2))
    np.testing.assert_allclose(np.asarray(out), 2 * np.sin(np.ones(2)), rtol=1e-6)


def _cnn():
    tg.manual_seed(0)
    # no conv bias: before BatchNorm its gradient is rounding noise, which Adam would amplify
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Dropout(0.3), nn.Linear(4 * 4 * 4, 3))


class _Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        tg.manual_seed(0)
        self.lstm = nn.LSTM(5, 7, num_layers=2, batch_first=True)
        self.fc = nn.Linear(7, 3)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1])


@pytest.mark.parametrize("case", ["cnn_adam", "cnn_sgd_clip_zero_in_place", "lstm_adamw"])
def test_larger_models_match_eager(case):
    make, shape, make_opt, clip, set_to_none = {
        "cnn_adam": (_cnn, (6, 1, 8, 8), lambda ps: tg.optim.Adam(ps, 1e-2), False, True),
        "cnn_sgd_clip_zero_in_place": (_cnn, (6, 1, 8, 8), lambda ps: tg.optim.SGD(ps, 1e-2, momentum=0.9), True,
                                       False),
        "lstm_adamw": (_Recurrent, (4, 6, 5), lambda ps: tg.optim.AdamW(ps, 1e-2), False, True),
    }[case]
    (m1, o1), (m2, o2) = _twins(make, make_opt)

    def make_step(model, opt):
        def step(x, y):
            opt.zero_grad(set_to_none=set_to_none)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            if clip:
                nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            return loss
        return step

    eager, compiled = make_step(m1, o1), tg.compile(make_step(m2, o2))
    rng = np.random.default_rng(0)
    for k in range(4):
        x = tg.tensor(rng.normal(size=shape).astype(np.float32))
        y = tg.tensor(rng.integers(0, 3, shape[0]))
        tg.manual_seed(k)
        expected = eager(x, y).item()
        tg.manual_seed(k)
        assert compiled(x, y).item() == pytest.approx(expected, rel=1e-5)
    _assert_same(m1, m2, rtol=1e-4, atol=1e-6)
    assert compiled.explain().splitlines()[1:] == ["traced program 1: second call"], compiled.explain()


def test_four_ways_example_gives_the_same_losses(capsys):
    import pathlib
    import runpy
    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "train_four_ways.py"
    results = runpy.run_path(str(path), run_name="not_main")["main"](8)
    assert set(results) == {"eager", "tensorgrad.compile", "tensorgrad.func", "func + compile", "jax.jit"}
    reference = results["eager"][0]
    for losses, _ in results.values():
        np.testing.assert_allclose(losses, reference, rtol=1e-4, atol=1e-5)
    assert reference[-1] < reference[0]
    assert "all 5 give the same losses" in capsys.readouterr().out


# ---------------------------------------------------------------------- threads (issue #11)

@pytest.fixture
def fast_switching():
    """Threads switch often, so that they interleave inside each other's traces."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def _tracing(t):
    return isinstance(t._data, jax.core.Tracer)


def test_a_trace_beside_an_eager_thread_loses_none_of_its_writes(fast_switching):
    """The counter case: the step lifts ``counter`` and the random key, which another thread
    writes (``counter.add_``, ``randn``) while the step traces. That thread sees no tracer and
    keeps every update and version bump; the step ends as the eager step does after those draws."""
    n = 300
    counter = tg.zeros(())
    (model, opt), (twin, twin_opt) = _twins(lambda: _mlp(dropout=0.5), OPTIMIZERS["sgd"])
    xs = _batches(4)
    tracing, counted = threading.Event(), threading.Event()

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y) + counter * 0
        if _tracing(loss) and not tracing.is_set():
            tracing.set()
            assert counted.wait(60)
        loss.backward()
        opt.step()
        return loss

    compiled = tg.compile(step)
    version = counter._version
    rng = tg.get_rng_state()
    losses = []

    def counting():
        assert tracing.wait(60)
        for _ in range(n):
            counter.add_(1.0)
            tg.randn(2)
        counted.set()

    errors = in_threads(lambda: losses.extend(compiled(x, y).item() for x, y in xs), counting)
    assert not errors, errors
    assert counter.item() == n and counter._version == version + n
    assert compiled.explain().count("traced program") == 1, compiled.explain()
    # the eager twin: the other thread's draws came before the second (traced) step ran
    tg.set_rng_state(rng)
    eager = []
    eager_step = _step_fn(twin, twin_opt)
    for k, (x, y) in enumerate(xs):
        if k == 1:
            for _ in range(n):
                tg.randn(2)
        eager.append(eager_step(x, y).item())
    np.testing.assert_allclose(losses, eager, rtol=1e-5)
    _assert_same(model, twin, rtol=1e-5, atol=1e-6)


def test_the_same_compiled_function_in_two_threads(fast_switching):
    """One compiled forward of a shared model, and one compiled step given each thread's own
    model, called from two threads that trace at the same time: every result is the eager one."""
    shared = _mlp()
    forward = tg.compile(lambda x: shared(x))

    both_tracing = threading.Barrier(2, timeout=60)
    held = threading.local()

    @tg.compile
    def step(model, opt, x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        if _tracing(loss) and not getattr(held, "done", False):
            held.done = True
            both_tracing.wait()         # both threads are inside their traces here
        loss.backward()
        opt.step()
        return loss

    pairs = [_twins(_mlp, OPTIMIZERS["adam"]) for _ in range(2)]
    batches = [_batches(6, seed=1), _batches(6, seed=2)]
    for k, xs in enumerate(batches):        # each thread its own batch sizes: its own programs
        batches[k] = [(x[: 3 + k].clone(), y[: 3 + k].clone()) for x, y in xs]
    losses = [[], []]

    def run(k):
        (model, opt), _ = pairs[k]
        for x, y in batches[k]:
            out = forward(x)
            with tg.no_grad():
                np.testing.assert_allclose(out.detach().numpy(), shared(x).numpy(), rtol=1e-5, atol=1e-6)
            losses[k].append(step(model, opt, x, y).item())

    errors = in_threads(lambda: run(0), lambda: run(1))
    assert not errors, errors
    for k, ((model, _), (twin, twin_opt)) in enumerate(pairs):
        eager_step = _step_fn(twin, twin_opt)
        eager = [eager_step(x, y).item() for x, y in batches[k]]
        np.testing.assert_allclose(losses[k], eager, rtol=1e-5)
        _assert_same(model, twin, rtol=1e-5, atol=1e-6)
    assert step.explain().count("traced program") == 2, step.explain()
