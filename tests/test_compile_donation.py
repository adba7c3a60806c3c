"""A compiled step donates the arrays of the state it writes (parameters, optimizer state), so
XLA writes the new values into the old buffers; an array that something else still holds keeps
its buffer and its value."""

import numpy as np

import tensorgrad as tg
import tensorgrad.nn.functional as F
from tensorgrad import nn


def _setup(momentum):
    tg.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = tg.optim.SGD(model.parameters(), lr=0.1, momentum=momentum)
    rng = np.random.default_rng(0)
    x, y = tg.tensor(rng.standard_normal((8, 6)).astype(np.float32)), tg.tensor(rng.integers(0, 3, 8))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return model, opt, step


def _state(model, opt):
    tensors = list(model.parameters()) + [s["momentum_buffer"] for s in opt.state.values() if "momentum_buffer" in s]
    return tensors


def test_a_compiled_step_writes_parameters_and_momentum_into_their_own_buffers():
    model, opt, step = _setup(0.9)
    twin, twin_opt, twin_step = _setup(0.9)
    compiled, twin_compiled = tg.compile(step), tg.compile(twin_step)

    def undonated():                        # the program that donates nothing, as the baseline
        held = [t._data for t in _state(twin, twin_opt)]
        loss = twin_compiled()
        assert not any(a.is_deleted() for a in held)
        return loss
    for _ in range(3):
        compiled()
        undonated()
    tensors = _state(model, opt)
    assert len(tensors) == 8
    pointers = [t._data.unsafe_buffer_pointer() for t in tensors]
    versions = [t._version for t in tensors]
    for _ in range(2):
        loss = compiled()
        expected = undonated()
    assert [t._data.unsafe_buffer_pointer() for t in tensors] == pointers
    assert [t._version - v for t, v in zip(tensors, versions)] == [2] * 4 + [4] * 4
    assert loss.item() == expected.item()
    for t, u in zip(tensors, _state(twin, twin_opt)):
        np.testing.assert_array_equal(t.detach().numpy(), u.detach().numpy())


def test_an_array_held_elsewhere_keeps_its_buffer_and_value():
    model, opt, step = _setup(0.0)
    compiled = tg.compile(step)
    compiled()
    compiled()
    weight = model[0].weight
    held = weight._data                    # as a graph's saved tensors or another cell hold it
    before = np.array(held)
    compiled()
    assert not held.is_deleted()
    np.testing.assert_array_equal(np.asarray(held), before)
    assert weight._data.unsafe_buffer_pointer() != held.unsafe_buffer_pointer()
    assert bool((weight._data != held).any())
    del held
    pointer = weight._data.unsafe_buffer_pointer()
    compiled()                              # held by its cell alone again: donated
    assert weight._data.unsafe_buffer_pointer() == pointer


def test_a_parameter_shared_with_numpy_is_never_donated():
    model, opt, step = _setup(0.0)
    compiled = tg.compile(step)
    compiled()
    shared = model[2].bias.detach().numpy()     # PyTorch's numpy(): it shares the tensor's memory
    values = []
    for _ in range(3):
        compiled()
        values.append(model[2].bias.detach().numpy().copy())
    assert not any(np.array_equal(values[0], v) for v in values[1:])
    np.testing.assert_array_equal(shared, values[-1])


def test_a_graph_recorded_before_the_step_still_reports_the_in_place_update():
    model, opt, step = _setup(0.0)
    compiled = tg.compile(step)
    compiled()
    out = model(tg.ones(2, 6)).sum()        # its nodes save the weights the step overwrites
    compiled()
    try:
        out.backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("backward through weights a step overwrote must raise")


def test_the_grads_a_step_replaces_lend_their_buffers_to_the_new_grads():
    model, opt, step = _setup(0.0)
    compiled = tg.compile(step)
    compiled()
    compiled()
    params = list(model.parameters())
    pointers = [p.grad._data.unsafe_buffer_pointer() for p in params]
    compiled()
    assert [p.grad._data.unsafe_buffer_pointer() for p in params] == pointers


def test_a_grad_the_user_holds_keeps_its_value():
    model, opt, step = _setup(0.0)
    twin, twin_opt, twin_step = _setup(0.0)
    compiled = tg.compile(step)
    for _ in range(2):
        compiled()
        twin_step()
    held = model[0].weight.grad             # as PyTorch: zero_grad() drops it, it keeps its value
    viewed = model[2].bias.grad.view(3, 1)  # a view shares the grad's storage
    expected = twin[0].weight.grad.detach().numpy().copy()
    expected_view = twin[2].bias.grad.detach().numpy().copy()
    compiled()
    twin_step()
    assert model[0].weight.grad is not held
    np.testing.assert_allclose(held.numpy(), expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(viewed.numpy().ravel(), expected_view, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(model[0].weight.grad.numpy(), twin[0].weight.grad.numpy(), rtol=1e-5, atol=1e-6)
