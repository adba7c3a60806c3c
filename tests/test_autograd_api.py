"""Higher-order gradients, hooks in PyTorch's order, anomaly mode and the autograd API's errors.

Higher-order derivatives are checked against ``jax.grad``/``jax.hessian``/``jax.jvp`` of the same
function written in JAX (always) and against PyTorch (when installed). Hook cases run one
scenario with ``torch`` bound to tensorgrad and to PyTorch and compare the logs line by line.
"""

import os
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tensorgrad as tg
from scenarios import normalize as _normalize, run_scenario, same_log


@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


def _np(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


# --------------------------------------------------------------------------------------------
# higher order: to third order, against jax and torch

def f_scalar(m, x):
    return (x.sin() * x ** 3).sum() + (x.exp() * x).sum() / 3


def f_scalar_jax(x):
    return jnp.sum(jnp.sin(x) * x ** 3) + jnp.sum(jnp.exp(x) * x) / 3


X0 = np.array([0.3, -1.2, 0.7], dtype=np.float64)


def third_order(m, x0):
    """First, second and third derivatives of f along the diagonal, through the tape."""
    x = m.tensor(x0, requires_grad=True)
    (g1,) = m.autograd.grad(f_scalar(m, x), x, create_graph=True)
    (g2,) = m.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = m.autograd.grad(g2.sum(), x)
    return [_np(g) for g in (g1, g2, g3)]


def test_third_order_matches_jax():
    g1, g2, g3 = third_order(tg, X0)
    d1 = jax.grad(f_scalar_jax)
    d2 = jax.grad(lambda x: jnp.sum(d1(x)))
    d3 = jax.grad(lambda x: jnp.sum(d2(x)))
    np.testing.assert_allclose(g1, d1(X0), rtol=1e-12)
    np.testing.assert_allclose(g2, d2(X0), rtol=1e-12)
    np.testing.assert_allclose(g3, d3(X0), rtol=1e-12)


def test_third_order_matches_torch(torch_):
    for ours, theirs in zip(third_order(tg, X0), third_order(torch_, X0)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def two_args(m, x, w):
    return ((x @ w).tanh() ** 2).sum() + (x * x).sum() * w.sum()


def two_args_jax(x, w):
    return jnp.sum(jnp.tanh(x @ w) ** 2) + jnp.sum(x * x) * jnp.sum(w)


XA = np.array([[0.5, -0.2], [0.1, 0.9]], dtype=np.float64)
WA = np.array([[1.0, -0.5], [0.3, 0.2]], dtype=np.float64)
VA = np.array([[0.2, 1.0], [-1.0, 0.5]], dtype=np.float64)


def hessian_rows(m):
    """The Hessian of two_args w.r.t. x, row by row with create_graph, and an HVP by double backward."""
    x = m.tensor(XA, requires_grad=True)
    w = m.tensor(WA, requires_grad=True)
    (gx,) = m.autograd.grad(two_args(m, x, w), x, create_graph=True)
    rows = []
    for i in range(x.numel()):
        (row,) = m.autograd.grad(gx.reshape(-1)[i], x, retain_graph=True)
        rows.append(_np(row).reshape(-1))
    v = m.tensor(VA)
    hvp_x, hvp_w = m.autograd.grad((gx * v).sum(), [x, w])
    return np.stack(rows), _np(hvp_x), _np(hvp_w)


def test_hessian_and_hvp_match_jax():
    hess, hvp_x, hvp_w = hessian_rows(tg)
    expected = jax.hessian(two_args_jax)(XA, WA).reshape(4, 4)
    np.testing.assert_allclose(hess, expected, rtol=1e-10, atol=1e-12)
    grad_x = jax.grad(two_args_jax)
    _, jvp_x = jax.jvp(lambda x: grad_x(x, WA), (XA,), (VA,))
    np.testing.assert_allclose(hvp_x, jvp_x, rtol=1e-10, atol=1e-12)
    mixed = jax.grad(lambda w: jnp.sum(grad_x(XA, w) * VA))(WA)
    np.testing.assert_allclose(hvp_w, mixed, rtol=1e-10, atol=1e-12)


def test_hessian_and_hvp_match_torch(torch_):
    for ours, theirs in zip(hessian_rows(tg), hessian_rows(torch_)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_higher_order_through_views_inplace_and_custom_function():
    class Cube(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    def program(x):
        y = x.clone()
        y[1:] = y[1:] * 2
        return Cube.apply(y).sum() + y.t().sum() if y.dim() == 2 else Cube.apply(y).sum()

    def program_jax(x):
        y = x.at[1:].multiply(2)
        return jnp.sum(y ** 3)

    x = tg.tensor([0.5, -1.0, 2.0], dtype=tg.float64, requires_grad=True)
    (g,) = tg.autograd.grad(program(x), x, create_graph=True)
    (h,) = tg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(_np(g), jax.grad(program_jax)(_np(x)), rtol=1e-12)
    np.testing.assert_allclose(_np(h), jax.grad(lambda v: jnp.sum(jax.grad(program_jax)(v)))(_np(x)), rtol=1e-12)


# --------------------------------------------------------------------------------------------
# create_graph: what requires grad, and the names PyTorch gives .grad

def scenario_create_graph_names(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    (x * x).sum().backward(create_graph=True)
    first = x.grad
    log((first, first.grad_fn.name(), first.grad_fn.next_functions))
    (x * x).sum().backward(create_graph=True)
    log((x.grad, x.grad is first))
    x.grad = None
    (x * 2).sum().backward(create_graph=True)
    log((x.grad, x.grad.requires_grad))
    x.grad = m.ones(2)
    (x * x).sum().backward(create_graph=True)
    log(x.grad)
    x64 = m.tensor([1., 2.], dtype=m.float64, requires_grad=True)
    (x64.float() ** 2).sum().backward(create_graph=True)
    log(x64.grad)
    g = x64.grad
    x64.grad = None
    g.sum().backward()
    log(x64.grad)


def test_create_graph_grad_names_match_torch(torch_):
    same_log(torch_, scenario_create_graph_names)


def scenario_create_graph_dependence(m, log):
    x = m.tensor(3., requires_grad=True)
    (dy,) = m.autograd.grad(x ** 3, x, create_graph=True)
    (d2,) = m.autograd.grad(dy, x, create_graph=True)
    (d3,) = m.autograd.grad(d2, x, retain_graph=True)
    log((dy.item(), d2.item(), d3, dy.requires_grad, d2.requires_grad, d3.requires_grad))
    (d3,) = m.autograd.grad(d2, x, create_graph=True)
    log((d3.item(), d3.requires_grad))
    log(m.autograd.grad(d3, x, allow_unused=True, materialize_grads=True))
    m.autograd.grad(m.autograd.grad(d2, x)[0], x)


def test_create_graph_results_that_do_not_depend_on_inputs(torch_):
    same_log(torch_, scenario_create_graph_dependence)


def test_create_graph_result_requires_grad_only_when_dependent():
    x = tg.tensor([1., 2.], requires_grad=True)
    (g,) = tg.autograd.grad((x * 2).sum(), x, create_graph=True)
    assert not g.requires_grad and repr(g) == "tensor([2., 2.])"
    (g,) = tg.autograd.grad((x * x).sum(), x, create_graph=True)
    assert repr(g) == "tensor([2., 4.], grad_fn=<AddBackward0>)"
    (g,) = tg.autograd.grad(x.sum() * 3, x, create_graph=True)
    assert not g.requires_grad


def test_is_grads_batched_with_create_graph_matches_jax():
    x = tg.tensor([1., 2., 3.], dtype=tg.float64, requires_grad=True)
    (rows,) = tg.autograd.grad(x.sin() * x, x, tg.eye(3, dtype=tg.float64), is_grads_batched=True,
                               create_graph=True)
    jac = jax.jacrev(lambda v: jnp.sin(v) * v)(np.array([1., 2., 3.]))
    np.testing.assert_allclose(_np(rows), jac, rtol=1e-12)
    (again,) = tg.autograd.grad(rows.sum(), x)
    np.testing.assert_allclose(_np(again), jax.grad(lambda v: jnp.sum(jax.jacrev(lambda u: jnp.sin(u) * u)(v)))(
        np.array([1., 2., 3.])), rtol=1e-12)


# --------------------------------------------------------------------------------------------
# autograd.grad and backward: arguments and errors (PyTorch's types and messages)

def scenario_grad_errors(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    w = m.tensor([3., 4.], requires_grad=True)
    cases = [
        lambda: m.autograd.grad((x * 2).sum(), [x, w]),
        lambda: m.autograd.grad((x * 2).sum(), [x, w], allow_unused=False, materialize_grads=True),
        lambda: m.autograd.grad(m.ones(2).sum(), x),
        lambda: m.autograd.grad((x * 2).sum(), [x, m.ones(2)], allow_unused=True),
        lambda: m.autograd.grad(x * 2, x, grad_outputs=m.ones(3)),
        lambda: m.autograd.grad(x * 2, x, grad_outputs=m.ones(1)),
        lambda: m.autograd.grad(x * 2, x),
        lambda: m.autograd.grad((x * 2).sum(), x, grad_outputs=[[1.]]),
        lambda: m.autograd.grad([(x * 2).sum(), x.sum()], x, grad_outputs=[m.tensor(1.)]),
        lambda: m.autograd.grad((x * 2).sum(), [x, 3]),
        lambda: m.autograd.grad((x * 2).sum(), []),
        lambda: m.autograd.grad(x * 2, x, grad_outputs=m.ones(3, 3), is_grads_batched=True),
        lambda: m.autograd.grad(x * 2, x, grad_outputs=m.ones(2, dtype=m.complex64)),
        lambda: (x * 2).sum().backward(inputs=[]),
        lambda: (x * 2).sum().backward(inputs=[m.ones(2)]),
        lambda: (x * 2).sum().backward(inputs=[x, 3]),
        lambda: m.autograd.backward([(x * 2).sum(), x.sum()], [None]),
    ]
    for case in cases:
        try:
            log(("ok", case()))
        except Exception as e:  # noqa: BLE001 - logged
            log((type(e).__name__, str(e)))


def test_grad_and_backward_errors_match_torch(torch_):
    same_log(torch_, scenario_grad_errors)


def test_grad_errors_without_torch():
    x = tg.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a grad_fn$"):
        tg.autograd.grad(tg.ones(2).sum(), x)
    with tg.no_grad():
        view = x[:1]        # requires grad (as its base) but no gradient reaches it, as in PyTorch
    assert view.requires_grad and view.grad_fn is None
    for differentiate in (lambda: tg.autograd.grad(view, [x], tg.ones(1)), lambda: view.backward(tg.ones(1))):
        with pytest.raises(RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a "):
            differentiate()
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of torch.Size\(\[3\]\) "
                                           r"and output\[0\] has a shape of torch.Size\(\[2\]\).$"):
        tg.autograd.grad(x * 2, x, grad_outputs=tg.ones(3))
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        tg.autograd.grad((x * 2).sum(), [x, tg.tensor([1.], requires_grad=True)])
    assert x.grad is None


def scenario_grad_semantics(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    w = m.tensor([3., 4.], requires_grad=True)
    h = x * 3
    k = h * 2
    k.retain_grad()
    k.register_hook(lambda g: log(("k hook", g)))
    w.register_hook(lambda g: log(("w hook, never run", g)))
    out = (h * w + k).sum()
    log(m.autograd.grad(out, x, retain_graph=True))
    log((k.grad, x.grad, w.grad))
    log(m.autograd.grad(out, [h, x], retain_graph=True))
    log(m.autograd.grad([out, x.sum()], [x, x], grad_outputs=[m.tensor(2.), None], retain_graph=True))
    log(m.autograd.grad(h, x, grad_outputs=m.tensor([[1., 0.], [0., 2.]]), is_grads_batched=True, retain_graph=True))
    log(m.autograd.grad(out, [x, m.tensor([1.], requires_grad=True)], materialize_grads=True))


def test_grad_semantics_match_torch(torch_):
    same_log(torch_, scenario_grad_semantics)


def scenario_backward_inputs(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    w = m.tensor([3., 4.], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda p: log(("post-acc", p.grad)))
    x.register_hook(lambda g: log(("x hook", g)))
    w.register_hook(lambda g: log(("w hook", g)))
    h = x * 3
    h.retain_grad()
    out = (h * w).sum()
    out.backward(inputs=[x], retain_graph=True)
    log((x.grad, w.grad, h.grad))
    out.backward(inputs=w, retain_graph=True)
    log((x.grad, w.grad))
    x.grad = None
    out.backward(inputs=[h], retain_graph=True)
    log((h.grad, h.retains_grad, x.grad))
    m.autograd.backward([out], inputs=[w, x])
    log((x.grad, w.grad))


def test_backward_inputs_match_torch(torch_):
    same_log(torch_, scenario_backward_inputs)


# --------------------------------------------------------------------------------------------
# hooks (reference section 5), every case compared with PyTorch's log

def scenario_full_order(m, log):
    x = m.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    x.register_hook(lambda g: log(("x hook1", g)))
    x.register_hook(lambda g: g * 10)
    x.register_hook(lambda g: log(("x hook3 sees", g)))
    y.register_hook(lambda g: log(("y hook", g)))
    y.register_hook(lambda g: g + 1)
    y.grad_fn.register_prehook(lambda gout: log(("MulBackward0 prehook", gout)))
    y.grad_fn.register_hook(lambda gin, gout: log(("MulBackward0 hook", gin, gout)))
    acc = y.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda gout: log(("AccumulateGrad prehook", gout)))
    acc.register_hook(lambda gin, gout: log(("AccumulateGrad hook", gin, gout)))
    x.register_post_accumulate_grad_hook(lambda p: log(("x post-acc", p.grad)))
    y.sum().backward()
    log(("x.grad", x.grad))


def scenario_fan_in_fires_once(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: log(("y", g)))
    x.register_hook(lambda g: log(("x", g)))
    (y * 2 + y * 3).sum().backward()
    log(x.grad)


def scenario_hook_replaces_and_chains(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    h1 = x.register_hook(lambda g: g * 2)
    x.register_hook(lambda g: log(("second sees", g)))
    (x * 3).sum().backward()
    log(x.grad)
    h1.remove()
    x.grad = None
    (x * 3).sum().backward()
    log(x.grad)


def scenario_hook_changes_size(m, log):
    x = m.tensor([1., 2.], requires_grad=True)

    def widen(g):
        return m.ones(3)
    x.register_hook(widen)
    (x * 1).sum().backward()


def scenario_lambda_changes_size(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: g.sum())
    y.sum().backward()


def scenario_hook_on_no_grad(m, log):
    m.ones(2).register_hook(lambda g: g)


def scenario_hook_in_place(m, log):
    x = m.tensor([1., 1.], requires_grad=True)
    x.register_hook(lambda g: g.mul_(100))
    (x * 1).sum().backward()
    log(x.grad)


def scenario_hooks_with_autograd_grad(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    x.register_post_accumulate_grad_hook(lambda p: log("post-acc must not run"))
    log(m.autograd.grad((x * 3).sum(), x))
    y = x * 1
    y.register_hook(lambda g: g * 10)
    log(m.autograd.grad((y * y).sum(), y))
    log(x.grad)


def scenario_retain_grad_after_hooks(m, log):
    x = m.tensor([1., 1., 1.], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 100)
    y.retain_grad()
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    log((y.grad, x.grad))
    z = x * 2
    z.retain_grad()
    z.register_hook(lambda g: g * 100)
    z.sum().backward()
    log((z.grad, z.retains_grad, x.retains_grad))
    x.retain_grad()
    log(x.retains_grad)
    m.ones(2).retain_grad()


def scenario_retained_grad_accumulates(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    y = x * 1
    y.retain_grad()
    s = y.sum()
    s.backward(retain_graph=True)
    g = y.grad
    s.backward()
    log((y.grad, y.grad is g))


def scenario_post_accumulate(m, log):
    x = m.tensor([2., 4.], requires_grad=True)

    def halve(p):
        p.grad.mul_(0.5)
    x.register_post_accumulate_grad_hook(halve)
    (x * 1).sum().backward()
    log(x.grad)
    y = x * 1
    try:
        y.register_post_accumulate_grad_hook(halve)
    except RuntimeError as e:
        log(str(e))
    x.register_post_accumulate_grad_hook(lambda p: p.grad.mul_(0.5))
    (x * 1).sum().backward()


def scenario_node_hooks_replace(m, log):
    x = m.tensor([1., 1., 1.], requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda gout: (gout[0] * 3,))
    y.sum().backward()
    log(x.grad)
    x.grad = None
    y = x * 2
    y.grad_fn.register_hook(lambda gin, gout: (gin[0] * 0 + 7, None))
    y.sum().backward()
    log(x.grad)
    x.grad = None
    c = m.tensor([1., 2., 3.])
    y = x * c
    handle = y.grad_fn.register_hook(lambda gin, gout: log(("post", gin, gout)))
    y.sum().backward(retain_graph=True)
    handle.remove()
    y.sum().backward()
    log(x.grad)


def scenario_each_pass_gets_its_own_grad(m, log):
    x = m.tensor([1., 1.], requires_grad=True)
    x.register_hook(lambda g: log(("hook", g)))
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    log(x.grad)


def scenario_hooks_with_create_graph(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    y = x * x
    y.register_hook(lambda g: log(("y hook", g.requires_grad, g)))
    y.grad_fn.register_prehook(lambda gout: log(("pre", gout[0].requires_grad)))
    (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
    log(g)


HOOK_SCENARIOS = [scenario_full_order, scenario_fan_in_fires_once, scenario_hook_replaces_and_chains,
                  scenario_hook_changes_size, scenario_lambda_changes_size, scenario_hook_on_no_grad,
                  scenario_hook_in_place, scenario_hooks_with_autograd_grad, scenario_retain_grad_after_hooks,
                  scenario_retained_grad_accumulates, scenario_post_accumulate, scenario_node_hooks_replace,
                  scenario_each_pass_gets_its_own_grad, scenario_hooks_with_create_graph]


@pytest.mark.parametrize("scenario", HOOK_SCENARIOS, ids=[s.__name__[9:] for s in HOOK_SCENARIOS])
def test_hooks_match_torch(torch_, scenario):
    same_log(torch_, scenario)


def test_full_hook_order_matches_reference():
    # the exact text is compared with PyTorch above; this checks the reference's order without it
    log = run_scenario(tg, scenario_full_order)
    events = [entry.split(",")[0].strip("('\"") for entry in log]
    assert events == ["y hook", "MulBackward0 prehook", "MulBackward0 hook", "x hook1", "x hook3 sees",
                      "AccumulateGrad prehook", "x post-acc", "AccumulateGrad hook", "x.grad"]
    assert "tensor([40., 40., 40.])" in log[-1]


# --------------------------------------------------------------------------------------------
# anomaly mode (reference section 9)

def _sqrt_model(m, x):
    return m.sqrt(x)


def test_anomaly_reports_node_and_forward_stack():
    x = tg.tensor([0., 1.], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tg.autograd.detect_anomaly():
            y = _sqrt_model(tg, x)
            with pytest.raises(RuntimeError, match=r"^Function 'SqrtBackward0' returned nan values in its 0th "
                                                   r"output.$"):
                (y * 0).sum().backward()
    messages = [str(w.message) for w in caught]
    assert messages[0] == ("Anomaly Detection has been enabled. This mode will increase the runtime and should "
                           "only be enabled for debugging.")
    report = messages[1]
    assert report.startswith("Error detected in SqrtBackward0. Traceback of forward call that caused the error:\n")
    assert report.endswith(" (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
                           "python_anomaly_mode.cpp:122.)")
    assert "in _sqrt_model\n    return m.sqrt(x)\n" in report
    assert "y = _sqrt_model(tg, x)" in report
    # no frame from inside the package (the checkout itself may sit in a folder named tensorgrad)
    assert os.path.dirname(tg.__file__) + os.sep not in report
    assert x.grad is None
    assert not tg.is_anomaly_enabled()


def test_without_anomaly_nan_flows_and_check_nan_false():
    x = tg.tensor([0., 1.], requires_grad=True)
    (tg.sqrt(x) * 0).sum().backward()
    assert repr(x.grad) == "tensor([nan, 0.])"
    x.grad = None
    with tg.autograd.set_detect_anomaly(True, check_nan=False):
        assert tg.is_anomaly_enabled() and not tg.is_anomaly_check_nan_enabled()
        (tg.sqrt(x) * 0).sum().backward()
    assert repr(x.grad) == "tensor([nan, 0.])"
    assert not tg.is_anomaly_enabled() and tg.is_anomaly_check_nan_enabled()
    tg.autograd.set_detect_anomaly(True)
    try:
        assert tg.is_anomaly_enabled()
    finally:
        tg.autograd.set_detect_anomaly(False)
    assert not tg.is_anomaly_enabled()


def scenario_anomaly_inplace(m, log):
    with m.autograd.detect_anomaly():
        a = m.tensor([1., 2.], requires_grad=True)
        b = a.sigmoid()
        b.mul_(2)
        b.sum().backward()


def test_anomaly_messages_match_torch(torch_):
    ours = run_scenario(tg, scenario_anomaly_inplace)
    theirs = run_scenario(torch_, scenario_anomaly_inplace)
    assert ours[0] == theirs[0]  # the error, with the "Good luck!" hint
    assert "Good luck!" in ours[0]
    assert ours[1] == theirs[1]  # the warning on entering
    assert ours[2].startswith(repr(("warning", "UserWarning",
                                     "Error detected in SigmoidBackward0. Traceback of forward call that caused "
                                     "the error:\n"))[:-2])
    assert theirs[2].split("\\n")[0] == ours[2].split("\\n")[0]


def test_anomaly_reports_custom_function_and_failing_backward():
    class Bad(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    x = tg.tensor([1.], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tg.autograd.detect_anomaly():
            y = Bad.apply(x)
            with pytest.raises(ValueError, match="boom"):
                y.sum().backward()
    assert str(caught[1].message).startswith("Error detected in BadBackward. Traceback of forward call")
    assert "y = Bad.apply(x)" in str(caught[1].message)


# --------------------------------------------------------------------------------------------
# autograd.functional: against PyTorch (values, layouts, errors) and against JAX

def scenario_functional(m, log):
    AF = m.autograd.functional
    x = m.tensor([1., 2.])
    f = lambda t: t ** 2 * 3  # noqa: E731
    cases = [
        lambda: AF.jacobian(f, x),
        lambda: AF.jacobian(f, x, vectorize=True),
        lambda: AF.jacobian(f, x, vectorize=True, strategy="forward-mode"),
        lambda: AF.jacobian(lambda t: m.ones(2), x),
        lambda: AF.jacobian(lambda a, b: (a * b, a + b), (x, x)),
        lambda: AF.jacobian(lambda t: t.sum(), m.tensor(2.)),
        lambda: AF.jacobian(f, x, create_graph=True).requires_grad,
        lambda: AF.hessian(lambda t: (t ** 3).sum(), x),
        lambda: AF.hessian(lambda a, b: (a * b * b).sum(), (x, x)),
        lambda: AF.vjp(f, x, m.ones(2)),
        lambda: AF.vjp(lambda t: t.sum(), x),
        lambda: AF.vjp(f, (x,), (m.ones(2),)),
        lambda: AF.jvp(f, x, m.ones(2)),
        lambda: AF.jvp(f, m.tensor([3.])),
        lambda: AF.hvp(lambda t: (t ** 3).sum(), x, m.ones(2)),
        lambda: AF.vhp(lambda t: (t ** 3).sum(), x, m.tensor([1., -1.])),
        lambda: AF.vjp(f, x.clone().requires_grad_(), m.ones(2)),
        # errors
        lambda: AF.jacobian(lambda t: m.ones(2), x, strict=True),
        lambda: AF.jacobian(lambda t, s: t * 2, (x, x), strict=True),
        lambda: AF.jacobian(f, [x]),
        lambda: AF.jacobian(lambda t: [t], x),
        lambda: AF.jacobian(f, x, strategy="forward-mode"),
        lambda: AF.jacobian(f, x, strategy="bla"),
        lambda: AF.hessian(lambda a: a * a, x),
        lambda: AF.hessian(lambda a: a.sum(), x, strict=True),
        lambda: AF.vjp(f, x),
        lambda: AF.vjp(f, x, m.ones(3)),
        lambda: AF.vjp(lambda t: t.detach(), x, m.ones(2), strict=True),
        lambda: AF.jvp(f, x),
        lambda: AF.jvp(f, x, m.ones(3)),
        lambda: AF.hvp(lambda t: t ** 3, x, m.ones(2)),
        lambda: AF.hvp(lambda t: (t * t).sum(), x, m.ones(2), strict=True),
        lambda: AF.hvp(lambda t: t.sum(), x, m.ones(2), strict=True),
    ]
    for case in cases:
        try:
            log(("ok", case()))
        except Exception as e:  # noqa: BLE001 - logged
            log((type(e).__name__, str(e)))


def test_functional_matches_torch(torch_):
    same_log(torch_, scenario_functional)


def test_functional_matches_jax():
    AF = tg.autograd.functional
    fn = lambda a, b: (a.sin() * b).sum() * a  # noqa: E731
    fn_jax = lambda a, b: jnp.sum(jnp.sin(a) * b) * a  # noqa: E731
    a0 = np.array([0.3, -0.8, 1.1])
    b0 = np.array([1.0, 2.0, -0.5])
    ja, jb = AF.jacobian(fn, (tg.tensor(a0), tg.tensor(b0)))
    ea, eb = jax.jacrev(fn_jax, argnums=(0, 1))(a0, b0)
    np.testing.assert_allclose(_np(ja), ea, rtol=1e-12)
    np.testing.assert_allclose(_np(jb), eb, rtol=1e-12)
    scalar = lambda a: (a.sin() * a ** 2).sum()  # noqa: E731
    scalar_jax = lambda a: jnp.sum(jnp.sin(a) * a ** 2)  # noqa: E731
    np.testing.assert_allclose(_np(AF.hessian(scalar, tg.tensor(a0))), jax.hessian(scalar_jax)(a0), rtol=1e-12)
    _, hv = AF.hvp(scalar, tg.tensor(a0), tg.tensor(b0))
    np.testing.assert_allclose(_np(hv), jax.jvp(jax.grad(scalar_jax), (a0,), (b0,))[1], rtol=1e-12)
    _, vh = AF.vhp(scalar, tg.tensor(a0), tg.tensor(b0))
    np.testing.assert_allclose(_np(vh), jax.jvp(jax.grad(scalar_jax), (a0,), (b0,))[1], rtol=1e-12)
    out, jv = AF.jvp(lambda a: a.sin() * a, tg.tensor(a0), tg.tensor(b0))
    np.testing.assert_allclose(_np(jv), jax.jvp(lambda a: jnp.sin(a) * a, (a0,), (b0,))[1], rtol=1e-12)


def test_functional_create_graph_connects_to_inputs():
    AF = tg.autograd.functional
    x = tg.tensor([0.5, 1.5], dtype=tg.float64, requires_grad=True)
    _, hv = AF.hvp(lambda t: (t ** 4).sum(), x, tg.tensor([1., 0.], dtype=tg.float64), create_graph=True)
    assert hv.requires_grad
    hv.sum().backward()         # d/dx of 12 x0^2 v0 = 24 x0
    np.testing.assert_allclose(_np(x.grad), [24 * 0.5, 0.], rtol=1e-12)
    jac = AF.jacobian(lambda t: t ** 2, x)
    assert not jac.requires_grad


# --------------------------------------------------------------------------------------------
# testing.assert_close, gradcheck and gradgradcheck: messages as PyTorch's

def scenario_testing(m, log):
    tc = m.testing.assert_close
    x = m.tensor([1., 2.], dtype=m.float64, requires_grad=True)
    cases = [
        lambda: tc(m.tensor([1., 2., 3.]), m.tensor([1., 2.5, 3.])),
        lambda: tc(m.tensor([[1., 2.], [3., 4.]]), m.tensor([[1., 2.], [3., 5.]])),
        lambda: tc(m.tensor([1., 2.]), m.tensor([1., 2., 3.])),
        lambda: tc(m.tensor([1., 2.]), m.tensor([1., 2.], dtype=m.float64)),
        lambda: tc(m.tensor([1., 2.]), m.tensor([1., 2.], dtype=m.float64), check_dtype=False),
        lambda: tc(m.tensor([1, 2]), m.tensor([1, 3])),
        lambda: tc(m.tensor(1.), m.tensor(2.)),
        lambda: tc(m.tensor([1., float("nan")]), m.tensor([1., float("nan")])),
        lambda: tc(m.tensor([1., float("nan")]), m.tensor([1., float("nan")]), equal_nan=True),
        lambda: tc(m.tensor([1., 2.]), m.tensor([1., 2.1]), atol=0.2, rtol=0),
        lambda: tc(m.tensor([1., 2.]), m.tensor([1., 2.1]), atol=0.2),
        lambda: tc(m.tensor([1., 2.]), m.tensor([1., 2.1]), msg="custom"),
        lambda: tc([m.tensor([1., 2.])], [m.tensor([1., 2.1])]),
        lambda: tc({"a": m.tensor([1., 2.])}, {"a": m.tensor([1., 2.1])}),
        lambda: tc(1.0, 1.1),
        lambda: tc(m.tensor([1., 2.]), m.tensor([1., 2.]).requires_grad_()),
        lambda: m.autograd.gradcheck(lambda t: (t ** 3).sin(), (x,)),
        lambda: m.autograd.gradcheck(lambda t: t ** 2, (x.float().detach().requires_grad_(),)),
        lambda: m.autograd.gradcheck(lambda t: t ** 2, (x.detach(),)),
        lambda: m.autograd.gradgradcheck(lambda t: (t ** 3).sin(), (x,)),
    ]
    for case in cases:
        try:
            log(("ok", case()))
        except Exception as e:  # noqa: BLE001 - logged
            log((type(e).__name__, str(e)))


def test_testing_matches_torch(torch_):
    same_log(torch_, scenario_testing)


def test_gradcheck_catches_a_wrong_backward():
    class Wrong(tg.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t ** 2

        @staticmethod
        def backward(ctx, g):
            return g

    x = tg.tensor([1., 2.], dtype=tg.float64, requires_grad=True)
    with pytest.raises(tg.testing.GradcheckError) as info:
        tg.autograd.gradcheck(Wrong.apply, (x,))
    assert str(info.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 4.0000]], dtype=torch.float64)\n"
        "analytical:tensor([[1., 0.],\n        [0., 1.]], dtype=torch.float64)\n")
    assert isinstance(info.value, RuntimeError)
    assert tg.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False) is False
