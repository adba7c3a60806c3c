"""Optimizers on complex parameters against PyTorch.

PyTorch's single-tensor updates move a complex parameter through its real view
(``torch.view_as_real``), its gradient and its state too: each real and imaginary part is a
coordinate of its own (Adam's second moment is kept per part, not as the complex square of the
gradient). SGD alone updates in complex arithmetic (which is the same thing for its linear rule).
Each optimizer here steps a mix of complex64 and float32 parameters with fixed gradients (from
NumPy, different each step) in tensorgrad and in PyTorch; the parameters and the state dict must
agree after every step, on the fused path (``optim/_fused.py``) and the eager one.
"""

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad.optim import _fused

from oracle import _oracle, torch  # noqa: F401  (the autouse fixture that skips without PyTorch)

RNG = np.random.default_rng(7)
STEPS = 5
# complex64 and float32 parameters, mixed in one group
KINDS = [("complex64", (3, 4)), ("float32", (4,)), ("complex64", (5,)), ("float32", (2, 3))]


def _sample(dtype, shape, imag_scale=3.0):
    real = RNG.standard_normal(shape).astype(np.float32)
    if dtype == "float32":
        return real
    # the imaginary parts on another scale than the real ones, so that a moment kept per complex
    # number (not per part) shows
    return (real + 1j * imag_scale * RNG.standard_normal(shape)).astype(np.complex64)


INIT = [_sample(d, s) for d, s in KINDS]
GRADS = [[_sample(d, s) * np.float32(0.5) for d, s in KINDS] for _ in range(STEPS)]

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "weight_decay": 0.05, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.99), "maximize": True, "decoupled_weight_decay": True,
              "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.3, "maximize": True}),
    ("Adamax", {"lr": 0.02}),
    ("Adamax", {"lr": 0.02, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.02}),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {"lr": 0.02}),
    # betas (0.9, 0.9): the rectified branch from the third step
    ("RAdam", {"lr": 0.02, "weight_decay": 0.1, "betas": (0.9, 0.9)}),
    ("RAdam", {"lr": 0.02, "weight_decay": 0.1, "betas": (0.9, 0.9), "decoupled_weight_decay": True,
               "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "maximize": True, "initial_accumulator_value": 0.2}),
    ("Adadelta", {"lr": 1.0}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True, "weight_decay": 0.1, "maximize": True}),
    # finished before: a check that they stay right
    ("Rprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.01, "etas": (0.4, 1.3), "maximize": True}),
    ("ASGD", {"lr": 0.01, "t0": 2}),
    ("ASGD", {"lr": 0.01, "lambd": 1e-2, "t0": 1, "weight_decay": 0.1, "maximize": True}),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CONFIGS)]
FUSED = [(c, i) for c, i in zip(CONFIGS, IDS) if c[0] in ("SGD", "Adam", "AdamW")]


def _numpy(t):
    return t.detach().numpy().copy()


def _plain(obj):
    """State dicts as nested Python/NumPy values, for comparison across frameworks."""
    if isinstance(obj, (tg.Tensor, torch.Tensor)):
        return ("tensor", str(obj.dtype).replace("torch.", ""), obj.detach().numpy().copy())
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_plain(v) for v in obj)
    return obj


def _assert_close_state(a, b, where):
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert a[:2] == b[:2], where
        np.testing.assert_allclose(a[2], b[2], rtol=1e-5, atol=1e-6, err_msg=where)
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            _assert_close_state(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_close_state(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def _history(T, name, kwargs):
    """The parameters and the state dict before the first step and after each, and at the end
    the version counters of the parameters and their state tensors."""
    params = [T.tensor(a, requires_grad=True) for a in INIT]
    opt = getattr(T.optim, name)(params, **kwargs)
    out = [([_numpy(p) for p in params], _plain(opt.state_dict()))]
    for k in range(STEPS):
        for p, g in zip(params, GRADS[k]):
            p.grad = T.tensor(g)
        opt.step()
        out.append(([_numpy(p) for p in params], _plain(opt.state_dict())))
    versions = [(p._version, sorted((k, v._version) for k, v in opt.state[p].items() if isinstance(v, T.Tensor)))
                for p in params]
    return out, versions


def _compare(name, kwargs):
    ours, our_versions = _history(tg, name, kwargs)
    theirs, their_versions = _history(torch, name, kwargs)
    assert our_versions == their_versions
    for k, ((a, sa), (b, sb)) in enumerate(zip(ours, theirs)):
        for i, (x, y) in enumerate(zip(a, b)):
            assert x.dtype == y.dtype
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6, err_msg=f"param {i} after step {k}")
        _assert_close_state(sa, sb, f"state_dict after step {k}")


@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=IDS)
def test_complex_and_real_parameters_step_as_torch(name, kwargs):
    _compare(name, kwargs)


@pytest.mark.parametrize("name, kwargs", [c for c, _ in FUSED], ids=[i for _, i in FUSED])
def test_complex_parameters_step_as_torch_without_the_fused_program(name, kwargs, monkeypatch):
    monkeypatch.setattr(_fused, "FUSED_TYPES", {})
    _compare(name, kwargs)


@pytest.mark.parametrize("name, kwargs", [c for c, _ in FUSED], ids=[i for _, i in FUSED])
def test_fused_steps_on_complex_parameters_match_the_eager_steps_without_torch(name, kwargs, monkeypatch):
    """The fused program serves complex parameters (or leaves them to the eager update) with the
    eager update's values and version counters."""
    def run():
        params = [tg.tensor(a, requires_grad=True) for a in INIT]
        opt = getattr(tg.optim, name)(params, **kwargs)
        for k in range(STEPS):
            for p, g in zip(params, GRADS[k]):
                p.grad = tg.tensor(g)
            opt.step()
        state = [sorted((k, v._version) for k, v in opt.state[p].items() if k != "step") for p in params]
        return [_numpy(p) for p in params], [p._version for p in params], state

    fused = run()
    monkeypatch.setattr(_fused, "FUSED_TYPES", {})
    eager = run()
    for a, b in zip(fused[0], eager[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)     # XLA may fuse a multiply-add
    assert fused[1:] == eager[1:]


def test_a_tiny_complex_adam_step_keeps_the_moments_per_part():
    """One Adam step on ``1+2j`` with gradient ``0.1+2j``: the second moment is
    ``0.001 * (0.01 + 4j)`` (per part), not ``0.001 * (0.1+2j)**2``, and each part moves by ``lr``."""
    results = []
    for T in (tg, torch):
        p = T.tensor([1 + 2j], dtype=T.complex64, requires_grad=True)
        p.grad = T.tensor([0.1 + 2j], dtype=T.complex64)
        opt = T.optim.Adam([p], lr=0.1)
        opt.step()
        results.append((_numpy(p), _numpy(opt.state[p]["exp_avg_sq"])))
    np.testing.assert_allclose(results[0][1], [0.001 * (0.01 + 4j)], rtol=1e-5)
    np.testing.assert_allclose(results[0][0], [0.9 + 1.9j], rtol=1e-6)
    for x, y in zip(results[0], results[1]):
        np.testing.assert_allclose(x, y, rtol=1e-6)


# ------------------------------------------------------------------ LBFGS (closure-driven)
# in double precision (complex128 and float64), as tests/test_amp_lbfgs.py: its line search and
# stopping tests compare losses near the minimum, where float32 rounding decides
# f(p) = sum(w_re * (Re p - t_re)^2 + w_im * (Im p - t_im)^2) over complex p, plus a real term; its
# gradient in PyTorch's convention is df/dRe + 1j * df/dIm
W = [np.abs(_sample(d, s)) + np.float32(0.5) for d, s in KINDS]
TARGET = [_sample(d, s) for d, s in KINDS]


def _objective(values):
    loss = 0.0
    grads = []
    for v, w, t in zip(values, W, TARGET):
        d = v - t
        if np.iscomplexobj(v):
            loss += float(np.sum(w.real * d.real ** 2 + w.imag * d.imag ** 2))
            g = 2 * w.real * d.real + 1j * 2 * w.imag * d.imag
        else:
            loss += float(np.sum(w * d ** 2 + 0.1 * d ** 4))
            g = 2 * w * d + 0.4 * d ** 3
        grads.append(g)
    return loss, grads


def _lbfgs(T, kwargs, steps=3):
    params = [T.tensor(a.astype(np.complex128 if np.iscomplexobj(a) else np.float64), requires_grad=True)
              for a in INIT]
    opt = T.optim.LBFGS(params, **kwargs)

    def closure():
        loss, grads = _objective([_numpy(p) for p in params])
        for p, g in zip(params, grads):
            p.grad = T.tensor(g)
        return T.tensor(loss, dtype=T.float64)

    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        out.append((float(loss), [_numpy(p) for p in params]))
    return out, opt.state_dict()["state"][0]


@pytest.mark.parametrize("kwargs", [{"lr": 0.5, "max_iter": 6}, {"line_search_fn": "strong_wolfe", "max_iter": 8},
                                    {"lr": 0.3, "history_size": 2, "max_iter": 5, "max_eval": 4}],
                         ids=["fixed", "strong_wolfe", "short_history"])
def test_lbfgs_on_complex_parameters_matches_torch(kwargs):
    ours, state = _lbfgs(tg, kwargs)
    theirs, ref = _lbfgs(torch, kwargs)
    for (la, a), (lb, b) in zip(ours, theirs):
        np.testing.assert_allclose(la, lb, rtol=1e-9)
        for x, y in zip(a, b):
            assert x.dtype == y.dtype
            np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-10)
    assert sorted(state) == sorted(ref)
    assert (state["n_iter"], state["func_evals"]) == (ref["n_iter"], ref["func_evals"])
    # the flat vectors are over the real views: two float64 coordinates per complex number
    for key in ("d", "prev_flat_grad"):
        assert str(state[key].dtype) == str(ref[key].dtype) and tuple(state[key].shape) == tuple(ref[key].shape)
        np.testing.assert_allclose(_numpy(state[key]), _numpy(ref[key]), rtol=1e-8, atol=1e-10)


# ------------------------------------------------------------------ tensorgrad.compile
def _train_step(T, params, opt, x, y):
    opt.zero_grad()
    w, b = params
    out = x.to(T.complex64) @ w                    # complex linear layer
    loss = ((out.abs() - y) ** 2).mean() + (b ** 2).sum() * 0.1
    loss.backward()
    opt.step()
    return loss


@pytest.mark.parametrize("name, kwargs", [("SGD", {"lr": 0.05, "momentum": 0.9}), ("Adam", {"lr": 0.01}),
                                          ("AdamW", {"lr": 0.01, "amsgrad": True}), ("RMSprop", {"lr": 0.01}),
                                          ("Adagrad", {"lr": 0.1}), ("NAdam", {"lr": 0.01})],
                         ids=["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "NAdam"])
def test_a_compiled_training_step_with_a_complex_parameter_matches_eager_and_torch(name, kwargs):
    rng = np.random.default_rng(1)
    w0 = _sample("complex64", (4, 3))
    b0 = rng.standard_normal(3).astype(np.float32)
    batches = [(rng.standard_normal((6, 4)).astype(np.float32), np.abs(rng.standard_normal((6, 3))).astype(np.float32))
               for _ in range(4)]
    runs = []
    for T, compiled in ((tg, False), (tg, True), (torch, False)):
        params = [T.tensor(w0, requires_grad=True), T.tensor(b0, requires_grad=True)]
        opt = getattr(T.optim, name)(params, **kwargs)

        def step(x, y, T=T, params=params, opt=opt):
            return _train_step(T, params, opt, x, y)

        run = tg.compile(step) if compiled else step
        losses = [run(T.tensor(x), T.tensor(y)).detach().item() for x, y in batches]
        runs.append((losses, [_numpy(p) for p in params], _plain(opt.state_dict())))
    for losses, values, state in runs[1:]:
        np.testing.assert_allclose(losses, runs[0][0], rtol=1e-5)
        for x, y in zip(values, runs[0][1]):
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)
        _assert_close_state(state, runs[0][2], "state_dict")
