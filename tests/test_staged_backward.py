"""The fused backward cut into programs compiled with different XLA options
(``tensorgrad/_autograd/staged.py``): the options change no bit of what their program computes,
and the cut agrees with the one program it replaces and with the node-by-node backward as those
two agree with each other (to rounding: XLA sums a reduction fused with its producers in another
order than one over a materialised array)."""

import threading

import jax
import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.nn as nn
import tensorgrad.nn.functional as F
from tensorgrad import _cache
from tensorgrad._autograd import engine, staged


def _cnn():
    model = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 10))
    x, y = tg.randn(16, 1, 28, 28), tg.randint(0, 10, (16,))
    return model, lambda: F.cross_entropy(model(x), y)


def _mlp():
    model = nn.Sequential(nn.Linear(20, 64), nn.LayerNorm(64), nn.GELU(), nn.Dropout(0.0), nn.Linear(64, 64),
                          nn.Tanh(), nn.Linear(64, 3))
    x, y = tg.randn(32, 20), tg.randn(32, 3)
    return model, lambda: F.mse_loss(model(x), y) + model[0].weight.abs().sum() * 1e-3


def _attention():
    model = nn.ModuleDict({"qkv": nn.Linear(16, 48), "out": nn.Linear(16, 16), "norm": nn.LayerNorm(16)})
    x = tg.randn(4, 10, 16)

    def loss():
        q, k, v = model["qkv"](model["norm"](x)).chunk(3, dim=-1)
        weights = (q @ k.transpose(-1, -2) / 4.0).softmax(-1)
        return (model["out"](weights @ v) + x).pow(2).mean()
    return model, loss


def _grads(model):
    return [np.asarray(p.grad._data) for p in model.parameters()]


def _calls(monkeypatch):
    """An empty fused cache, and the list of (program, arguments) of each fused backward's call."""
    _cache.FUSED.clear()
    calls = []
    original = staged.Staged.__call__

    def spy(self, *args):
        calls.append((self, args))
        return original(self, *args)

    monkeypatch.setattr(staged.Staged, "__call__", spy)
    return calls


def _same_bits(xs, ys):
    assert len(xs) == len(ys)
    for a, b in zip(xs, ys):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def _close(xs, ys):
    for a, b in zip(xs, ys):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("build", [_cnn, _mlp, _attention], ids=["cnn", "mlp", "attention"])
def test_a_cut_backward_keeps_the_bits_of_its_programs_and_agrees_with_the_whole_one(build, monkeypatch):
    monkeypatch.setitem(engine.BACKGROUND, "on", False)
    monkeypatch.setattr(staged, "SWAP_AT", 10**9)         # the cut keeps serving
    calls = _calls(monkeypatch)
    tg.manual_seed(0)
    model, loss = build()
    runs = []
    for _ in range(3):          # node by node or fused-first, then fused
        model.zero_grad()
        loss().backward()
        runs.append(_grads(model))
    assert calls, "no fused backward ran"
    _same_bits(runs[1], runs[2])
    program, args = calls[-1]
    cuts = [run for run in program.programs.values() if run is not staged._WHOLE]
    assert len(cuts) == 1 and len(cuts[0].programs) >= 2, "the backward was not cut"
    assert not program.uncut
    assert _cache.FUSED.stats()["size"] == len(cuts[0].programs)      # each program counts
    cut = jax.tree_util.tree_leaves(program(*args))
    # the eager options change no bit: the same cut compiled with XLA's defaults throughout
    traced = program.plain.trace(*args)
    defaults = staged._Cut(traced.jaxpr, staged._cut(traced.jaxpr.jaxpr), traced.out_tree, None)
    _same_bits(cut, jax.tree_util.tree_leaves(defaults(jax.tree_util.tree_leaves(args))))
    _close(cut, jax.tree_util.tree_leaves(jax.jit(program.plain)(*args)))
    monkeypatch.setattr(engine, "_FUSED_MAX_NODES", 0)        # node by node
    model.zero_grad()
    loss().backward()
    _close(_grads(model), runs[-1])


@pytest.mark.parametrize("background", [False, True])
def test_the_whole_program_takes_over_from_the_cut(background, monkeypatch):
    monkeypatch.setitem(engine.BACKGROUND, "on", background)
    calls = _calls(monkeypatch)
    tg.manual_seed(0)
    model, loss = _mlp()
    runs = []

    def step():
        model.zero_grad()
        loss().backward()
        runs.append(_grads(model))
        for thread in [t for t in threading.enumerate() if t.name == "tensorgrad-fused-compile"]:
            thread.join()
    for _ in range(20):         # node by node (or fused), then the cut, then the whole program
        step()
        if calls and list(calls[-1][0].programs.values()) == [staged._WHOLE]:
            break
    program, args = calls[-1]
    assert list(program.programs.values()) == [staged._WHOLE]
    assert len(program.programs) == 1          # one signature
    cut_runs = len(calls)
    if not background:
        assert cut_runs == staged.SWAP_AT       # the swap compiled in the third call
    step()
    step()
    _same_bits(runs[-2], runs[-1])              # the whole program's steps
    whole = jax.tree_util.tree_leaves(jax.jit(program.plain)(*args))
    _same_bits(jax.tree_util.tree_leaves(program(*args)), whole)     # the whole program serves now
    traced = program.plain.trace(*args)
    cut = staged._Cut(traced.jaxpr, staged._cut(traced.jaxpr.jaxpr), traced.out_tree, staged.eager_options())
    _close(jax.tree_util.tree_leaves(cut(jax.tree_util.tree_leaves(args))), whole)
    if not background:          # (behind, the first call compiles in a thread: its result is dropped)
        first = len(runs) - 2 - cut_runs        # the first backward the cut served
        _same_bits(runs[first], runs[first + cut_runs - 1])      # the cut's steps
        _close(runs[first], runs[-1])


def test_a_backward_without_a_bulk_of_same_bits_runs_as_one_program(monkeypatch, undeferred):
    """A chain of ``sin``, products and ``tanh``: a transcendental function between every few
    products leaves no bulk worth a program of its own (the engine's fused program: deferred,
    this chain's backward is its segment's program, ``tests/test_deferred.py``)."""
    monkeypatch.setitem(engine.BACKGROUND, "on", False)
    _cache.FUSED.clear()
    x = tg.randn(3, 4, requires_grad=True)
    runs = []
    for _ in range(3):
        x.grad = None
        y = x
        for _ in range(10):
            y = (y.sin() * 1.5 + 0.25).tanh()
            y = y * y
        y.sum().backward()
        runs.append([np.asarray(x.grad._data)])
    _same_bits(runs[1], runs[2])
    entry = next(iter(_cache.FUSED._entries.values()))[0]
    assert list(entry.programs.values()) == [staged._WHOLE]
    assert _cache.FUSED.stats()["size"] == 1
    # nothing to cut at any shape: later calls go to the one program without a signature of theirs
    assert entry.uncut
    x = tg.randn(5, 2, requires_grad=True)

    def chain(v):
        for _ in range(10):
            v = (v.sin() * 1.5 + 0.25).tanh()
            v = v * v
        return v.sum()

    chain(x).backward()
    assert len(entry.programs) == 1
    with tg.no_grad():
        expected = tg.func.grad(chain)(x)
    _close([x.grad._data], [expected._data])


def test_a_backward_inside_a_trace_runs_the_whole_program(monkeypatch):
    monkeypatch.setitem(engine.BACKGROUND, "on", False)
    _cache.FUSED.clear()
    tg.manual_seed(0)
    model, loss = _mlp()
    eager = []
    for _ in range(2):
        model.zero_grad()
        loss().backward()
        eager.append(_grads(model))
    entry = next(v for v in _cache.FUSED._entries.values())[0]
    before = dict(entry.programs)

    def step(p_arrays):
        with tg.no_grad():
            for p, a in zip(model.parameters(), p_arrays):
                p.data = tg.from_jax(a)
        model.zero_grad()
        loss().backward()
        return [p.grad.jax() for p in model.parameters()]

    arrays = [p.detach().jax() for p in model.parameters()]
    traced = jax.jit(step)(arrays)
    assert entry.programs == before            # no cut made for a call inside the trace
    for a, b in zip(traced, eager[-1]):
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-6, atol=1e-7)
