"""Memory shared with numpy, as in PyTorch: ``torch.from_numpy(a)`` and ``torch.as_tensor(a)``
are tensors over ``a``'s memory, ``t.numpy()`` an array over ``t``'s (``_storage/host.py``).

The snippets run with ``torch`` bound to tensorgrad and to PyTorch (``snippets.py``); the rest
checks what PyTorch has no twin of: compiled steps, ``tensorgrad.func``, overlays in threads.
"""

import threading
import warnings

import numpy as np
import pytest

import tensorgrad as tg
from snippets import cases, ids, same
from tensorgrad._storage import host
from tensorgrad._storage.cell import Cell


@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


SHARING_CASES = cases("""
a = np.ones((2, 3)); t = torch.from_numpy(a); a[1, 1] = 23; t
---
a = np.arange(6.).reshape(2, 3); t = torch.from_numpy(a); v = t[1]; s = v.sum(); a[1, 0] = -5; v, v.sum(), s
---
a = np.arange(6.).reshape(2, 3); t = torch.from_numpy(a); t[0, 1] = 9; t.add_(1); a
---
a = np.zeros(3); t = torch.from_numpy(a); t.copy_(torch.tensor([1., 2., 3.])); torch.mul(t, 2, out=t); a
---
a = np.zeros((2, 2)); t = torch.from_numpy(a); t.t()[0, 1] = 5; t[:, 0] += 1; a
---
t = torch.zeros(2, 3); n = t.numpy(); t[1, 1] = 17; t.add_(1); n
---
a = np.ones(4096, np.float32); t = torch.tensor(a); a[0] = 5; t[0], t.sum()
---
a = np.ones((64, 64)); t = torch.as_tensor(a, dtype=torch.float32); a[0, 0] = 5; t[0, 0]
---
t = torch.tensor([1 + 2j, 3 - 1j]).conj(); t.numpy(force=True)
---
t = torch.tensor([1 + 2j, 3 - 1j]).conj(); t.numpy()
---
t = torch.tensor([1 + 2j, 3 - 1j]).conj().imag; t.numpy(force=True)
---
t = torch.tensor([1 + 2j, 3 - 1j]).conj().imag; t.numpy()
---
t = torch.tensor([1 + 2j, 3 - 1j]); c = t.conj(); n = c.numpy(force=True); t.mul_(2); n
---
t = torch.zeros(2, 3); n = t.numpy(); n[0, 2] = 4; t, t * 2, t._version
---
t = torch.arange(6.).reshape(2, 3); n = t[1].numpy(); m = t.t().numpy(); t.mul_(2); n, m, m.strides, n.strides
---
t = torch.arange(6.).reshape(2, 3); v = t[:, 1:]; n = v.numpy(); n[1, 0] = -1; t, v
---
t = torch.arange(4.); d = t.detach(); n = d.numpy(); t.sub_(1); n[0] = 8; t, d
---
c = torch.tensor([1 + 2j, 3j]); r = torch.view_as_real(c).numpy(); c.mul_(2); r[1, 0] = 7; r, c
---
a = np.array([1 + 1j, 2]); t = torch.from_numpy(a); a[0] = 5j; t.mul_(2); t, a
---
a = np.array([True, False]); t = torch.from_numpy(a); a[1] = True; t
---
a = np.array([1, 2], dtype=np.int16); t = torch.from_numpy(a); t[0] = 7; a[1] = -3; t, a
---
a = np.array([1, 2], dtype=np.float16); t = torch.from_numpy(a); a[1] = 0.5; t * 2
---
a = np.ones(3); t = torch.as_tensor(a); u = torch.as_tensor(a, device="cpu"); w = torch.as_tensor(a, dtype=torch.float32); a[0] = 5; t, u, w
---
a = np.ones(2); t = torch.from_numpy(a); v0 = t._version; a[0] = 3; t.add_(1); v0, t._version, a
---
a = np.arange(12.).reshape(3, 4)[:, ::2]; t = torch.from_numpy(a); a[0, 1] = -1; t.add_(1); t, a
---
a = np.zeros(0); t = torch.from_numpy(a); t.add_(1); t, a
---
a = np.array(2.); t = torch.from_numpy(a); a[()] = 3; t.mul_(2); t, a
---
w = torch.ones(2, requires_grad=True); n = w.detach().numpy(); (w * 3).sum().backward()
with torch.no_grad():
    w.sub_(w.grad)
    m = w.numpy()
m[0] = 0; n, w
---
a = np.ones(2, dtype=np.float32); t = torch.from_numpy(a); w = torch.ones(2, requires_grad=True); y = (t * w).sum(); y.backward(); a[0] = 4; w.grad, (t * w).sum()
---
t = torch.from_numpy(np.ones(2)); torch.add(torch.ones(3), 1, out=t)
---
t = torch.ones(2); n = t.numpy(); torch.add(torch.ones(3), 1, out=t)
---
torch.from_numpy(np.ones(3)[::-1])
---
torch.as_tensor(np.ones((2, 2))[:, ::-1], dtype=torch.float32)
---
torch.from_numpy(np.ones(3, dtype=">f4"))
---
torch.ones(2, requires_grad=True).numpy()
---
w = torch.ones(2, requires_grad=True)
with torch.no_grad():
    n = w.numpy()
n
---
t = torch.zeros(3); n = t.numpy(); n[1] = 4; del n; t, t * 2
---
t = torch.zeros(3); n = t.numpy()[1:]; t.add_(1); n[0] = 7; t, n
---
t = torch.zeros(2, 2); n = t.t().numpy(); del t; n[0, 1] = 3; n
---
t = torch.ones(3); a = t.numpy().copy(); t.add_(1); b = t.numpy(); t.mul_(3); a, b, t
---
a = np.arange(12.).reshape(3, 4); t = torch.from_numpy(a); r = t[1]; a[0, 0] = -1; r2 = t[2]; a[1, 3] = 9; r, r2, t[0], t
---
a = np.arange(12.).reshape(3, 4); t = torch.from_numpy(a); c = t[:, 1]; d = t.t()[2]; a[2, 1] = 50; a[0, 2] = 60; c, d, c.sum() + d.sum()
---
a = np.arange(9.).reshape(3, 3); t = torch.from_numpy(a); g = t.diagonal(); e = t[0].expand(2, 3); a[1, 1] = -4; a[0, 2] = 7; g, e, t[1:][0]
---
a = np.arange(8, dtype=np.float32).reshape(2, 4); t = torch.from_numpy(a); u = t.unfold(1, 2, 1); v = t.view(4, 2)[3]; a[1, 3] = -2; u, v
---
a = np.arange(6.).reshape(2, 3); t = torch.from_numpy(a); r = t[0]; r.mul_(10); a[1, 2] = 5; r, t, a
---
a = np.zeros((2, 3), dtype=np.complex64); t = torch.from_numpy(a); re = torch.view_as_real(t)[1]; a[1, 0] = 2 + 3j; re, t.imag
""")


@pytest.mark.parametrize("src", SHARING_CASES, ids=ids(SHARING_CASES))
def test_sharing_as_pytorch(torch_, src):
    same(torch_, src)


def test_a_read_only_array_warns_once_and_is_shared(torch_):
    host._WARNED[0] = False
    a = np.ones(3)
    a.flags.writeable = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = tg.from_numpy(a)
        tg.from_numpy(a)
    assert [(w.category, str(w.message), w.filename) for w in caught] == [(UserWarning, host.NOT_WRITABLE, __file__)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        theirs = torch_.from_numpy(a)      # PyTorch warns once per process too: maybe not now
    assert all(str(w.message) == host.NOT_WRITABLE for w in caught)
    base = np.zeros(3)
    ro = base[:]
    ro.flags.writeable = False
    t, theirs = tg.from_numpy(ro), torch_.from_numpy(ro)
    base[1] = 2                   # the read-only array changes through its writeable base
    assert t.tolist() == theirs.tolist() == [0, 2, 0] and t.numpy().tolist() == [0, 2, 0]


def test_ordinary_cells_stay_plain():
    t = tg.ones(2)
    assert type(t._cell) is Cell and type((t * 2).clone()._cell) is Cell
    n = t.numpy()
    assert isinstance(t._cell, host.HostCell) and type((t * 2).clone()._cell) is Cell
    n[0] = 3
    assert t.tolist() == [3, 1]


def test_a_cell_numpy_shared_is_ordinary_again_once_its_arrays_are_gone():
    t = tg.zeros(3)
    n = t.numpy()
    view = n[1:]
    del n
    t.add_(1)
    assert isinstance(t._cell, host.HostCell) and view.tolist() == [1, 1]     # a view of it still lives
    view[0] = 5
    del view
    assert t.tolist() == [1, 5, 1] and type(t._cell) is Cell                  # its last write taken in
    t.mul_(2)
    m = t.numpy()
    assert isinstance(t._cell, host.HostCell) and m.tolist() == [2, 10, 2]
    a = tg.from_numpy(np.zeros(2))
    a.add_(1)
    assert isinstance(a._cell, host.HostCell)          # the user's own array: shared for good


def test_numpy_of_a_bfloat16_tensor_keeps_its_dtype_and_shares():
    t = tg.tensor([1.5, 2.0]).bfloat16()
    n = t.numpy()
    row = t[1].numpy()
    assert str(n.dtype) == str(row.dtype) == "bfloat16" and n.tolist() == [1.5, 2.0]
    n[0] = 3
    t.add_(1)
    assert t.tolist() == [4.0, 3.0] and row.tolist() == 3.0


def test_an_optimizer_step_reaches_the_array_without_torch():
    p = tg.nn.Parameter(tg.ones(2))
    n = p.detach().numpy()
    opt = tg.optim.SGD([p], lr=0.5)
    p.sum().backward()
    opt.step()
    assert n.tolist() == [0.5, 0.5]


def test_compiled_steps_read_and_write_the_array():
    a = np.ones(3, dtype=np.float32)
    state = tg.from_numpy(a)

    @tg.compile
    def step(x):
        state.add_(x)
        return state * 2

    for k in range(3):
        a[0] = 10 * k               # a numpy write between calls: the next call reads it
        out = step(tg.ones(3))
        assert out.tolist() == [2 * (10 * k + 1), 2 * (k + 2), 2 * (k + 2)]
        assert a.tolist() == [10 * k + 1, k + 2, k + 2]


def test_func_transforms_read_the_array():
    a = np.array([1., 2.], dtype=np.float32)
    scale = tg.from_numpy(a)
    f = tg.func.grad(lambda x: (x * scale).sum())
    assert f(tg.ones(2)).tolist() == [1, 2]
    a[:] = [3, 4]
    assert f(tg.ones(2)).tolist() == [3, 4]


def test_another_thread_sees_the_array_while_this_one_overlays_it():
    from tensorgrad._storage.overlay import Overlay
    a = np.zeros(2)
    t = tg.from_numpy(a)
    cell = t._cell
    seen = []
    with Overlay() as mine:
        mine.put(cell, "private")
        a[0] = 5
        thread = threading.Thread(target=lambda: seen.append(t.tolist()))
        thread.start()
        thread.join()
        seen.append(cell.value)
    assert seen == [[5, 0], "private"]
    assert type(cell) is host.HostCell and t.tolist() == [5, 0]
    u = tg.zeros(2)
    with Overlay() as mine:
        mine.put(u._cell, "private")
        thread = threading.Thread(target=lambda: seen.append(u.numpy()))
        thread.start()
        thread.join()
    assert type(u._cell) is host.HostCell
    seen[-1][1] = 7
    assert u.tolist() == [0, 7]


def test_tensor_class_prints_as_pytorch_s(torch_):
    import pickle
    assert repr(type(tg.ones(1))) == repr(type(torch_.ones(1))) == "<class 'torch.Tensor'>"
    assert repr(tg.nn.Parameter) == repr(torch_.nn.Parameter)
    assert pickle.loads(pickle.dumps(tg.Tensor)) is tg.Tensor and tg.Tensor.__module__ == "tensorgrad._tensor.tensor"
    assert not isinstance(tg.ones(1), torch_.Tensor) and not isinstance(torch_.ones(1), tg.Tensor)

    class Mine(tg.Tensor):
        pass
    assert repr(Mine) == f"<class '{__name__}.test_tensor_class_prints_as_pytorch_s.<locals>.Mine'>"


def test_load_state_dict_copies_numpy_values():
    # JAX's CPU client may keep an aligned array's own memory: the copy must be tensorgrad's
    values = {"weight": np.ones((64, 64), np.float32), "bias": np.ones(64, np.float32)}
    m = tg.nn.Linear(64, 64)
    m.load_state_dict(values)
    values["weight"][:] = 7
    values["bias"][:] = 7
    assert float(m.weight.detach().sum()) == 64 * 64 and float(m.bias.detach().sum()) == 64
