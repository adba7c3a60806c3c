"""The storage watch: per thread, nesting, and what it means for compile and func in threads."""

import sys
import threading

import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.nn as nn
from tensorgrad._storage import watch as W


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


def _run_threads(*targets):
    errors = []

    def guarded(fn):
        def run():
            try:
                fn()
            except BaseException as e:      # noqa: BLE001  (reported by the test)
                errors.append(e)
        return run

    threads = [threading.Thread(target=guarded(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    return errors


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

    assert not _run_threads(watcher, worker)
    assert not any(t is x for t in seen)
    np.testing.assert_array_equal(np.asarray(x._data), np.full(3, 51.0, np.float32))


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


def _sgd_step(model, opt):
    def step(x):
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        loss.backward()
        opt.step()
        return loss
    return step


def _model():
    tg.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))


def _check_against_eager(model, lrs, xs):
    """The parameters a compiled run ended with equal those of the same steps run eagerly."""
    twin = _model()
    opt = tg.optim.SGD(twin.parameters(), lr=0.1)
    step = _sgd_step(twin, opt)
    for lr, x in zip(lrs, xs):
        opt.param_groups[0]["lr"] = lr
        step(x)
    for p, q in zip(model.parameters(), twin.parameters()):
        np.testing.assert_allclose(np.asarray(p._data), np.asarray(q._data), rtol=1e-5, atol=1e-6)


def _compiled_loop(model, lrs, xs, started=None, until=None, at_least=6, at_most=40):
    """Run a compiled step, with a new learning rate each call (so that it traces again)."""
    opt = tg.optim.SGD(model.parameters(), lr=0.1)
    compiled = tg.compile(_sgd_step(model, opt))
    rng = np.random.default_rng(len(lrs))
    for i in range(at_most):
        if i >= at_least and (until is None or until.is_set()):
            break
        lr = 0.01 + 0.001 * i
        x = tg.tensor(rng.normal(size=(5, 4)).astype(np.float32))
        opt.param_groups[0]["lr"] = lr
        lrs.append(lr)
        xs.append(x)
        loss = compiled(x)
        assert np.isfinite(loss.item())
        if started is not None:
            started.set()
    return compiled


def test_other_threads_writes_survive_a_compiled_step(fast_switching):
    n = 2000
    counter = tg.zeros(())
    version = counter._version
    model = _model()
    lrs, xs = [], []
    started, finished = threading.Event(), threading.Event()
    result = {}

    def trainer():
        result["compiled"] = _compiled_loop(model, lrs, xs, started=started, until=finished)

    def counting():
        started.wait(30)
        for _ in range(n):
            counter.add_(1.0)
        finished.set()

    errors = _run_threads(trainer, counting)
    assert not errors, errors
    assert counter.item() == n
    assert counter._version == version + n
    assert result["compiled"].explain().count("traced program") >= 2
    _check_against_eager(model, lrs, xs)


def test_two_compiled_steps_in_two_threads(fast_switching):
    models = [_model(), _model()]
    runs = [([], []), ([], [])]
    errors = _run_threads(*[lambda m=m, r=r: _compiled_loop(m, *r) for m, r in zip(models, runs)])
    assert not errors, errors
    for model, (lrs, xs) in zip(models, runs):
        _check_against_eager(model, lrs, xs)


def test_func_closure_capture_beside_another_thread(fast_switching):
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    other = tg.tensor([3.0, 4.0], requires_grad=True)
    grads = []

    def transform():
        for _ in range(20):
            out, vjp_fn = tg.func.vjp(lambda x: x * w, tg.ones(2))
            grads.append(vjp_fn(tg.ones(2))[0])
            out.sum().backward()

    def reading():
        for _ in range(200):
            (other * 2).sum()

    assert not _run_threads(transform, reading)
    np.testing.assert_allclose(np.asarray(w.grad._data), np.full(2, 20.0))
    assert other.grad is None
    assert all(np.allclose(np.asarray(g._data), [1.0, 2.0]) for g in grads)
