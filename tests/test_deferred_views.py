"""Layout views computed inside the matrix product that reads them.

``linear`` makes ``weight.T`` without computing it (``deferred_view``); ``mm`` and ``addmm``
read a transposed view whose value is not computed from its source, inside their own kernel
(``folds_views``), and their nodes keep the source. These tests compare the values, gradients
(node by node, fused, create_graph), node hooks and version errors with PyTorch's, and check
that no transposed copy is computed.
"""

import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.nn.functional as F
from tensorgrad import _cache
from tensorgrad._ops import views as V
from oracle import torch, _oracle  # noqa: F401  (the fixture skips tests that need PyTorch)


def _pair(shape, seed, requires_grad=False):
    data = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return (tg.tensor(data, requires_grad=requires_grad), torch.tensor(data, requires_grad=requires_grad))


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a.detach()), b.detach().numpy(), rtol=tol, atol=tol)


def _t_programs():
    """How many programs the forward kernel of ``t`` has compiled."""
    entry = _cache.KERNELS.get(V.t)
    if entry is None:
        return 0
    return sum(j._cache_size() for j in (entry.fast, entry.plain)) if hasattr(entry, "fast") else entry._cache_size()


def test_linear_computes_no_transposed_weight_without_torch():
    x = tg.randn(7, 13)
    w = tg.nn.Parameter(tg.randn(11, 13))      # a parameter, as nn.Linear holds it
    b = tg.randn(11, requires_grad=True)
    before = _t_programs()
    y = F.linear(x, w, b)
    F.linear(x, w).sum().backward()
    assert _t_programs() == before
    # the product's node keeps the weight's own array, not a transposed copy
    assert y.grad_fn.views is not None and y.grad_fn._primals[2] is w._cell.value
    np.testing.assert_allclose(np.asarray(y.detach()), np.asarray(x) @ np.asarray(w.detach()).T + np.asarray(b.detach()),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("in_shape", [(5, 3), (2, 4, 3), (3,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_values_graphs_and_gradients_match_pytorch(in_shape, bias):
    x, xt = _pair(in_shape, 0, requires_grad=True)
    w, wt = _pair((6, 3), 1, requires_grad=True)
    b, bt = _pair((6,), 2, requires_grad=True) if bias else (None, None)
    # three steps: the first backward runs node by node, later ones as one fused program
    for _ in range(3):
        y, yt = F.linear(x, w, b), torch.nn.functional.linear(xt, wt, bt)
        _close(y, yt)
        assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__
        names = [type(f).__name__ if f is not None else None for f, _ in y.grad_fn.next_functions]
        assert names == [type(f).__name__ if f is not None else None for f, _ in yt.grad_fn.next_functions]
        (y * y).sum().backward()
        (yt * yt).sum().backward()
        for p, q in ((x, xt), (w, wt), (b, bt)):
            if p is not None:
                _close(p.grad, q.grad, 1e-4)


def test_linear_double_backward_matches_pytorch():
    x, xt = _pair((4, 3), 3, requires_grad=True)
    w, wt = _pair((5, 3), 4, requires_grad=True)
    b, bt = _pair((5,), 5, requires_grad=True)
    g, = tg.autograd.grad((F.linear(x, w, b) ** 2).sum(), w, create_graph=True)
    gt, = torch.autograd.grad((torch.nn.functional.linear(xt, wt, bt) ** 2).sum(), wt, create_graph=True)
    _close(g, gt, 1e-4)
    (g * g).sum().backward()
    (gt * gt).sum().backward()
    _close(x.grad, xt.grad, 1e-3)
    _close(w.grad, wt.grad, 1e-3)


def test_the_transpose_node_sees_pytorchs_gradient_shapes():
    seen = {}
    x, xt = _pair((4, 3), 6)
    w, wt = _pair((5, 3), 7, requires_grad=True)
    b, bt = _pair((5,), 8, requires_grad=True)
    for name, m, args in (("tg", tg, (x, w, b)), ("torch", torch, (xt, wt, bt))):
        y = m.nn.functional.linear(*args)
        node = y.grad_fn.next_functions[2][0]

        def hook(grad_inputs, grad_outputs, name=name):
            seen[name] = ([tuple(g.shape) for g in grad_inputs if g is not None],
                          [tuple(g.shape) for g in grad_outputs if g is not None])
        node.register_hook(hook)
        y.sum().backward()
    assert seen["tg"] == seen["torch"]


def test_a_weight_changed_in_place_after_linear_fails_backward_as_in_pytorch():
    errors = []
    x, xt = _pair((4, 3), 9, requires_grad=True)
    w, wt = _pair((5, 3), 10, requires_grad=True)
    for m, a, p in ((tg, x, w), (torch, xt, wt)):
        y = m.nn.functional.linear(a, p)
        with m.no_grad():
            p.mul_(2)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        errors.append(str(info.value).split(";")[0])
    assert errors[0] == errors[1]


def test_a_stale_transposed_view_is_read_as_it_is_now():
    # w.t() computed, then w written in place: the view's value is stale, and mm folds it
    x, xt = _pair((4, 3), 11, requires_grad=True)
    w, wt = _pair((5, 3), 12, requires_grad=True)
    results = []
    for m, a, p in ((tg, x, w), (torch, xt, wt)):
        v = p.t()
        with m.no_grad():
            p.add_(1.0)
        y = a.mm(v)
        (y * y).sum().backward()
        results.append((y, a.grad, p.grad, v))
    for mine, theirs in zip(*results):
        _close(mine, theirs, 1e-4)


def test_modules_train_as_in_pytorch():
    tg.manual_seed(0)
    model = tg.nn.Sequential(tg.nn.Linear(6, 8), tg.nn.Tanh(), tg.nn.Linear(8, 3))
    twin = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    with torch.no_grad():
        for p, q in zip(twin.parameters(), model.parameters()):
            p.copy_(torch.tensor(np.asarray(q.detach())))
    opt, opt_t = tg.optim.SGD(model.parameters(), lr=0.1), torch.optim.SGD(twin.parameters(), lr=0.1)
    x, xt = _pair((10, 6), 13)
    for _ in range(5):
        for o, net, a in ((opt, model, x), (opt_t, twin, xt)):
            o.zero_grad()
            net(a).pow(2).mean().backward()
            o.step()
    for p, q in zip(model.parameters(), twin.parameters()):
        _close(p, q, 1e-5)


def test_dtensor_and_meta_weights_and_plain_ones_after_them_without_torch():
    # once a DTensor exists, dispatch has its hook: a DTensor weight's transpose is computed as
    # usual (the hook runs it); a meta weight's is shapes only; a plain weight is still read in place
    meta = tg.nn.Linear(3, 5, device="meta")
    assert F.linear(tg.empty(4, 3, device="meta"), meta.weight, meta.bias).shape == (4, 5)
    from tensorgrad.distributed.device_mesh import init_device_mesh
    from tensorgrad.distributed.tensor import distribute_tensor, Replicate
    mesh = init_device_mesh("cpu", (1,))
    x, w, b = tg.randn(4, 3), tg.randn(5, 3), tg.randn(5)
    dx, dw, db = (distribute_tensor(t, mesh, [Replicate()]) for t in (x, w, b))
    dw.requires_grad_()
    out = F.linear(dx, dw, db)
    out.sum().backward()
    np.testing.assert_allclose(np.asarray(out.to_local().detach()), np.asarray(F.linear(x, w, b)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(dw.grad.to_local()), np.tile(np.asarray(x).sum(0), (5, 1)), rtol=1e-5)
    test_linear_computes_no_transposed_weight_without_torch()


# ---------------------------------------------------------------------- a dataset's rows, x[i]

def _select_programs():
    entry = _cache.KERNELS.get(V.select)
    if entry is None:
        return 0
    return sum(j._cache_size() for j in (entry.fast, entry.plain)) if hasattr(entry, "fast") else entry._cache_size()


def test_rows_compute_no_select_and_stack_as_one_gather_without_torch():
    from tensorgrad._ops import indexing as IX
    from tensorgrad._tensor import stacked_rows
    data = np.random.default_rng(3).standard_normal((11, 17)).astype(np.float32)    # a shape no other test uses
    x = tg.tensor(data)
    before = _select_programs()
    rows = [x[i] for i in (4, 0, 10, 4, -1)]
    assert [tuple(r.shape) for r in rows] == [(17,)] * 5 and rows[0].dtype is tg.float32
    assert stacked_rows(rows, V.select, IX.index_select) is not None
    shared = tg.from_numpy(data.copy())
    assert stacked_rows([shared[1], shared[2]], V.select, IX.index_select) is not None
    batch = tg.stack(rows)
    assert _select_programs() == before         # no row was computed on its own
    np.testing.assert_array_equal(batch.numpy(), data[[4, 0, 10, 4, 10]])
    np.testing.assert_array_equal(rows[2].numpy(), data[10])       # a row read alone is computed then


def _rows_script(m, data, labels):
    out = []
    x = m.tensor(data)
    y = m.tensor(labels)
    r = x[2]
    x[2, 1] = 100.0                                 # a write before the row is first read
    out.append(r.clone())
    x.add_(1)                                       # and after
    out += [r.clone(), m.tensor([r._version, x._version]), m.tensor([r.stride()[0], r.storage_offset()])]
    x[-1].mul_(2)                                   # a write through a row
    out.append(x.clone())
    s = m.stack([x[1], x[3], x[1]])
    x[1] = 0.0                                      # the stack is a copy
    out += [s, m.stack([x[1], x[3]], dim=-2), m.stack([x[0], x[2]], dim=1), m.stack([y[0], y[2], y[1]])]
    other = m.tensor(data * 3)
    out.append(m.stack([x[0], other[1]]))           # rows of two tensors
    out.append(m.stack([x[0], x[1:][0]]))           # a row of a view
    res = m.empty(2, data.shape[1], dtype=m.float64)
    m.stack([x[0], x[3]], out=res)
    out.append(res)
    b = m.tensor(data > 0)
    out.append(m.stack([b[0], b[3]]))
    arr = data.copy()
    h = m.from_numpy(arr)                           # rows of memory shared with numpy
    hr = h[1]
    arr[1, 0] = 42.0                                # a numpy write after the row was made
    out.append(hr.clone())
    hs = m.stack([h[0], h[1]])
    arr[0, 0] = -5.0
    out += [hs, m.stack([h[0], h[3]])]
    h[2].add_(1)                                    # a write through a row reaches the numpy memory
    out.append(m.tensor(arr.copy()))
    w = m.tensor(data, requires_grad=True)
    g = m.stack([w[0], w[2], w[0]])
    (g * m.tensor(np.arange(g.numel(), dtype=np.float32).reshape(g.shape))).sum().backward()
    out += [w.grad, m.tensor([type(g.grad_fn).__name__ == "StackBackward0", w[1].grad_fn is not None])]
    with m.no_grad():
        n = m.stack([w[1], w[3]])
        out += [n, m.tensor([n.requires_grad, w[1].requires_grad])]
    with m.inference_mode():
        i = m.stack([x[0], x[1]])
        out += [i, m.tensor([i.is_inference()])]
    return [t.detach() for t in out]


def test_rows_and_their_stacks_match_pytorch():
    rng = np.random.default_rng(5)
    data = rng.standard_normal((4, 3)).astype(np.float32)
    labels = rng.integers(0, 10, 4)
    ours, theirs = _rows_script(tg, data, labels), _rows_script(torch, data, labels)
    assert len(ours) == len(theirs)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape), k
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=str(k))
