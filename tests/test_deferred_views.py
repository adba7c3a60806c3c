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
