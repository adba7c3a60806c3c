"""Rprop, ASGD, Adafactor and the CyclicLR scheduler against PyTorch.

Each optimizer runs the same steps on the same parameters (a matrix, a 3-d tensor, a vector, a 0-d
tensor, one that never gets a gradient and one whose gradient is missing on some steps) in
tensorgrad and in PyTorch: every step's parameters, the state dict, the repr and the errors must
agree. The schedules compare every learning rate and momentum (or Adam's betas) with PyTorch's.
"""

import copy
import warnings

import numpy as np
import pytest

import tensorgrad as tg

from oracle import _oracle, assert_close_state, error_of, plain_state, raises_alike, torch  # noqa: F401  (the autouse fixture skips without PyTorch)

RNG = np.random.default_rng(1)
SHAPES = [(3, 4), (2, 3, 5), (4,), ()]
INIT = [RNG.standard_normal(s).astype(np.float32) for s in SHAPES]
TARGET = [RNG.standard_normal(s).astype(np.float32) for s in SHAPES]
# noise about as large as the pull to the target: gradients change sign between steps
NOISE = [[RNG.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(8)]
STEPS = 7
SKIPPED_AT = {2, 5}     # the steps where the vector's gradient is None

CONFIGS = [
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.08)}),
    ("Rprop", {"lr": 0.02, "etas": [0.6, 1.1], "step_sizes": [0.015, 10], "maximize": True}),
    ("Rprop", {"lr": 0.03, "foreach": True}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 1e-2, "alpha": 0.5, "t0": 2, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.1, "lambd": 0.5, "t0": 0, "weight_decay": 0.05, "maximize": True}),
    ("ASGD", {"lr": 0.02, "t0": 3.5, "alpha": 1.0, "foreach": True}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.05, "weight_decay": 0.1}),
    ("Adafactor", {"lr": 0.2, "beta2_decay": -0.5, "eps": (1e-30, 1e-2), "d": 2.0, "maximize": True}),
    ("Adafactor", {"lr": 0.5, "beta2_decay": 0.0, "eps": (1e-3, 1e-4), "d": 1.0, "weight_decay": 0.3}),
    ("Adafactor", {"lr": 0.03, "foreach": True}),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CONFIGS)]


def _numpy(t):
    return t.detach().numpy().copy()


def _params(T, dtype="float32"):
    params = [T.tensor(a, requires_grad=True, dtype=getattr(T, dtype)) for a in INIT]
    params.append(T.tensor([1.0, 2.0], requires_grad=True, dtype=getattr(T, dtype)))    # never has a gradient
    return params


def _set_grads(T, params, k):
    for i, (p, target, noise) in enumerate(zip(params, TARGET, NOISE[k])):
        if i == 2 and k in SKIPPED_AT:
            p.grad = None
        else:
            p.grad = T.tensor((_numpy(p) - target) * 0.5 + noise, dtype=p.dtype)


def _run(T, name, kwargs, steps=STEPS, start=0, params=None, opt=None):
    params = _params(T) if params is None else params
    opt = getattr(T.optim, name)(params, **kwargs) if opt is None else opt
    history = []
    for k in range(start, start + steps):
        _set_grads(T, params, k)
        opt.step()
        history.append([_numpy(p) for p in params])
    return params, opt, history


_plain = plain_state
_assert_close_state = assert_close_state


def _assert_same_history(ours, theirs):
    for k, (a, b) in enumerate(zip(ours, theirs)):
        for i, (x, y) in enumerate(zip(a, b)):
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6, err_msg=f"step {k + 1}, parameter {i}")


@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=IDS)
def test_steps_match_torch(name, kwargs):
    params, opt, ours = _run(tg, name, kwargs)
    tparams, topt, theirs = _run(torch, name, kwargs)
    _assert_same_history(ours, theirs)
    # the parameters moved (the comparison is not between two unchanged copies)
    assert not np.allclose(ours[-1][0], INIT[0])
    _assert_close_state(_plain(opt.state_dict()), _plain(topt.state_dict()))
    assert params[-1] not in opt.state and len(opt.state) == len(topt.state) == len(SHAPES)
    assert repr(opt) == repr(topt)


@pytest.mark.parametrize("name, kwargs", [CONFIGS[1], CONFIGS[5], CONFIGS[9]], ids=[IDS[1], IDS[5], IDS[9]])
def test_state_dict_round_trip_continues_like_torch(name, kwargs):
    """Three steps, the state dict deep-copied into a fresh optimizer (over the same parameters),
    three more steps: the same as PyTorch's seven, and as tensorgrad's run straight through."""
    params, first, _ = _run(tg, name, kwargs, steps=3)
    saved = copy.deepcopy(first.state_dict())
    resumed = getattr(tg.optim, name)(params, **kwargs)
    resumed.load_state_dict(saved)
    _assert_close_state(_plain(resumed.state_dict()), _plain(saved))
    _, _, ours = _run(tg, name, kwargs, steps=4, start=3, params=params, opt=resumed)
    _, _, straight = _run(tg, name, kwargs)
    _, topt, theirs = _run(torch, name, kwargs)
    _assert_same_history(ours, theirs[3:])
    for x, y in zip(ours[-1], straight[-1]):
        np.testing.assert_array_equal(x, y)
    _assert_close_state(_plain(resumed.state_dict()), _plain(topt.state_dict()))


@pytest.mark.parametrize("name, kwargs", [CONFIGS[2], CONFIGS[6], CONFIGS[10]], ids=[IDS[2], IDS[6], IDS[10]])
def test_torch_state_dict_via_numpy_resumes_like_torch(name, kwargs):
    """PyTorch's state after three steps, its tensors converted by ``.numpy()``, loads into the
    tensorgrad twin, which then continues exactly as PyTorch does."""
    tparams, topt, _ = _run(torch, name, kwargs, steps=3)
    state = topt.state_dict()
    converted = {"state": {i: {k: v.numpy() for k, v in s.items()} for i, s in state["state"].items()},
                 "param_groups": copy.deepcopy(state["param_groups"])}
    params = [tg.tensor(_numpy(p), requires_grad=True) for p in tparams]
    opt = getattr(tg.optim, name)(params, **kwargs)
    opt.load_state_dict(converted)
    _, _, ours = _run(tg, name, kwargs, steps=4, start=3, params=params, opt=opt)
    _, _, theirs = _run(torch, name, kwargs, steps=4, start=3, params=tparams, opt=topt)
    _assert_same_history(ours, theirs)
    _assert_close_state(_plain(opt.state_dict()), _plain(topt.state_dict()))


@pytest.mark.parametrize("name, kwargs", [CONFIGS[1], CONFIGS[5], CONFIGS[9]], ids=[IDS[1], IDS[5], IDS[9]])
def test_a_tensor_learning_rate_steps_as_torch(name, kwargs):
    def run(T):
        return _run(T, name, dict(kwargs, lr=T.tensor([kwargs["lr"]])))
    _, opt, ours = run(tg)
    _, topt, theirs = run(torch)
    _assert_same_history(ours, theirs)
    _assert_close_state(_plain(opt.state_dict()["state"]), _plain(topt.state_dict()["state"]))
    assert repr(opt) == repr(topt)


@pytest.mark.parametrize("name, kwargs", [CONFIGS[1], CONFIGS[5], CONFIGS[10]], ids=[IDS[1], IDS[5], IDS[10]])
def test_float64_parameters_step_as_torch(name, kwargs):
    results = []
    for T in (tg, torch):
        params = _params(T, "float64")
        _, opt, history = _run(T, name, kwargs, params=params)
        results.append((history, _plain(opt.state_dict())))
    for k, (a, b) in enumerate(zip(results[0][0], results[1][0])):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12, err_msg=f"step {k + 1}")
    _assert_close_state(results[0][1], results[1][1])


@pytest.mark.parametrize("name, kwargs", [CONFIGS[1], CONFIGS[5]], ids=[IDS[1], IDS[5]])
def test_complex_parameters_step_as_torch(name, kwargs):
    """A complex parameter is updated through its real view, as in PyTorch (each of the real and
    imaginary parts its own coordinate)."""
    results = []
    for T in (tg, torch):
        p = T.tensor((INIT[0] + 1j * INIT[0][::-1]).astype(np.complex64), requires_grad=True)
        opt = getattr(T.optim, name)([p], **kwargs)
        history = []
        for k in range(5):
            noise = NOISE[k][0] - 1j * NOISE[k][0].T.reshape(3, 4)
            p.grad = T.tensor((_numpy(p) * 0.5 + noise).astype(np.complex64))
            opt.step()
            history.append(_numpy(p))
        results.append((history, _plain(opt.state_dict())))
    for x, y in zip(results[0][0], results[1][0]):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)
    _assert_close_state(results[0][1], results[1][1])


def test_adafactor_rejects_complex_parameters_like_torch():
    def call(T):
        p = T.tensor([1 + 1j], requires_grad=True)
        p.grad = T.tensor([1 + 0j])
        T.optim.Adafactor([p]).step()
    raises_alike(call)


def test_adafactor_factors_the_last_two_dimensions_like_torch():
    """A matrix and a 3-d tensor keep a row and a column factor (over the last two dimensions), a
    vector and a 0-d tensor a full variance: the state's keys and shapes are PyTorch's."""
    _, opt, _ = _run(tg, "Adafactor", {}, steps=1)
    _, topt, _ = _run(torch, "Adafactor", {}, steps=1)
    shapes = [{k: tuple(v.shape) for k, v in s.items()} for s in opt.state_dict()["state"].values()]
    assert shapes == [{k: tuple(v.shape) for k, v in s.items()} for s in topt.state_dict()["state"].values()]
    assert shapes[1] == {"step": (), "row_var": (2, 3, 1), "col_var": (2, 1, 5)}
    assert shapes[3] == {"step": (), "variance": ()}


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32")])
def test_adafactor_default_eps1_on_tiny_gradients_like_torch(dtypes):
    """With gradients so small that the second moment falls below ``eps1 ** 2``, the default
    ``eps1`` (the machine epsilon of the group's first parameter's dtype, as PyTorch takes it for
    the whole group) decides the update; the updates are compared, not the parameters."""
    results = []
    for T in (tg, torch):
        params = [T.tensor(INIT[0] * 1e-3, dtype=getattr(T, dtypes[0]), requires_grad=True),
                  T.tensor(INIT[2] * 1e-3, dtype=getattr(T, dtypes[1]), requires_grad=True)]
        opt = T.optim.Adafactor(params, lr=0.1)
        deltas = []
        for k in range(4):
            before = [_numpy(p) for p in params]
            for p, noise in zip(params, (NOISE[k][0], NOISE[k][2])):
                p.grad = T.tensor(noise * 1e-9, dtype=p.dtype)
            opt.step()
            deltas.append([_numpy(p) - b for p, b in zip(params, before)])
        results.append(deltas)
    for a, b in zip(*results):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-12)


def test_param_groups_with_their_own_hyperparameters_step_as_torch():
    results = []
    for T in (tg, torch):
        a, b, c, d = _params(T)[:4]
        opts = [
            T.optim.Rprop([{"params": [a]}, {"params": [b, c], "etas": (0.2, 1.3), "lr": 0.1}], lr=0.01),
            T.optim.ASGD([{"params": [a], "t0": 1}, {"params": [b], "lambd": 0.1}], lr=0.02),
            T.optim.Adafactor([{"params": [a, d]}, {"params": [c], "d": 3.0, "weight_decay": 0.2}], lr=0.1),
        ]
        opts[1].add_param_group({"params": [c], "weight_decay": 0.5, "maximize": True})
        history = []
        for opt in opts:
            for k in range(4):
                _set_grads(T, [a, b, c, d], k)
                opt.step()
                history.append([_numpy(p) for p in (a, b, c, d)])
        results.append((history, [repr(o) for o in opts], [_plain(o.state_dict()) for o in opts]))
    _assert_same_history(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]
    for x, y in zip(results[0][2], results[1][2]):
        _assert_close_state(x, y)


@pytest.mark.parametrize("name, kwargs", [("Rprop", {}), ("ASGD", {"t0": 2, "weight_decay": 0.1}),
                                          ("Adafactor", {"weight_decay": 0.1})])
def test_compiled_training_step_matches_eager_without_torch(name, kwargs):
    """Under ``tensorgrad.compile`` the whole step (ASGD's averaging switch and Adafactor's
    clipping included) traces into one program that moves the parameters as the eager steps do."""
    results = []
    for compiled in (False, True):
        w = tg.tensor(INIT[0], requires_grad=True)
        b = tg.tensor(INIT[0][:, 0], requires_grad=True)
        opt = getattr(tg.optim, name)([w, b], **kwargs)

        def step(x):
            opt.zero_grad()
            loss = ((w @ x + b).sin() ** 2).sum()
            loss.backward()
            opt.step()
            return loss

        fn = tg.compile(step) if compiled else step
        for k in range(6):
            fn(tg.tensor(NOISE[k][0][0]))
        results.append(([_numpy(w), _numpy(b)], _plain(opt.state_dict())))
        if compiled:
            assert fn.explain().count("traced program") == 1, fn.explain()
    for x, y in zip(results[0][0], results[1][0]):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)
    _assert_close_state(results[0][1], results[1][1])


def test_unsupported_flags_raise_without_torch():
    p = tg.tensor([1.0], requires_grad=True)
    for cls in (tg.optim.Rprop, tg.optim.ASGD):
        with pytest.raises(NotImplementedError, match="capturable=True"):
            cls([p], capturable=True)
        with pytest.raises(NotImplementedError, match="differentiable=True"):
            cls([p], differentiable=True)


def test_default_hyperparameters_are_torchs():
    for name in ("Rprop", "ASGD", "Adafactor"):
        ours = getattr(tg.optim, name)([tg.tensor([1.0], requires_grad=True)])
        theirs = getattr(torch.optim, name)([torch.tensor([1.0], requires_grad=True)])
        assert ours.defaults == theirs.defaults
        assert list(ours.defaults) == list(theirs.defaults)
        assert repr(ours) == repr(theirs)
        assert {k: v for k, v in ours.param_groups[0].items() if k != "params"} == \
            {k: v for k, v in theirs.param_groups[0].items() if k != "params"}
    assert set(["Rprop", "ASGD", "Adafactor"]) <= set(tg.optim.__all__)


# ------------------------------------------------------------------------------ CyclicLR

def _cyclic_sequence(T, make, steps=25, opt_name="SGD", opt_kwargs=None, groups=2):
    params = [T.tensor([1.0], requires_grad=True) for _ in range(groups)]
    kwargs = {"lr": 0.1, "momentum": 0.9} if opt_kwargs is None else opt_kwargs
    opt = getattr(T.optim, opt_name)([{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(params)],
                                     **kwargs)
    sched = make(T.optim.lr_scheduler, opt)
    lrs = [list(sched.get_last_lr())]
    momenta = [[(g.get("momentum"), g.get("betas")) for g in opt.param_groups]]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(list(sched.get_last_lr()))
        momenta.append([(g.get("momentum"), g.get("betas")) for g in opt.param_groups])
    return lrs, momenta, opt, sched


class _Decay:
    """A callable object as a scale function: its ``__dict__`` is saved in the state dict."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, x):
        return 1.0 / (1.0 + self.rate * x)


CYCLIC = {
    "triangular": lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4),
    "triangular-uneven": lambda S, o: S.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=[0.1, 0.5], step_size_up=3,
                                                 step_size_down=5, base_momentum=[0.7, 0.75],
                                                 max_momentum=[0.95, 0.9]),
    "triangular2": lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=3,
                                           mode="triangular2"),
    "exp_range": lambda S, o: S.CyclicLR(o, base_lr=0.001, max_lr=0.1, step_size_up=3, mode="exp_range",
                                         gamma=0.9),
    "exp_range-ignores-scale-mode": lambda S, o: S.CyclicLR(o, 0.001, 0.1, step_size_up=3, mode="exp_range",
                                                            gamma=0.8, scale_mode="cycle"),
    "scale_fn-cycle": lambda S, o: S.CyclicLR(o, 0.01, 0.2, step_size_up=2, scale_fn=lambda x: 0.5 ** x,
                                              scale_mode="cycle"),
    "scale_fn-iterations": lambda S, o: S.CyclicLR(o, 0.01, 0.2, step_size_up=3, scale_fn=_Decay(0.1),
                                                   scale_mode="iterations", mode="bogus"),
    "no-momentum-cycling": lambda S, o: S.CyclicLR(o, 0.01, 0.2, step_size_up=3, cycle_momentum=False),
}


@pytest.mark.parametrize("key", list(CYCLIC))
def test_cyclic_lr_sequence_and_momentum_match_torch(key):
    ours, our_momenta, opt, sched = _cyclic_sequence(tg, CYCLIC[key])
    theirs, their_momenta, topt, tsched = _cyclic_sequence(torch, CYCLIC[key])
    np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=1e-12, atol=1e-15)
    assert len(set(map(tuple, ours))) > 3     # the schedule moves
    np.testing.assert_allclose(np.array([[m for m, _ in row] for row in our_momenta], dtype=float),
                               np.array([[m for m, _ in row] for row in their_momenta], dtype=float), rtol=1e-12)
    assert repr(opt) == repr(topt)
    assert sched.state_dict().keys() == tsched.state_dict().keys()
    assert list(sched.state_dict()) == list(tsched.state_dict())


def test_cyclic_lr_cycles_adam_beta1_like_torch():
    make = CYCLIC["triangular-uneven"]
    ours, our_momenta, opt, _ = _cyclic_sequence(tg, make, opt_name="Adam", opt_kwargs={"lr": 0.1,
                                                                                        "betas": (0.9, 0.99)})
    theirs, their_momenta, topt, _ = _cyclic_sequence(torch, make, opt_name="Adam",
                                                      opt_kwargs={"lr": 0.1, "betas": (0.9, 0.99)})
    np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=1e-12)
    for row, trow in zip(our_momenta, their_momenta):
        for (m, betas), (tm, tbetas) in zip(row, trow):
            assert m is None and tm is None
            assert type(betas) is type(tbetas) is tuple
            np.testing.assert_allclose(betas, tbetas, rtol=1e-12)
    assert repr(opt) == repr(topt)


def test_cyclic_lr_steps_the_optimizer_like_torch():
    """The scheduled learning rate and momentum reach the updates: SGD with momentum under
    CyclicLR moves its parameters as PyTorch's does."""
    results = []
    for T in (tg, torch):
        params = _params(T)[:3]
        opt = T.optim.SGD(params, lr=0.1, momentum=0.9)
        sched = T.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2, mode="triangular2")
        history = []
        for k in range(STEPS):
            _set_grads(T, params, k)
            opt.step()
            sched.step()
            history.append([_numpy(p) for p in params])
        results.append(history)
    _assert_same_history(results[0], results[1])


def test_cyclic_lr_state_dict_round_trip_like_torch():
    states = []
    for T in (tg, torch):
        _, _, opt, sched = _cyclic_sequence(T, CYCLIC["scale_fn-iterations"], steps=5)
        state = sched.state_dict()
        assert "_scale_fn_ref" not in state and "optimizer" not in state
        assert state["_scale_fn_custom"] == {"rate": 0.1}
        other = T.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.2, step_size_up=3, scale_fn=_Decay(0.5),
                                              scale_mode="iterations")
        given = dict(state)
        other.load_state_dict(given)
        assert "_scale_fn_custom" not in given      # PyTorch takes it out of the given dict
        assert other._scale_fn_custom.rate == 0.1 and other.last_epoch == 5
        opt.step()
        sched.step()
        other.step()
        assert other.get_last_lr() == sched.get_last_lr()
        # a lambda is not saved; a built-in mode's function is restored on load
        lam = T.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.2, scale_fn=lambda x: 1.0)
        assert lam.state_dict()["_scale_fn_custom"] is None
        tri = T.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.2, step_size_up=2, mode="exp_range", gamma=0.5)
        for _ in range(3):
            tri.step()
        saved = tri.state_dict()
        fresh = T.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.2)
        fresh.load_state_dict(saved)
        fresh.step()
        tri.step()
        assert fresh.get_last_lr() == tri.get_last_lr() and fresh.scale_mode == "iterations"
        states.append((_plain(state), list(saved), fresh.get_last_lr()))
    # the scheduler's arithmetic is Python's: the saved values are PyTorch's exactly
    assert states[0] == states[1]


CYCLIC_ERRORS = [
    lambda T, o, a: T.optim.lr_scheduler.CyclicLR(3, 0.01, 0.1),
    lambda T, o, a: T.optim.lr_scheduler.CyclicLR(a, 0.01, 0.1),
    lambda T, o, a: T.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, mode="triangular3"),
    lambda T, o, a: T.optim.lr_scheduler.CyclicLR(o, [0.01, 0.02], 0.1),
    lambda T, o, a: T.optim.lr_scheduler.CyclicLR(o, 0.01, [0.1, 0.2]),
    lambda T, o, a: T.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, base_momentum=[0.8, 0.8]),
    lambda T, o, a: T.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, last_epoch=3),
    lambda T, o, a: T.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=0, step_size_down=0),
    lambda T, o, a: T.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, stepsize_up=3),
    lambda T, o, a: T.optim.lr_scheduler.CyclicLR(T.optim.Rprop(o.param_groups[0]["params"]), 0.01, 0.1),
]


@pytest.mark.parametrize("index", range(len(CYCLIC_ERRORS)))
def test_cyclic_lr_errors_match_torch(index):
    outcomes = []
    for T in (tg, torch):
        opt = T.optim.SGD([T.tensor([1.0], requires_grad=True)], lr=0.1, momentum=0.9)
        adagrad = T.optim.Adagrad([T.tensor([1.0], requires_grad=True)], lr=0.1)
        outcomes.append(error_of(lambda: CYCLIC_ERRORS[index](T, opt, adagrad)))
    assert outcomes[0] is not None and outcomes[0] == outcomes[1]


def test_cyclic_lr_without_momentum_cycling_accepts_any_optimizer_like_torch():
    results = []
    for T in (tg, torch):
        opt = T.optim.Adagrad([T.tensor([1.0], requires_grad=True)], lr=0.1)
        sched = T.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2, cycle_momentum=False)
        seq = []
        for _ in range(6):
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr())
        results.append((seq, repr(opt)))
    assert results[0] == results[1]


def test_cyclic_lr_warns_like_torch():
    messages = []
    for T in (tg, torch):
        opt = T.optim.SGD([T.tensor([1.0], requires_grad=True)], lr=0.1, momentum=0.9)
        sched = T.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()        # before any optimizer step
            sched.get_lr()      # outside step
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 2
