"""Optimizers and learning-rate schedulers against PyTorch.

Each optimizer runs the same steps on the same parameters and gradients in tensorgrad and in
PyTorch; parameters, state dicts, reprs, schedules and errors must agree.
"""

import copy
import warnings

import numpy as np
import pytest

import tensorgrad as tg

from oracle import _oracle, assert_close_state, error_of, plain_state, torch  # noqa: F401  (the autouse fixture that skips without PyTorch)

RNG = np.random.default_rng(0)
SHAPES = [(3, 4), (4,)]
INIT = [RNG.standard_normal(s).astype(np.float32) for s in SHAPES]
TARGET = [RNG.standard_normal(s).astype(np.float32) for s in SHAPES]
NOISE = [[RNG.standard_normal(s).astype(np.float32) * 0.3 for s in SHAPES] for _ in range(6)]

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.99), "maximize": True, "decoupled_weight_decay": True,
              "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.3}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("Adadelta", {"lr": 1.0}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.02}),
    ("Adamax", {"lr": 0.02, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.02}),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.02}),
    ("RAdam", {"lr": 0.02, "weight_decay": 0.1, "betas": (0.9, 0.9)}),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CONFIGS)]


def _numpy(t):
    return t.detach().numpy().copy()


def _set_grads(T, params, k):
    for p, target, noise in zip(params, TARGET, NOISE[k]):
        p.grad = T.tensor((_numpy(p) - target) * 0.5 + noise)


def _run(T, name, kwargs, steps):
    params = [T.tensor(a, requires_grad=True) for a in INIT]
    opt = getattr(T.optim, name)(params, **kwargs)
    history = []
    for k in range(steps):
        _set_grads(T, params, k)
        opt.step()
        history.append([_numpy(p) for p in params])
    return params, opt, history


_plain = plain_state
_assert_close_state = assert_close_state


@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=IDS)
def test_steps_match_torch(name, kwargs):
    _, opt, ours = _run(tg, name, kwargs, 5)
    _, topt, theirs = _run(torch, name, kwargs, 5)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6, err_msg=f"step {k + 1}")
    _assert_close_state(_plain(opt.state_dict()), _plain(topt.state_dict()))
    assert repr(opt) == repr(topt)


@pytest.mark.parametrize("name, kwargs", [CONFIGS[0], CONFIGS[1], CONFIGS[2], CONFIGS[3], CONFIGS[7], CONFIGS[8]],
                         ids=["SGD", "SGD-momentum", "SGD-nesterov", "Adam", "AdamW-amsgrad", "RMSprop"])
def test_a_tensor_learning_rate_steps_as_torch(name, kwargs):
    def run(T):
        params = [T.tensor(a, requires_grad=True) for a in INIT]
        opt = getattr(T.optim, name)(params, **dict(kwargs, lr=T.tensor(kwargs["lr"])))
        history = []
        for k in range(4):
            _set_grads(T, params, k)
            opt.step()
            history.append([_numpy(p) for p in params])
        return history
    for a, b in zip(run(tg), run(torch)):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, kwargs", [CONFIGS[1], CONFIGS[4], CONFIGS[9], CONFIGS[16]],
                         ids=[IDS[1], IDS[4], IDS[9], IDS[16]])
def test_state_dict_resume_continues_identically_without_torch(name, kwargs):
    """Stopping after 2 steps, loading the state dict into a fresh optimizer and continuing
    gives the same parameters as running straight through."""
    params, opt, straight = _run(tg, name, kwargs, 4)
    fresh = [tg.tensor(a, requires_grad=True) for a in INIT]
    first = getattr(tg.optim, name)(fresh, **kwargs)
    for k in range(2):
        _set_grads(tg, fresh, k)
        first.step()
    saved = copy.deepcopy(first.state_dict())
    resumed = getattr(tg.optim, name)(fresh, **kwargs)
    resumed.load_state_dict(saved)
    for k in range(2, 4):
        _set_grads(tg, fresh, k)
        resumed.step()
    for x, y in zip(fresh, params):
        np.testing.assert_array_equal(_numpy(x), _numpy(y))


def test_param_groups_and_add_param_group():
    for T in (tg, torch):
        a = T.tensor(INIT[0], requires_grad=True)
        b = T.tensor(INIT[1], requires_grad=True)
        opt = T.optim.SGD([{"params": [a]}], lr=0.1, momentum=0.9)
        opt.add_param_group({"params": b, "lr": 0.01})
        for k in range(3):
            _set_grads(T, [a, b], k)
            opt.step()
        if T is tg:
            ours = (opt, _numpy(a), _numpy(b))
        else:
            theirs = (opt, _numpy(a), _numpy(b))
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)
    assert repr(ours[0]) == repr(theirs[0])
    _assert_close_state(_plain(ours[0].state_dict()), _plain(theirs[0].state_dict()))


def test_adagrad_parameter_added_later_gets_state_like_torch():
    """Adagrad makes its state in the constructor; a parameter group added later gets the
    same ``step`` and ``sum`` on its first step."""
    results = []
    for T in (tg, torch):
        a = T.tensor(INIT[0], requires_grad=True)
        b = T.tensor(INIT[1], requires_grad=True)
        opt = T.optim.Adagrad([a], lr=0.1, initial_accumulator_value=0.1)
        opt.add_param_group({"params": [b]})
        for k in range(3):
            _set_grads(T, [a, b], k)
            opt.step()
        results.append((_numpy(b), _plain(opt.state_dict())))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    _assert_close_state(results[0][1], results[1][1])


def test_zero_grad_and_closure():
    for T in (tg, torch):
        p = T.tensor([1.0, -2.0], requires_grad=True)
        opt = T.optim.SGD([p], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss

        loss = opt.step(closure)
        assert loss.item() == 5.0
        assert p.grad is not None
        opt.zero_grad(set_to_none=False)
        assert p.grad.tolist() == [0.0, 0.0]
        opt.zero_grad()
        assert p.grad is None
        assert p.detach().numpy().tolist() == pytest.approx([0.8, -1.6])


def test_step_hooks_run_in_order_without_torch():
    calls = []
    p = tg.tensor([1.0], requires_grad=True)
    opt = tg.optim.Adam([p])
    opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    handle = opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
    p.grad = tg.tensor([1.0])
    opt.step()
    handle.remove()
    opt.step()
    assert calls == ["pre", "post", "pre"]


_error = error_of


ERRORS = [
    "T.optim.SGD(T.tensor([1.0], requires_grad=True))",
    "T.optim.SGD([])",
    "T.optim.SGD([1.0])",
    "T.optim.Adam([T.tensor([1.0], requires_grad=True) * 2])",
    "T.optim.SGD([T.tensor([1.0], requires_grad=True)], lr=-1)",
    "T.optim.SGD([T.tensor([1.0], requires_grad=True)], momentum=-1)",
    "T.optim.SGD([T.tensor([1.0], requires_grad=True)], nesterov=True)",
    "T.optim.Adam([T.tensor([1.0], requires_grad=True)], betas=(1.0, 0.9))",
    "T.optim.Adam([T.tensor([1.0], requires_grad=True)], eps=-1.0)",
    "T.optim.RMSprop([T.tensor([1.0], requires_grad=True)], alpha=-1.0)",
    "T.optim.Adadelta([T.tensor([1.0], requires_grad=True)], rho=2.0)",
    "T.optim.Adagrad([T.tensor([1.0], requires_grad=True)], lr_decay=-1.0)",
    "T.optim.NAdam([T.tensor([1.0], requires_grad=True)], momentum_decay=-1.0)",
    "T.optim.SGD([{'params': [P]}, {'params': [P]}], lr=0.1)",
    "T.optim.SGD([{'params': {P}}], lr=0.1)",
    "T.optim.SGD([{'params': [P]}]).add_param_group([P])",
    "T.optim.SGD([P]).load_state_dict({'state': {}, 'param_groups': []})",
    "T.optim.SGD([P]).load_state_dict({'state': {}, 'param_groups': [{'params': [0, 1]}]})",
    # Rprop, ASGD, Adafactor
    "T.optim.Rprop([P], lr=-1)",
    "T.optim.Rprop([P], lr=T.tensor([0.1, 0.2]))",
    "T.optim.Rprop([P], etas=(1.0, 1.2))",
    "T.optim.Rprop([P], etas=(0.0, 1.2))",
    "T.optim.Rprop([P], etas=(0.5, 1.0))",
    "T.optim.Rprop([P], lrr=0.1)",
    "T.optim.Rprop([P], 0.1, (0.5, 1.2), (1e-6, 50), False)",
    "T.optim.Rprop([])",
    "T.optim.ASGD([P], lr=-0.5)",
    "T.optim.ASGD([P], lr=T.tensor([0.1, 0.2]))",
    "T.optim.ASGD([P], weight_decay=-1e-3)",
    "T.optim.ASGD([P], lamda=0.1)",
    "T.optim.ASGD([P * 2])",
    "T.optim.Adafactor([P], lr=-1.0)",
    "T.optim.Adafactor([P], lr=T.tensor([0.1, 0.2]))",
    "T.optim.Adafactor([P], beta2_decay=0.5)",
    "T.optim.Adafactor([P], eps=(-1.0, 1e-3))",
    "T.optim.Adafactor([P], eps=(None, -1e-3))",
    "T.optim.Adafactor([P], d=0.5)",
    "T.optim.Adafactor([P], weight_decay=-0.1)",
    "T.optim.Adafactor([P], 0.1, -0.8, (None, 1e-3), 1.0, 0.0, None)",
    "T.optim.Adafactor([P], capturable=True)",
    "T.optim.Adafactor([P]).load_state_dict({'state': {}, 'param_groups': []})",
]


@pytest.mark.parametrize("src", ERRORS)
def test_errors_match_torch(src):
    outcomes = []
    for T in (tg, torch):
        P = T.tensor([1.0], requires_grad=True)
        outcomes.append(_error(lambda: eval(src, {"T": T, "P": P})))
    assert outcomes[0] is not None
    assert outcomes[0] == outcomes[1]


def test_duplicate_parameter_warns_like_torch():
    messages = []
    for T in (tg, torch):
        p = T.tensor([1.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.optim.SGD([p, p], lr=0.1)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and messages[0]


def test_integer_parameter_is_rejected_clearly_without_torch():
    p = tg.tensor([1, 2])
    with pytest.raises(TypeError, match="floating point or complex Tensors, but one of the params has dtype torch.int64"):
        tg.optim.Adam([p])


# ------------------------------------------------------------------------------ schedulers

def _lr_sequence(T, make, steps=12, opt_name="SGD", opt_kwargs=None, groups=1, metric=None):
    params = [T.tensor([1.0], requires_grad=True) for _ in range(groups)]
    kwargs = {"lr": 0.1, "momentum": 0.9} if opt_kwargs is None else opt_kwargs
    opt = getattr(T.optim, opt_name)([{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(params)],
                                     **kwargs)
    sched = make(T.optim.lr_scheduler, opt)
    seq = [sched.get_last_lr()]
    extras = []
    for k in range(steps):
        opt.step()
        if metric is None:
            sched.step()
        else:
            sched.step(metric[k])
        seq.append(list(sched.get_last_lr()))
        extras.append([(g.get("momentum"), g.get("betas")) for g in opt.param_groups])
    return seq, extras, opt


SCHEDULERS = {
    "StepLR": lambda S, o: S.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.001),
    "CosineAnnealingWarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lambda epoch: 0.95 ** epoch + 0.01 * epoch),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, lambda epoch: 0.9),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=12),
    "OneCycleLR-3phase-linear": lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=13, three_phase=True,
                                                          anneal_strategy="linear"),
    "LinearLR": lambda S, o: S.LinearLR(o, start_factor=0.25, total_iters=6),
    "ConstantLR": lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=4),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, total_iters=8, power=2.0),
    "SequentialLR": lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, start_factor=0.1, total_iters=3), S.ExponentialLR(o, gamma=0.8)], milestones=[4]),
    "ChainedScheduler": lambda S, o: S.ChainedScheduler(
        [S.ExponentialLR(o, gamma=0.9), S.StepLR(o, step_size=4, gamma=0.5)]),
}


@pytest.mark.parametrize("key", list(SCHEDULERS))
def test_scheduler_lr_sequence_matches_torch(key):
    ours, our_extras, opt = _lr_sequence(tg, SCHEDULERS[key], groups=2)
    theirs, their_extras, topt = _lr_sequence(torch, SCHEDULERS[key], groups=2)
    np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=1e-12, atol=1e-15)
    assert our_extras == their_extras
    assert repr(opt) == repr(topt)


def test_onecycle_cycles_adam_betas_like_torch():
    make = SCHEDULERS["OneCycleLR"]
    kwargs = {"lr": 0.1}
    ours, our_extras, _ = _lr_sequence(tg, make, opt_name="Adam", opt_kwargs=kwargs, groups=2)
    theirs, their_extras, _ = _lr_sequence(torch, make, opt_name="Adam", opt_kwargs=kwargs, groups=2)
    np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=1e-12)
    assert our_extras == their_extras


def test_reduce_lr_on_plateau_matches_torch():
    metric = [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.8, 0.85, 0.85, 0.85, 0.85, 0.85]
    make = lambda S, o: S.ReduceLROnPlateau(o, factor=0.5, patience=2, cooldown=1, min_lr=0.02)  # noqa: E731
    ours, _, _ = _lr_sequence(tg, make, metric=metric)
    theirs, _, _ = _lr_sequence(torch, make, metric=metric)
    assert ours == theirs


def test_scheduler_state_dict_round_trip_without_torch():
    _, _, opt = _lr_sequence(tg, SCHEDULERS["StepLR"], steps=0)
    sched = tg.optim.lr_scheduler.StepLR(opt, step_size=2)
    for _ in range(3):
        opt.step()
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 3
    other = tg.optim.lr_scheduler.StepLR(opt, step_size=5)
    other.load_state_dict(state)
    assert other.step_size == 2 and other.get_last_lr() == sched.get_last_lr()


def test_scheduler_before_optimizer_step_warns_like_torch():
    messages = []
    for T in (tg, torch):
        opt = T.optim.SGD([T.tensor([1.0], requires_grad=True)], lr=0.1)
        sched = T.optim.lr_scheduler.StepLR(opt, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and messages[0]


def test_closed_form_epoch_argument_warns_and_jumps():
    results = []
    for T in (tg, torch):
        opt = T.optim.SGD([T.tensor([1.0], requires_grad=True)], lr=1.0)
        sched = T.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
        opt.step()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step(5)
        results.append((sched.get_last_lr(), [str(w.message) for w in caught]))
    assert results[0] == results[1]


def test_scheduler_errors_match_torch():
    cases = [
        lambda T, o: T.optim.lr_scheduler.StepLR(3, 2),
        lambda T, o: T.optim.lr_scheduler.LinearLR(o, start_factor=0),
        lambda T, o: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=0),
        lambda T, o: T.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0),
        lambda T, o: T.optim.lr_scheduler.ReduceLROnPlateau(o, factor=2.0),
        lambda T, o: T.optim.lr_scheduler.StepLR(o, 2, last_epoch=3),
        lambda T, o: T.optim.lr_scheduler.SequentialLR(o, [T.optim.lr_scheduler.StepLR(o, 2)], milestones=[1]),
    ]
    for case in cases:
        outcomes = []
        for T in (tg, torch):
            opt = T.optim.SGD([T.tensor([1.0], requires_grad=True)], lr=0.1)
            outcomes.append(_error(lambda: case(T, opt)))
        assert outcomes[0] is not None and outcomes[0] == outcomes[1]


def test_torch_optimizer_state_via_numpy_resumes_like_torch():
    """A PyTorch optimizer's state dict with its tensors converted by ``.numpy()`` loads into the
    tensorgrad twin, which then continues exactly as PyTorch does."""
    name, kwargs = CONFIGS[4]
    _, topt, theirs = _run(torch, name, kwargs, 2)
    tparams = topt.param_groups[0]["params"]
    state = topt.state_dict()
    converted = {"state": {i: {k: v.numpy() for k, v in s.items()} for i, s in state["state"].items()},
                 "param_groups": copy.deepcopy(state["param_groups"])}
    params = [tg.tensor(p.detach().numpy(), requires_grad=True) for p in tparams]
    opt = getattr(tg.optim, name)(params, **kwargs)
    opt.load_state_dict(converted)
    assert opt.state[params[0]]["step"].dtype == tg.float32
    for k in range(2, 4):
        _set_grads(tg, params, k)
        opt.step()
        _set_grads(torch, tparams, k)
        topt.step()
    for x, y in zip(params, tparams):
        np.testing.assert_allclose(_numpy(x), _numpy(y), rtol=1e-5, atol=1e-6)
