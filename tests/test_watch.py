"""The storage watch: per thread, nesting, and what it means for compile and func in threads."""

import sys
import threading

import jax
import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.nn as nn
from tensorgrad._storage import watch as W

from threads import in_threads


class _Log(W.Watch):
    def __init__(self):
        self.reads, self.writes, self.cells = [], [], []

    def read(self, t):
        self.reads.append(t)

    def write(self, t):
        self.writes.append(t)

    def new_cell(self, cell):
        self.cells.append(cell)


@pytest.fixture
def fast_switching():
    """Threads switch often, so that they interleave inside each other's traces."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def test_watch_sees_reads_writes_and_cells_and_nests():
    x = tg.ones(3)
    assert W.ACTIVE[0] == 0
    with _Log() as outer:
        y = x * 2
        with _Log() as inner:
            x.add_(1.0)
            assert W.ACTIVE[0] == 2
    assert W.ACTIVE[0] == 0
    assert any(t is x for t in outer.reads) and any(t is x for t in inner.reads)
    assert any(t is x for t in inner.writes) and any(t is x for t in outer.writes)
    assert any(c is y._cell for c in outer.cells) and not any(c is y._cell for c in inner.cells)
    seen = len(outer.reads)
    with _Log() as after:
        x + 1
    assert len(outer.reads) == seen and any(t is x for t in after.reads)


def test_watch_sees_only_its_own_thread():
    x = tg.ones(3)
    opened, done = threading.Event(), threading.Event()
    seen = []

    def watcher():
        with _Log() as log:
            opened.set()
            done.wait(30)
        seen.extend(log.reads + log.writes)

    def worker():
        opened.wait(30)
        for _ in range(50):
            x.add_(1.0)
        done.set()

    assert not in_threads(watcher, worker)
    assert not any(t is x for t in seen)
    np.testing.assert_array_equal(np.asarray(x._data), np.full(3, 51.0, np.float32))


def test_modules_and_optimizers_announce_themselves():
    from tensorgrad._hooks import MODULE_CALL, OPTIMIZER_STEP
    model = nn.Linear(2, 1)
    opt = tg.optim.SGD(model.parameters(), lr=0.1)
    seen = []
    with MODULE_CALL.listen(seen.append), OPTIMIZER_STEP.listen(seen.append):
        model(tg.ones(2)).sum().backward()
        opt.step()
    model(tg.ones(2))
    assert seen == [model, opt]
    assert not MODULE_CALL.listeners and not OPTIMIZER_STEP.listeners


def test_compile_patches_no_class():
    w = tg.ones(2, requires_grad=True)
    accessors = []

    @tg.compile
    def step(x):
        accessors.append((type(w).__dict__["_data"], type(w).__dict__["_write"], type(w).__dict__["_grad"]))
        return (w * x).sum()

    before = (tg.Tensor.__dict__["_data"], tg.Tensor.__dict__["_write"], tg.Tensor.__dict__["_grad"])
    for _ in range(3):
        step(tg.ones(2))
    assert len(accessors) >= 2         # the eager first call and a trace
    assert all(a == before for a in accessors)


def _once(fn):
    """``fn`` on the first call only."""
    done = []

    def call():
        if not done:
            done.append(True)
            fn()
    return call


def _sgd_step(model, opt, in_trace=None):
    """A training step; ``in_trace()`` runs in the middle of it while tensorgrad.compile traces it."""
    def step(x):
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        if in_trace is not None and isinstance(loss._data, jax.core.Tracer):
            in_trace()
        loss.backward()
        opt.step()
        return loss
    return step


def _model():
    tg.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 1), nn.Tanh())


def _batches(n):
    rng = np.random.default_rng(n)
    return [tg.tensor(rng.normal(size=(5, 4)).astype(np.float32)) for _ in range(n)]


def _compiled_run(model, xs, in_trace=None):
    """The step compiled and called on each batch: the first call runs eagerly, the second
    traces (and calls ``in_trace`` there), the later ones run the compiled program."""
    opt = tg.optim.SGD(model.parameters(), lr=0.1)
    compiled = tg.compile(_sgd_step(model, opt, in_trace))
    for x in xs:
        assert np.isfinite(compiled(x).item())
    return compiled


def _assert_as_eager(model, xs):
    """``model`` ends as the same steps run eagerly leave a fresh model."""
    twin = _model()
    step = _sgd_step(twin, tg.optim.SGD(twin.parameters(), lr=0.1))
    for x in xs:
        step(x)
    for p, q in zip(model.parameters(), twin.parameters()):
        np.testing.assert_allclose(np.asarray(p._data), np.asarray(q._data), rtol=1e-5, atol=1e-6)


def test_other_threads_writes_survive_a_compiled_step():
    """Another thread's in-place writes made while a compiled step traces are neither rolled
    back nor lifted into the trace (the trace waits until they are all done)."""
    n = 1000
    counter = tg.zeros(())
    version = counter._version
    model = _model()
    xs = _batches(4)
    tracing, counted = threading.Event(), threading.Event()
    result = {}

    def wait_for_the_count():
        tracing.set()
        assert counted.wait(30)

    def trainer():
        result["compiled"] = _compiled_run(model, xs, _once(wait_for_the_count))

    def counting():
        assert tracing.wait(30)
        for _ in range(n):
            counter.add_(1.0)
        counted.set()

    errors = in_threads(trainer, counting)
    assert not errors, errors
    assert counter.item() == n
    assert counter._version == version + n
    assert result["compiled"].explain().count("traced program") == 1, result["compiled"].explain()
    _assert_as_eager(model, xs)


def test_two_compiled_steps_in_two_threads(fast_switching):
    """Two threads trace their compiled steps at the same time (both wait for each other in the
    middle of the trace) and both end as their eager twins."""
    models = [_model(), _model()]
    xs = [_batches(4), _batches(5)]
    both_tracing = threading.Barrier(2, timeout=30)
    runs = [lambda m=m, b=b: _compiled_run(m, b, _once(both_tracing.wait)) for m, b in zip(models, xs)]
    errors = in_threads(*runs)
    assert not errors, errors
    for model, batches in zip(models, xs):
        _assert_as_eager(model, batches)


def test_func_closure_capture_beside_another_thread(fast_switching):
    """The tensors a func transform closes over are its own thread's reads: another thread reading
    a tensor that requires grad meanwhile does not make it an input of the transform's node."""
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    other = tg.tensor([3.0, 4.0], requires_grad=True)
    calling, read = threading.Event(), threading.Event()

    def wait_for_the_reads():
        calling.set()
        assert read.wait(30)

    hold = _once(wait_for_the_reads)

    def f(x):
        hold()
        return (x * w).sum()

    def transform():
        g = tg.func.grad(f)(tg.ones(2))
        np.testing.assert_allclose(np.asarray(g._data), [1.0, 2.0])
        g.sum().backward()

    def reading():
        assert calling.wait(30)
        for _ in range(50):
            (other * 2).sum()
        read.set()

    assert not in_threads(transform, reading)
    np.testing.assert_allclose(np.asarray(w.grad._data), [1.0, 1.0])
    assert other.grad is None
