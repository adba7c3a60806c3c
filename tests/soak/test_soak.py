"""Soak runs (long; ``python -m pytest --long -m long -s tests/soak``): memory stays flat over
many steps and bounded over many shapes, and threads training or writing beside a compiled step
lose nothing. Each prints what it measured (resident memory at the start and the end, counts).
"""

import gc
import os
import sys
import threading

import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.nn as nn
import tensorgrad.nn.functional as F
from tensorgrad import _cache

from threads import in_threads

pytestmark = pytest.mark.long


def _rss_mb():
    """This process's resident memory in MiB (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


@pytest.fixture(autouse=True)
def _linux_only():
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("reads resident memory from /proc")


def _mlp(seed=0):
    tg.manual_seed(seed)
    return nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 4))


def _step_of(model, opt):
    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def _data(rows, seed):
    rng = np.random.default_rng(seed)
    return tg.tensor(rng.normal(size=(rows, 8)).astype(np.float32)), tg.tensor(rng.integers(0, 4, rows))


def _report(name, **figures):
    print(f"\n[soak] {name}: " + ", ".join(f"{k}={v}" for k, v in figures.items()), flush=True)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_ten_thousand_steps_in_flat_memory(compiled):
    model = _mlp()
    opt = tg.optim.Adam(model.parameters(), lr=1e-3)
    step = _step_of(model, opt)
    if compiled:
        step = tg.compile(step)
    x, y = _data(64, seed=1)
    for _ in range(500):                # warm up: every kernel and program compiled
        step(x, y)
    gc.collect()
    start = _rss_mb()
    for _ in range(10_000):
        loss = step(x, y)
    gc.collect()
    end = _rss_mb()
    _report(f"10,000 {'compiled' if compiled else 'eager'} steps", rss_start_mb=round(start), rss_end_mb=round(end),
            loss=round(loss.item(), 4), kernels=_cache.stats()["kernels"]["size"])
    assert np.isfinite(loss.item())
    assert end - start < 64, (start, end)


def test_five_hundred_batch_sizes_in_bounded_memory():
    """Every batch size compiles new kernels and a new fused backward; with limits the caches
    evict and memory levels off (without them it grew by gigabytes)."""
    old = _cache.set_limits(kernels=256, fused=16, compiled=8)
    try:
        model = _mlp()
        opt = tg.optim.SGD(model.parameters(), lr=1e-2)
        step = _step_of(model, opt)
        marks = {}
        for rows in range(1, 501):
            x, y = _data(rows, seed=rows)
            step(x, y)
            step(x, y)                  # the second backward of the structure is the fused one
            if rows in (1, 100, 250, 500):
                gc.collect()
                marks[rows] = round(_rss_mb())
        stats = _cache.stats()
        _report("500 batch sizes, eager", rss_mb_at_sizes=marks, kernels=stats["kernels"], fused=stats["fused"],
                jax_cache_sweeps=_cache._SWEEP["sweeps"])
        assert stats["kernels"]["size"] <= 256 and stats["fused"]["size"] <= 16
        assert stats["kernels"]["evictions"] > 0 and stats["fused"]["evictions"] > 0
        assert marks[500] - marks[100] < 300, marks

        compiled = tg.compile(_step_of(model, opt), dynamic=False)     # 100 shapes, on purpose: no warning
        marks = {}
        for rows in range(1, 101):
            x, y = _data(rows, seed=rows)
            for _ in range(3):          # eager first call, trace, compiled run
                compiled(x, y)
            if rows in (1, 25, 100):
                gc.collect()
                marks[rows] = round(_rss_mb())
        held = compiled._signatures.stats()
        _report("100 batch sizes, compiled", rss_mb_at_sizes=marks, programs=held)
        assert held["size"] <= 8 and held["evictions"] > 0
        assert marks[100] - marks[25] < 300, marks
    finally:
        _cache.set_limits(**old)


def test_two_threads_train_separate_models():
    """Two threads each train their own model with their own compiled step (retracing for four
    batch sizes); each model ends as its eager twin."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    steps = 500
    batches = [[_data(16 + 4 * k + j, seed=10 * k + j) for j in range(4)] for k in range(2)]
    models = [_mlp(1), _mlp(2)]
    for m in models:
        m.eval()                        # no dropout: the threads share the random stream
    try:
        def train(k):
            opt = tg.optim.SGD(models[k].parameters(), lr=1e-2)
            step = tg.compile(_step_of(models[k], opt), dynamic=False)     # four batch sizes, on purpose
            for i in range(steps):
                step(*batches[k][i % 4])

        start = _rss_mb()
        errors = in_threads(lambda: train(0), lambda: train(1), timeout=3600)
        end = _rss_mb()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    for k, seed in enumerate((1, 2)):
        twin = _mlp(seed)
        twin.eval()
        step = _step_of(twin, tg.optim.SGD(twin.parameters(), lr=1e-2))
        for i in range(steps):
            step(*batches[k][i % 4])
        for p, q in zip(models[k].parameters(), twin.parameters()):
            np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5)
    _report("two threads, two compiled models", steps_each=steps, rss_start_mb=round(start), rss_end_mb=round(end))


def test_a_compiled_step_beside_an_eager_counter_thread():
    """The counter case: the step lifts ``counter`` and the random key and traces again for each
    batch size, while another thread adds to the counter and draws random numbers."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    model = _mlp()
    opt = tg.optim.SGD(model.parameters(), lr=1e-2)
    counter = tg.zeros((), dtype=tg.float64)
    version = counter._version

    @tg.compile(dynamic=False)      # forty batch sizes on purpose: no warning
    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y) + counter * 0
        loss.backward()
        opt.step()
        return loss

    done = threading.Event()
    adds = [0]

    def count():
        while not done.is_set():
            counter.add_(1.0)
            tg.randn(3)
            adds[0] += 1

    def train():
        try:
            for rows in range(1, 41):
                x, y = _data(rows, seed=rows)
                for _ in range(3):
                    assert np.isfinite(step(x, y).item())
        finally:
            done.set()

    try:
        start = _rss_mb()
        errors = in_threads(train, count, timeout=3600)
        end = _rss_mb()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    traced = step.explain().count("traced program")
    _report("compiled step beside an eager counter thread", adds=adds[0], counter=int(counter.item()),
            version=counter._version - version, traced_programs=traced, rss_start_mb=round(start),
            rss_end_mb=round(end))
    assert counter.item() == adds[0] and counter._version == version + adds[0]
    assert traced >= 40
