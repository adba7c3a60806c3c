"""An optimizer step of SGD, Adam or AdamW runs as one compiled program (``optim/_fused.py``):
the same values and version counters as the eager step and as PyTorch's, a program per
hyperparameter set up to a limit, and the eager path wherever the program cannot serve."""

import threading

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad.optim import _fused
from oracle import torch

_CASES = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd_nesterov_decay": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    "sgd_dampening_maximize": ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
    "adam": ("Adam", {"lr": 0.01}),
    "adam_amsgrad_decay": ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    "adamw": ("AdamW", {"lr": 0.01}),
}


def _train(m, name, kwargs, steps=5, seed=0):
    rng = np.random.default_rng(seed)
    params = [m.nn.Parameter(m.tensor(rng.standard_normal(s).astype(np.float32))) for s in ((5, 3), (3,))]
    opt = getattr(m.optim, name)(params, **kwargs)
    for _ in range(steps):
        x = m.tensor(rng.standard_normal((4, 5)).astype(np.float32))
        opt.zero_grad()
        ((x @ params[0] + params[1]).tanh() ** 2).sum().backward()
        opt.step()
    state = [sorted((k, v._version if hasattr(v, "_version") else v) for k, v in opt.state[p].items()
                    if k != "step") for p in params]
    return [p.detach().numpy().copy() for p in params], [p._version for p in params], state, opt


@pytest.mark.parametrize("case", sorted(_CASES))
def test_fused_steps_match_the_eager_steps_and_pytorch(case, monkeypatch):
    name, kwargs = _CASES[case]
    values, versions, state, opt = _train(tg, name, kwargs)
    # SGD with momentum: a first step's program, which makes the buffers, and the later steps'
    # (Adam's first step is the later steps' program on the zero state it makes first)
    assert len(opt._fused["programs"]) == (2 if kwargs.get("momentum") else 1) and not opt._fused["off"]
    assert [list(s) for s in opt.state.values()] == [list(s) for s in _train(torch or tg, name, kwargs)[3].state.values()]
    monkeypatch.setattr(_fused, "FUSED_TYPES", {})
    eager = _train(tg, name, kwargs)
    for a, b in zip(values, eager[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert (versions, state) == eager[1:3]
    if torch is not None:
        theirs = _train(torch, name, kwargs)
        for a, b in zip(values, theirs[0]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        assert (versions, state) == theirs[1:3]


def test_a_scheduled_learning_rate_compiles_a_program_per_value_then_runs_eagerly():
    p = tg.nn.Parameter(tg.ones(3))
    opt = tg.optim.SGD([p], lr=1.0)
    expected = np.ones(3, np.float32)
    for k in range(_fused.MAX_PROGRAMS + 3):
        opt.param_groups[0]["lr"] = 1.0 / (k + 1)
        opt.zero_grad()
        (p * p).sum().backward()
        expected = expected - np.float32(1.0 / (k + 1)) * 2 * expected
        opt.step()
        np.testing.assert_allclose(p.detach().numpy(), expected, rtol=1e-6)
    assert len(opt._fused["programs"]) == _fused.MAX_PROGRAMS and opt._fused["off"]


def test_the_first_step_a_new_parameter_and_loaded_state_take_the_right_path():
    a, b = tg.nn.Parameter(tg.ones(2)), tg.nn.Parameter(tg.ones(2))
    opt = tg.optim.Adam([a, b], lr=0.1)
    (a * 3).sum().backward()
    opt.step()                      # b has no grad; a's state is made, then the program runs
    programs = opt._fused["programs"]
    assert len(programs) == 1 and b not in opt.state
    assert [int(opt.state[a]["step"].item()), opt.state[a]["exp_avg"]._version] == [1, 1]
    made = len(programs)
    (a * b).sum().backward()        # b's first gradient: its state does not exist yet, a's does
    opt.step()                      # so the step runs eagerly
    assert len(programs) == made and int(opt.state[b]["step"].item()) == 1
    opt.zero_grad()
    (a * b).sum().backward()
    opt.step()
    assert len(programs) == made + 1 and not list(programs.values())[-1].creating
    twin = tg.optim.Adam([a, b], lr=0.1)
    twin.load_state_dict(opt.state_dict())      # new state tensors, the same shapes
    before = [t.clone() for t in (a, b)]
    (a * b).sum().backward()
    twin.step()
    assert not all(np.array_equal(x.detach().numpy(), y.detach().numpy()) for x, y in zip((a, b), before))
    assert int(twin.state[a]["step"].item()) == 4      # shared with opt's, as PyTorch loads it
    assert len(twin._fused["programs"]) == 1


@pytest.mark.parametrize("background", [True, False])
def test_adams_programs_compile_in_the_step_while_no_eager_update_warmed_its_kernels(background, monkeypatch):
    from tensorgrad._autograd import engine
    monkeypatch.setitem(engine.BACKGROUND, "on", background)
    p = tg.nn.Parameter(tg.ones(7, 3))
    opt = tg.optim.Adam([p], lr=0.1)
    values = []
    for k in range(4):
        opt.zero_grad()
        (p * p * (k + 1)).sum().backward()
        opt.step()
        programs = list(opt._fused["programs"].values())
        # the first step makes the state, then compiles the program in the step (no eager
        # update has compiled its kernels) and runs it; the later steps run it too
        assert len(programs) == 1 and programs[0].run is not None and not programs[0].creating
        values.append(p.detach().numpy().copy())
    opt.param_groups[0]["lr"] = 0.05           # a new program: the kernels are cold, so compiled in the step
    opt.zero_grad()
    (p * p).sum().backward()
    opt.step()
    programs = list(opt._fused["programs"].values())
    assert len(programs) == 2 and all(e.run is not None and e.pending is None for e in programs)
    values.append(p.detach().numpy().copy())
    monkeypatch.setattr(_fused, "FUSED_TYPES", {})
    q = tg.nn.Parameter(tg.ones(7, 3))
    eager = tg.optim.Adam([q], lr=0.1)
    for k in range(4):
        eager.zero_grad()
        (q * q * (k + 1)).sum().backward()
        eager.step()
        np.testing.assert_allclose(values[k], q.detach().numpy(), rtol=1e-6)
    eager.param_groups[0]["lr"] = 0.05
    eager.zero_grad()
    (q * q).sum().backward()
    eager.step()
    np.testing.assert_allclose(values[4], q.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_sgds_first_program_compiles_in_the_step_its_eager_update_being_cold(momentum, monkeypatch):
    """SGD's first step runs as a program of its own, compiled in the step (with momentum it
    makes the buffers, from the program's outputs, and runs once); no step runs SGD's update
    eagerly, which would compile its own kernels per parameter shape. Adam's first step runs
    its whole update eagerly, so its program compiles behind (the test above)."""
    from tensorgrad._autograd import engine
    monkeypatch.setitem(engine.BACKGROUND, "on", True)
    p = tg.nn.Parameter(tg.ones(6, 5))
    opt = tg.optim.SGD([p], lr=0.1, momentum=momentum)
    values = []
    for k in range(3):
        opt.zero_grad()
        (p * p * (k + 1)).sum().backward()
        opt.step()
        values.append(p.detach().numpy().copy())
        programs = list(opt._fused["programs"].values())
        assert len(programs) == (2 if momentum else 1) and programs[0].run is not None
        if k:
            assert all(e.run is not None and e.pending is None for e in programs)
    if momentum:
        # the first step's program made the buffers; the later steps' program was traced over a
        # stand-in of them before the first compiled, and compiled behind at the same time (the
        # second step waited for it); it donates the parameter and the buffer
        assert programs[0].creating and programs[0].created == ((0, "momentum_buffer", 0),)
        assert programs[1].prefetched and not programs[1].creating and programs[1].donated == (0, 2)
        assert opt.state[p]["momentum_buffer"]._version == 4 and not opt.state[p]["momentum_buffer"].requires_grad
    monkeypatch.setattr(_fused, "FUSED_TYPES", {})
    q = tg.nn.Parameter(tg.ones(6, 5))
    eager = tg.optim.SGD([q], lr=0.1, momentum=momentum)
    for k in range(3):
        eager.zero_grad()
        (q * q * (k + 1)).sum().backward()
        eager.step()
        np.testing.assert_allclose(values[k], q.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("background", [False, True])
@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_a_fused_step_writes_into_its_own_buffers_and_a_held_array_keeps_its_value(name, background, monkeypatch):
    """From the second step on, a fused step donates the parameters' and state's buffers (XLA
    writes the new values into them), also for SGD's later program, prefetched at the first step;
    an array held elsewhere at a step (here by the test; a background compile's arguments) is
    copied for the call and keeps its value."""
    from tensorgrad._autograd import engine
    monkeypatch.setitem(engine.BACKGROUND, "on", background)
    kwargs = {"lr": 0.1, "momentum": 0.9} if name == "SGD" else {"lr": 0.1}

    def run(steps, hold_at=None):
        tg.manual_seed(0)
        model = tg.nn.Linear(5, 3)              # its weight read in place by the product (TBackward0)
        opt = getattr(tg.optim, name)(model.parameters(), **kwargs)
        x = tg.ones(4, 5)
        pointers, held = [], None
        for k in range(steps):
            opt.zero_grad()
            loss = (model(x) ** 2).sum()
            loss.backward()                     # loss (its graph) stays alive over the step
            if k == hold_at:
                held = model.weight._data       # as another tensor's storage or a saved tensor would
                before = np.array(held)
            for thread in threading.enumerate():
                if thread.name == "tensorgrad-fused-compile":
                    thread.join()               # a backward compiling behind holds the arrays it was called on
            opt.step()
            pointers.append(model.weight._data.unsafe_buffer_pointer())
        if held is not None:
            assert not held.is_deleted()
            np.testing.assert_array_equal(np.asarray(held), before)
        return model, pointers

    model, pointers = run(6)
    assert len(set(pointers[2:])) == 1          # the fused steps write the weight's own buffer
    held_model, held_pointers = run(6, hold_at=3)
    assert held_pointers[3] != held_pointers[2]
    monkeypatch.setattr(_fused, "FUSED_TYPES", {})
    eager, _ = run(6)
    for m in (model, held_model):
        for p, q in zip(m.parameters(), eager.parameters()):
            np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_a_first_step_compiles_one_program_not_a_kernel_per_op(name):
    from test_caches import _Compiles
    kwargs = {"lr": 0.1, "momentum": 0.9} if name == "SGD" else {"lr": 0.1}
    tg.manual_seed(0)
    model = tg.nn.Sequential(tg.nn.Linear(13, 11), tg.nn.Tanh(), tg.nn.Linear(11, 3))   # shapes no other test uses
    opt = getattr(tg.optim, name)(model.parameters(), **kwargs)
    twin = getattr(tg.optim, name)([tg.nn.Parameter(p.detach().clone()) for p in model.parameters()], **kwargs)
    x = tg.randn(4, 13)
    steps = []
    for k in range(3):
        opt.zero_grad()
        model(x).pow(2).sum().backward()
        for thread in threading.enumerate():
            if thread.name == "tensorgrad-fused-compile":
                thread.join()                   # a backward program compiling behind is not the step's
        for p, q in zip(model.parameters(), twin.param_groups[0]["params"]):
            q.grad = p.grad.clone()
        with _Compiles() as compiles:
            opt.step()
            for e in opt._fused["programs"].values():
                if e.pending is not None:
                    e.pending.join()
            for thread in threading.enumerate():
                if thread.name == "tensorgrad-optimizer-compile":
                    thread.join()
        steps.append(len(compiles.names))
        with _fused_off():
            twin.step()
        for p, q in zip(model.parameters(), twin.param_groups[0]["params"]):
            # (a copy: numpy() would share the parameter's memory, and keep its array from being donated)
            np.testing.assert_allclose(np.array(p._data), q.detach().numpy(), rtol=1e-6, atol=1e-7)
    # SGD: the first step's own program, then the later steps' (compiled at the first's end);
    # Adam's one program, compiled again with XLA's defaults at its third step (``_settle``) where
    # it was compiled with the eager options
    fast = [e.fast for e in opt._fused["programs"].values()]
    assert steps == ([2, 0, 0] if name == "SGD" else [1, 0, int(fast[0])])


@pytest.mark.parametrize("name", ["SGD", "SGD-nesterov"])
def test_a_step_compiled_again_with_the_defaults_keeps_every_bit(name, monkeypatch):
    from tensorgrad._autograd import engine
    monkeypatch.setitem(engine.BACKGROUND, "on", False)
    kwargs = {"lr": 0.1, "momentum": 0.9, "nesterov": name == "SGD-nesterov", "weight_decay": 0.01}
    name = "SGD"

    def run(settle_at):
        monkeypatch.setattr(_fused, "SETTLE_AT", settle_at)
        tg.manual_seed(0)
        model = tg.nn.Sequential(tg.nn.Linear(30, 40), tg.nn.Tanh(), tg.nn.Linear(40, 3))
        opt = getattr(tg.optim, name)(model.parameters(), **kwargs)
        x = tg.randn(8, 30)
        runs = []
        for _ in range(7):
            opt.zero_grad()
            model(x).pow(2).sum().backward()
            opt.step()
            runs.append(next(iter(opt._fused["programs"].values()), None))
        return [np.array(p._data) for p in model.parameters()], opt
    settled, opt = run(3)
    entries = [e for e in opt._fused["programs"].values() if e.calls >= 3]
    assert entries and all(e.fast and e.lowered is None for e in entries)     # compiled again
    kept, _ = run(10**9)
    for a, b in zip(settled, kept):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


class _fused_off:
    def __enter__(self):
        self.saved = dict(_fused.FUSED_TYPES)
        _fused.FUSED_TYPES.clear()

    def __exit__(self, *exc):
        _fused.FUSED_TYPES.update(self.saved)
