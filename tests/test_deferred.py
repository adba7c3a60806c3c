"""Deferred results (``tensorgrad/_storage/lazy.py``) and the one-program backward of a segment
(``tensorgrad/_autograd/deferred.py``): the same values, graphs, gradients and errors as the
eager path and as PyTorch, one program per repeated segment, and the eager path where the
segment cannot serve (hooks, graphs that leave the segment, modified saved tensors)."""

import subprocess
import sys
import threading

import jax
import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad import _cache
from tensorgrad._autograd import deferred as D, engine as E
from tensorgrad._storage import lazy
from tensorgrad._storage.cell import LazyCell
from oracle import torch, _oracle  # noqa: F401

DATA = np.array([[0.5, -1.25, 2.0, 0.0], [3.0, -0.75, 0.1, 1.5], [-2.0, 0.25, 0.9, -0.3]], np.float32)


def chain(m, x):
    """Twenty-odd elementwise ops, each reading the one before."""
    for _ in range(4):
        x = m.sin(x) * 1.5 - 0.25
        x = m.exp(-x * x) + x / 3
    return m.tanh(x)


@pytest.fixture
def segment_calls(monkeypatch):
    """What ``run_segment`` answered in each backward (True: the segment's program served)."""
    calls = []
    original = D.run_segment

    def counted(*args):
        calls.append(original(*args))
        return calls[-1]
    monkeypatch.setattr(E, "run_segment", counted)
    return calls


def _grads(m, fn, *arrays):
    xs = [m.tensor(a, requires_grad=True) for a in arrays]
    out = fn(m, *xs)
    out.backward()
    return out.detach().numpy(), [x.grad.numpy() for x in xs]


def test_a_result_is_deferred_and_computed_when_read_without_torch():
    x = tg.tensor(DATA)
    y = tg.sin(x) * 2 + 1
    assert type(y._cell) is LazyCell
    assert y.shape == (3, 4) and y.dtype is tg.float32 and y.dim() == 2 and y.numel() == 12
    assert type(y._cell) is LazyCell            # shape and dtype computed nothing
    np.testing.assert_allclose(y.numpy(), np.sin(DATA) * 2 + 1, rtol=1e-6)
    assert type(y._cell) is not LazyCell


def test_chain_values_graph_and_gradients_match_pytorch(segment_calls):
    ours, ours_g = _grads(tg, lambda m, x: chain(m, x).sum(), DATA)
    theirs, theirs_g = _grads(torch, lambda m, x: chain(m, x).sum(), DATA)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    np.testing.assert_allclose(ours_g[0], theirs_g[0], rtol=1e-5, atol=1e-6)
    assert segment_calls == [True]


def test_the_graph_is_the_eager_graph():
    def names(t):
        seen = []
        fn = t.grad_fn
        while fn is not None:
            seen.append((type(fn).__name__, [None if f is None else type(f).__name__ for f, _ in fn.next_functions]))
            fn = next((f for f, _ in fn.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"), None)
        return seen
    x = tg.tensor(DATA, requires_grad=True)
    xt = torch.tensor(DATA, requires_grad=True)
    assert names(chain(tg, x).sum()) == names(chain(torch, xt).sum())
    assert names((2 * x - 1).exp().mean()) == names((2 * xt - 1).exp().mean())


@pytest.mark.parametrize("fn", [
    lambda m, x, y: (m.sin(x) * m.cos(y)).sum(),
    lambda m, x, y: ((x + 2) * (x + 2) * 3 + y / (y * y + 1)).mean(),
    lambda m, x, y: (x.exp() - y.sigmoid() * x.relu()).pow(2).sum(),
    lambda m, x, y: (x.abs().sqrt() + m.log1p(y.abs()) - x.neg().tanh()).sum() * 0.5,
])
def test_segment_backward_matches_the_engine_and_pytorch(fn, segment_calls):
    b = DATA[::-1].copy() * 0.7
    ours, ours_g = _grads(tg, fn, DATA, b)
    old = lazy.set_enabled(False)
    try:
        eager_out, eager_g = _grads(tg, fn, DATA, b)
    finally:
        lazy.set_enabled(old)
    theirs, theirs_g = _grads(torch, fn, DATA, b)
    assert segment_calls[0] is True
    np.testing.assert_allclose(ours, eager_out, rtol=1e-6)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    for o, e, t in zip(ours_g, eager_g, theirs_g):
        np.testing.assert_allclose(o, e, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6)


def test_no_grad_results_and_inputs_without_grad_pass_no_gradient(segment_calls):
    def fn(m):
        w = m.tensor([1.0, 2.0, -3.0], requires_grad=True)
        c = m.tensor([0.5, 0.5, 2.0])
        a = w * w
        with m.no_grad():
            b = a * 3
        (a * b + w * c).sum().backward()
        return w.grad.numpy()
    np.testing.assert_array_equal(fn(tg), fn(torch))
    assert segment_calls == [True]


def test_two_leaves_over_one_array_get_their_own_gradients():
    def fn(m):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = a.detach().requires_grad_()
        (a * 3 + b * b).sum().backward()
        return a.grad.numpy(), b.grad.numpy()
    for ours, theirs in zip(fn(tg), fn(torch)):
        np.testing.assert_array_equal(ours, theirs)


def test_a_leaf_written_between_two_reads_keeps_each_value():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x + 1
        with m.no_grad():
            x.mul_(10)
        z = (y + x).sum()
        z.backward()
        return z.item(), x.grad.numpy()
    assert fn(tg)[0] == fn(torch)[0]
    np.testing.assert_array_equal(fn(tg)[1], fn(torch)[1])


def test_a_saved_tensor_modified_in_place_raises_pytorchs_error():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x.sin() * 2
        z = y * y
        y.add_(1)
        z.sum().backward()
    with pytest.raises(RuntimeError) as theirs:
        fn(torch)
    with pytest.raises(RuntimeError) as ours:
        fn(tg)
    assert str(ours.value) == str(theirs.value)


def test_hooks_retained_grads_and_second_backwards_take_the_engine(segment_calls):
    def fn(m):
        x = m.tensor([0.5, 1.5], requires_grad=True)
        y = x.sin() * 2
        seen = []
        y.register_hook(lambda g: seen.append(g.numpy().copy()))
        z = y.tanh()
        z.retain_grad()
        s = (z * z).sum()
        s.backward(retain_graph=True)
        s.backward()
        with pytest.raises(RuntimeError) as error:
            s.backward()
        return x.grad.numpy(), z.grad.numpy(), seen, str(error.value)
    ours, theirs = fn(tg), fn(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.array(ours[2]), np.array(theirs[2]), rtol=1e-5, atol=1e-6)
    assert ours[3] == theirs[3]
    assert True not in segment_calls


def test_a_second_backward_after_the_segment_program_raises_pytorchs_error(segment_calls):
    def fn(m):
        x = m.tensor([0.5, 1.5], requires_grad=True)
        s = (x.exp() * x).sum()
        s.backward()
        with pytest.raises(RuntimeError) as error:
            s.backward()
        return str(error.value)
    assert fn(tg) == fn(torch)
    assert segment_calls[0] is True


def test_graphs_leaving_the_segment_are_walked_by_the_engine(segment_calls):
    def fn(m):
        w = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        x = m.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        h = (x @ w).tanh() * 2     # a product (not deferred) between the leaves and the segment
        (h + x).sum().backward()
        return w.grad.numpy(), x.grad.numpy()
    for ours, theirs in zip(fn(tg), fn(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert segment_calls == [False]


def test_independent_computations_read_together_become_one_segment(segment_calls):
    x = tg.tensor(DATA, requires_grad=True)
    a = x.sin()
    b = x.cos()
    assert a._cell.host.seg is not b._cell.host.seg
    c = (a * b).sum()
    assert a._cell.host.seg is c._cell.host.seg is b._cell.host.seg
    c.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(2 * DATA), rtol=1e-5, atol=1e-6)
    assert segment_calls == [True]


def test_a_training_loop_compiles_its_segment_programs_once():
    x = tg.tensor(DATA, requires_grad=True)

    def step():
        x.grad = None
        loss = chain(tg, x).sum()
        loss.backward()
        return loss.item()
    step()
    before = _cache.stats()["kernels"]["traces"]
    for _ in range(5):
        step()
    assert _cache.stats()["kernels"]["traces"] == before


def test_shape_errors_are_raised_where_the_op_is_called():
    a = tg.ones(2, 3) * 2
    b = tg.ones(4) + 1
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\)"):
        a + b
    assert a.tolist() == [[2.0] * 3] * 2 and b.tolist() == [2.0] * 4


def test_a_result_read_in_another_thread():
    y = tg.tensor(DATA).exp() - 1
    seen = []
    thread = threading.Thread(target=lambda: seen.append(y.numpy()))
    thread.start()
    thread.join()
    np.testing.assert_allclose(seen[0], np.exp(DATA) - 1, rtol=1e-6)


def test_constants_deferred_inside_a_trace_are_concrete_without_torch():
    c = tg.tensor(DATA) * 3

    @jax.jit
    def f(a):
        d = c + 1
        return a + d._data

    np.testing.assert_allclose(np.asarray(f(jax.numpy.ones((3, 4), np.float32))), DATA * 3 + 2, rtol=1e-6)


def test_compiled_steps_and_func_transforms_see_no_placeholders_without_torch():
    model = tg.nn.Linear(4, 2)
    opt = tg.optim.SGD(model.parameters(), lr=0.1)

    @tg.compile
    def step(x):
        opt.zero_grad()
        loss = (model(x).tanh() * 2 + 1).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    x = tg.tensor(DATA)
    losses = [step(x).item() for _ in range(3)]
    assert losses[2] < losses[0]
    g = tg.func.grad(lambda t: (t.sin() * 2).sum())(tg.tensor(DATA))
    np.testing.assert_allclose(g.numpy(), 2 * np.cos(DATA), rtol=1e-6)


def test_a_deferred_result_made_a_leaf_gets_its_gradient():
    def fn(m):
        with m.no_grad():
            y = m.tensor([1.0, 2.0]) * 3
        y.requires_grad_()
        (y * y).sum().backward()
        return y.grad.numpy()
    np.testing.assert_array_equal(fn(tg), fn(torch))


def test_long_loops_are_cut_into_segments():
    x = tg.tensor([1.0, 2.0])
    for _ in range(3 * lazy.MAX_EQS + 5):
        x = x * 0.99 + 0.01
    expected = np.array([1.0, 2.0], np.float32)
    for _ in range(3 * lazy.MAX_EQS + 5):
        expected = expected * np.float32(0.99) + np.float32(0.01)
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-5)


def test_deferral_is_switched_off_by_the_environment_without_torch():
    code = ("import tensorgrad as tg; from tensorgrad._storage.cell import Cell; "
            "y = tg.ones(3) * 2; assert type(y._cell) is Cell, type(y._cell); print(y.tolist())")
    out = subprocess.run([sys.executable, "-c", code], env={**__import__("os").environ, "TENSORGRAD_DEFER": "0"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[2.0, 2.0, 2.0]"


def test_eager_and_deferred_agree_on_a_module_step(undeferred):
    def run():
        tg.manual_seed(0)
        model = tg.nn.Sequential(tg.nn.Linear(4, 8), tg.nn.Tanh(), tg.nn.Linear(8, 1))
        opt = tg.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        x = tg.tensor(DATA)
        for _ in range(3):
            opt.zero_grad()
            loss = ((model(x) - 1) ** 2).mean() + 0.01 * sum((p * p).sum() for p in model.parameters())
            loss.backward()
            opt.step()
        return [p.detach().numpy() for p in model.parameters()]
    off = run()
    lazy.set_enabled(True)
    on = run()
    for a, b in zip(on, off):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _cnn_step(deferred):
    """A convolution, its ReLU, a pool and a classifier's loss, forward and backward, with the ops
    deferred or not: the loss, the gradients, and the ops of the segments the conv's ReLU and the
    loss were recorded in (None where nothing was deferred)."""
    old = lazy.set_enabled(deferred)
    try:
        rng = np.random.default_rng(3)
        x = tg.tensor(rng.standard_normal((4, 2, 9, 9)).astype(np.float32))
        w = tg.tensor(rng.standard_normal((5, 2, 3, 3)).astype(np.float32), requires_grad=True)
        b = tg.tensor(rng.standard_normal(5).astype(np.float32), requires_grad=True)
        target = tg.tensor([0, 3, 1, 4])
        h = tg.nn.functional.relu(tg.nn.functional.conv2d(x, w, b))
        h_ops = _segment_ops(h)
        logits = tg.nn.functional.max_pool2d(h, 2).flatten(1)[:, :5]
        loss = tg.nn.functional.cross_entropy(logits, target)
        loss_ops = _segment_ops(loss)
        loss.backward()
        return loss.item(), w.grad.numpy(), b.grad.numpy(), h_ops, loss_ops
    finally:
        lazy.set_enabled(old)


def _segment_ops(t):
    """The ops of the segment ``t``'s deferred result is in, None where it was not deferred."""
    if type(t._cell) is not LazyCell:
        return None
    return [op.name for op, _, _, _ in t._cell.host.seg.step.equations()]


def test_a_convolution_with_its_activation_and_a_classifier_loss_are_one_program_each():
    value, w_grad, b_grad, h_ops, loss_ops = _cnn_step(True)
    assert h_ops == ["convolution", "relu"]
    assert loss_ops == ["log_softmax", "nll_loss"]
    # the same bits as each op's own kernel
    eager = _cnn_step(False)
    assert eager[3] is None and eager[4] is None
    assert value == eager[0]
    np.testing.assert_array_equal(w_grad, eager[1])
    np.testing.assert_array_equal(b_grad, eager[2])
    before = _cache.stats()["kernels"]["traces"]
    for _ in range(3):
        _cnn_step(True)
    assert _cache.stats()["kernels"]["traces"] == before
