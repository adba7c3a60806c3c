"""optim.LBFGS against PyTorch: parameters, losses and state after steps, in float64."""

import numpy as np
import pytest

import tensorgrad as tg

from oracle import _oracle, torch  # noqa: F401

RNG = np.random.default_rng(3)
X = RNG.standard_normal((12, 3))
Y = X @ np.array([0.5, -1.0, 2.0]) + 0.1 * RNG.standard_normal(12)


def _rosenbrock(lib, p):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


def _regression(lib, w, b):
    x = lib.tensor(X)
    return ((x @ w + b - lib.tensor(Y)) ** 2).mean()


def _run(lib, problem, starts, steps, **options):
    params = [lib.nn.Parameter(lib.tensor(s, dtype=lib.float64)) for s in starts]
    opt = lib.optim.LBFGS(params, **options)
    losses = []

    def closure():
        opt.zero_grad()
        loss = problem(lib, *params)
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(opt.step(closure).item())
    return [p.detach().numpy() for p in params], losses, opt


CASES = [
    ("rosenbrock", _rosenbrock, [[-1.5, 2.0]], {"lr": 1, "max_iter": 8}),
    ("rosenbrock_wolfe", _rosenbrock, [[-1.5, 2.0]], {"line_search_fn": "strong_wolfe", "max_iter": 10}),
    ("regression_history", _regression, [[0.0, 0.0, 0.0], [0.0]],
     {"lr": 0.5, "history_size": 2, "max_iter": 4, "max_eval": 3}),
]


@pytest.mark.parametrize("name, problem, starts, options", CASES, ids=[c[0] for c in CASES])
def test_lbfgs_matches_pytorch(name, problem, starts, options):
    ours, our_losses, opt = _run(tg, problem, starts, 2, **options)
    theirs, their_losses, ref = _run(torch, problem, starts, 2, **options)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-10, atol=1e-12)
    state, ref_state = opt.state_dict()["state"][0], ref.state_dict()["state"][0]
    assert sorted(state) == sorted(ref_state)
    assert state["n_iter"] == ref_state["n_iter"] and state["func_evals"] == ref_state["func_evals"]
    assert len(state["old_dirs"]) == len(ref_state["old_dirs"])
    np.testing.assert_allclose(state["d"].numpy(), ref_state["d"].numpy(), rtol=1e-9, atol=1e-12)
    assert opt.state_dict()["param_groups"] == ref.state_dict()["param_groups"]


def test_lbfgs_load_state_dict_continues_like_pytorch():
    ours, _, opt = _run(tg, _rosenbrock, [[-1.5, 2.0]], 1, max_iter=5)
    p = tg.nn.Parameter(tg.tensor(ours[0]))
    fresh = tg.optim.LBFGS([p], max_iter=5)
    fresh.load_state_dict(opt.state_dict())

    def closure():
        fresh.zero_grad()
        loss = _rosenbrock(tg, p)
        loss.backward()
        return loss

    fresh.step(closure)
    theirs, _, _ = _run(torch, _rosenbrock, [[-1.5, 2.0]], 2, max_iter=5)
    np.testing.assert_allclose(p.detach().numpy(), theirs[0], rtol=1e-10)


def test_lbfgs_errors_match_pytorch():
    for lib in (tg, torch):
        a = lib.nn.Parameter(lib.zeros(2))
        b = lib.nn.Parameter(lib.zeros(2))
        with pytest.raises(ValueError, match="Invalid learning rate: -1"):
            lib.optim.LBFGS([a], lr=-1)
        with pytest.raises(ValueError, match="doesn't support per-parameter options"):
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        opt = lib.optim.LBFGS([a], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = ((a - 1) ** 2).sum()
            loss.backward()
            return loss

        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            opt.step(closure)
        assert lib.optim.LBFGS([a]).defaults["max_eval"] == 25
