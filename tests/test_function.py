"""``autograd.Function``: the node and ctx, saved tensors, PyTorch's errors, the Legendre-polynomial
fit of PyTorch's tutorial, and the same Function inside JAX transforms (``jax.custom_vjp``).
"""

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tensorgrad as tg
from scenarios import same_log


@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


def _np(t):
    return np.asarray(t.detach().numpy())


# --------------------------------------------------------------------------------------------
# Functions written once for both modules

def functions(m):
    """A namespace of Function subclasses defined against module ``m``."""
    F = m.autograd.Function

    class MyExp(F):
        @staticmethod
        def forward(ctx, x, k):
            y = x.exp() * k
            ctx.save_for_backward(x, y)
            ctx.k = k
            return y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, None

    class NewStyle(F):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    class Two(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.seen = (g1, g2)
            return g1 * 2 + g2 * 3

    class Mixed(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 5

        @staticmethod
        def backward(ctx, g, h):
            ctx.seen = (g, h)
            return g * 2

    class NonDiff(F):
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x.argmax()
            c = x * 3
            ctx.mark_non_differentiable(b, c)
            return a, b, c

        @staticmethod
        def backward(ctx, ga, gb, gc):
            ctx.seen = (ga, gb, gc)
            return ga * 2

    class Lazy(F):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.seen = (g1, g2)
            return g1 * 2 if g2 is None else g1 * 2 + g2 * 3

    class AddOne(F):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class Identity(F):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class Square(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class OnceSquare(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @m.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class KwArgs(F):
        @staticmethod
        def forward(ctx, k, x):
            ctx.seen = ctx.needs_input_grad
            return x * k

        @staticmethod
        def backward(ctx, g):
            return None, g * 2

    return {name: cls for name, cls in locals().items() if isinstance(cls, type)}


def scenario_node_and_ctx(m, log):
    fns = functions(m)
    x = m.tensor([0., 1.], requires_grad=True)
    y = fns["MyExp"].apply(x, 2.0)
    node = y.grad_fn
    log((y, type(node).__name__, type(node).__module__, node.name(), node.next_functions))
    log((node.k, node.needs_input_grad, node.saved_tensors, node is y.grad_fn, node.metadata))
    log(isinstance(node, m.autograd.graph.Node))
    y.sum().backward()
    log(x.grad)
    try:
        node.saved_tensors
    except RuntimeError as e:
        log(str(e))
    with m.no_grad():
        log(fns["MyExp"].apply(x, 1.0))
    log(fns["MyExp"].apply(m.tensor([1.]), 1.0).grad_fn)


def scenario_outputs(m, log):
    fns = functions(m)
    x = m.tensor([1., 2.], requires_grad=True)
    a, b = fns["Two"].apply(x)
    log((a, b, a.grad_fn is b.grad_fn, a.output_nr, b.output_nr))
    a.sum().backward()
    log((a.grad_fn.seen, x.grad))
    out = fns["Mixed"].apply(x)
    log(out)
    out[0].sum().backward()
    log(out[0].grad_fn.seen)
    a, b, c = fns["NonDiff"].apply(x)
    log((a, b, c, b.requires_grad, c.grad_fn))
    a.sum().backward()
    log(a.grad_fn.seen)
    a, b = fns["Lazy"].apply(x)
    a.sum().backward()
    log((a.grad_fn.seen, x.grad))
    y = fns["NewStyle"].apply(x, 3.0)
    log(y)
    y.sum().backward()
    log(x.grad)
    y = fns["KwArgs"].apply(2.0, x=x)
    log((y, y.grad_fn.seen))


def scenario_identity_and_dirty(m, log):
    fns = functions(m)
    x = m.tensor([1., 2.], requires_grad=True)
    y = fns["Identity"].apply(x)
    log((y is x, y, y._version))
    d = x.detach()
    log((fns["Identity"].apply(d) is d, fns["Identity"].apply(d)))
    b = x * 1
    c = fns["AddOne"].apply(b)
    log((c is b, c, c._version, c.grad_fn.next_functions))
    c.sum().backward()
    log(x.grad)
    t = m.ones(2)
    r = fns["AddOne"].apply(t)
    log((r is t, r, t._version))
    fns["AddOne"].apply(x)


def scenario_saved_tensors(m, log):
    fns = functions(m)
    x = m.tensor([1., 2.], requires_grad=True)
    y = fns["Square"].apply(x)
    with m.no_grad():
        x.mul_(1)
    y.sum().backward()


def scenario_saved_second_backward(m, log):
    fns = functions(m)
    x = m.tensor([1., 2.], requires_grad=True)
    y = fns["Square"].apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    log(x.grad)
    y.backward()


def scenario_double_backward(m, log):
    fns = functions(m)
    x = m.tensor([1., 2.], requires_grad=True)
    (g,) = m.autograd.grad(fns["Square"].apply(x).sum(), x, create_graph=True)
    log((g, g.requires_grad))
    log(m.autograd.grad(g.sum(), x))
    (g,) = m.autograd.grad(fns["OnceSquare"].apply(x).sum(), x, create_graph=True)
    log((g, g.requires_grad, g.grad_fn))
    m.autograd.grad(g.sum(), x)


def _bad(m, backward, forward=None):
    """A Function whose backward is ``backward`` (and forward ``x * 2`` unless given)."""
    def fwd(ctx, *args):
        return forward(*args) if forward else args[0] * 2
    return type("Bad", (m.autograd.Function,), {"forward": staticmethod(fwd), "backward": staticmethod(backward)})


def scenario_errors(m, log):
    x = m.tensor([1., 2.], requires_grad=True)
    cases = [
        lambda: _bad(m, lambda ctx, g: 2.0).apply(x),
        lambda: _bad(m, lambda ctx, g: [g]).apply(x),
        lambda: _bad(m, lambda ctx, g: "a").apply(x),
        lambda: _bad(m, lambda ctx, g: (g * 2, 3.0), lambda a, k: a * k).apply(x, 2.0),
        lambda: _bad(m, lambda ctx, g: (g * 2, None, None), lambda a, k: a * k).apply(x, 2.0),
        lambda: _bad(m, lambda ctx, g: (g * 2, None, g), lambda a, k: a * k).apply(x, 2.0),
        lambda: _bad(m, lambda ctx, g: ()).apply(x),
        lambda: _bad(m, lambda ctx, g: g[:1]).apply(x),
        lambda: _bad(m, lambda ctx, g: g.expand(3, 2)).apply(x),
        lambda: _bad(m, lambda ctx, g: g.double()).apply(x),
    ]
    for make in cases:
        x.grad = None
        try:
            make().sum().backward()
            log(("ok", x.grad, x.grad.dtype))
        except Exception as e:  # noqa: BLE001 - logged
            log((type(e).__name__, str(e)))

    class NoBackward(m.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2
    try:
        NoBackward.apply(x).sum().backward()
    except NotImplementedError as e:
        log(str(e))

    class SavesInt(m.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(3)
            return a

    try:
        SavesInt.apply(x)
    except TypeError as e:
        log(str(e))

    class ReturnsNumber(m.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return 3

    log(ReturnsNumber.apply(x))
    functions(m)["Square"]()(x)


@pytest.mark.parametrize("scenario", [scenario_node_and_ctx, scenario_outputs, scenario_identity_and_dirty,
                                      scenario_saved_tensors, scenario_saved_second_backward,
                                      scenario_double_backward, scenario_errors],
                         ids=["node_and_ctx", "outputs", "identity_and_dirty", "saved_tensors",
                              "saved_second_backward", "double_backward", "errors"])
def test_function_matches_torch(torch_, scenario):
    same_log(torch_, scenario)


def test_function_basics_without_torch():
    fns = functions(tg)
    x = tg.tensor([0., 1.], requires_grad=True)
    y = fns["MyExp"].apply(x, 2.0)
    assert repr(y) == "tensor([2.0000, 5.4366], grad_fn=<MyExpBackward>)"
    assert repr(y.grad_fn).startswith("<torch.autograd.function.MyExpBackward object at 0x")
    assert str(type(y.grad_fn)) == "<class 'torch.autograd.function.MyExpBackward'>"
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), 2 * np.exp([0., 1.]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="incorrect number of gradients \\(expected 1, got 2\\)"):
        _bad(tg, lambda ctx, g: (g, g)).apply(x).sum().backward()
    with pytest.raises(RuntimeError, match="^Function BadBackward returned an invalid gradient at index 0 - "
                                           "got \\[1\\] but expected shape compatible with \\[2\\]$"):
        _bad(tg, lambda ctx, g: g[:1]).apply(x).sum().backward()


def test_function_gradcheck():
    fns = functions(tg)
    x = tg.tensor([0.3, -0.7], dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda t: fns["MyExp"].apply(t, 1.5), (x,))
    assert tg.testing.gradgradcheck(fns["Square"].apply, (x,))
    assert not tg.autograd.gradcheck(_bad(tg, lambda ctx, g: g).apply, (x,), raise_exception=False)


# --------------------------------------------------------------------------------------------
# PyTorch's tutorial: fitting sin with a Legendre polynomial P3 written as a Function

def legendre_fit(m, steps):
    class LegendrePolynomial3(m.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    x = m.linspace(-math.pi, math.pi, 2000)
    y = m.sin(x)
    a = m.full((), 0.0, requires_grad=True)
    b = m.full((), -1.0, requires_grad=True)
    c = m.full((), 0.0, requires_grad=True)
    d = m.full((), 0.3, requires_grad=True)
    learning_rate = 5e-6
    losses = []
    for _ in range(steps):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with m.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    return np.array(losses), np.array([a.item(), b.item(), c.item(), d.item()])


def test_legendre_fit_matches_torch(torch_):
    ours_loss, ours_params = legendre_fit(tg, 6)
    torch_loss, torch_params = legendre_fit(torch_, 6)
    np.testing.assert_allclose(ours_loss, torch_loss, rtol=1e-4)
    np.testing.assert_allclose(ours_params, torch_params, rtol=1e-4, atol=1e-6)


def test_legendre_fit_decreases_loss_and_matches_jax():
    losses, params = legendre_fit(tg, 4)
    assert np.all(np.diff(losses) < 0)

    def loss_fn(p, x, y):
        z = p[2] + p[3] * x
        return jnp.sum((p[0] + p[1] * 0.5 * (5 * z ** 3 - 3 * z) - y) ** 2)

    x = np.asarray(tg.linspace(-math.pi, math.pi, 2000).numpy())
    p = jnp.array([0.0, -1.0, 0.0, 0.3], jnp.float32)
    for _ in range(4):
        p = p - 5e-6 * jax.grad(loss_fn)(p, x, np.sin(x))
    np.testing.assert_allclose(params, p, rtol=1e-4, atol=1e-6)


# --------------------------------------------------------------------------------------------
# inside JAX transforms: a jax.custom_vjp that runs the user's backward

class StraightThrough(tg.autograd.Function):
    """round() forward, identity backward: its gradient differs from JAX's derivative of round (0)."""

    @staticmethod
    def forward(ctx, x):
        return x.round()

    @staticmethod
    def backward(ctx, g):
        return g


class Cube(tg.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x ** 3 * scale

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2 * ctx.scale, None


def test_custom_backward_used_by_func_transforms():
    x = tg.tensor([0.4, 1.6, -2.2])
    g = tg.func.grad(lambda t: StraightThrough.apply(t).sum())(x)
    assert repr(g) == "tensor([1., 1., 1.])"
    jac = tg.func.jacrev(StraightThrough.apply)(x)
    np.testing.assert_array_equal(_np(jac), np.eye(3))
    out = tg.func.vmap(StraightThrough.apply)(x)
    assert repr(out) == "tensor([ 0.,  2., -2.])"
    per_row = tg.func.vmap(tg.func.grad(lambda t: (StraightThrough.apply(t) * t).sum()))(tg.tensor([[0.4], [1.6]]))
    np.testing.assert_allclose(_np(per_row), [[0.4 + 0.], [1.6 + 2.]], rtol=1e-6)


def test_custom_backward_used_by_raw_jax_transforms():
    arr = jnp.array([0.4, 1.6, -2.2])
    grads = jax.grad(lambda a: StraightThrough.apply(tg.from_jax(a)).jax().sum())(arr)
    np.testing.assert_array_equal(grads, np.ones(3))
    out = jax.jit(lambda t: StraightThrough.apply(t))(tg.from_jax(arr))
    assert isinstance(out, tg.Tensor) and out.tolist() == [0., 2., -2.]


def test_custom_function_higher_order_in_transforms_matches_jax():
    x = tg.tensor([0.5, -1.5], dtype=tg.float64)
    hess = tg.func.hessian(lambda t: Cube.apply(t, 2.0).sum())(x)
    np.testing.assert_allclose(_np(hess), np.diag(12 * np.array([0.5, -1.5])), rtol=1e-12)
    g2 = tg.func.grad(tg.func.grad(lambda t: Cube.apply(t, 2.0)))(tg.tensor(0.5, dtype=tg.float64))
    assert g2.item() == pytest.approx(12 * 0.5)


def test_custom_function_on_the_tape_inside_jit():
    """A tape step (forward, backward, .grad) traced by jax.jit, as tensorgrad.compile runs one."""
    def step(w_array):
        w = tg.from_jax(w_array).requires_grad_()
        loss = (Cube.apply(w, 0.5) + StraightThrough.apply(w)).sum()
        loss.backward()
        return w.grad.jax()

    arr = jnp.array([1.0, -2.0])
    np.testing.assert_allclose(jax.jit(step)(arr), step(arr), rtol=1e-6)
    np.testing.assert_allclose(step(arr), 1.5 * np.array([1.0, 4.0]) + 1, rtol=1e-6)


def test_function_in_transform_matches_tape():
    x = tg.tensor([0.5, -1.5, 2.0], requires_grad=True)
    (Cube.apply(x, 3.0).sin().sum()).backward()
    g = tg.func.grad(lambda t: Cube.apply(t, 3.0).sin().sum())(x.detach())
    np.testing.assert_allclose(_np(g), _np(x.grad), rtol=1e-6)


def _square_with_jvp(lib):
    """x ** 2 with a deliberately wrong jvp (100 x t), so that a test sees which rule ran."""

    class SquareWithJvp(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(inputs[0])
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return 100 * x * t

    return SquareWithJvp


_SquareWithJvp = _square_with_jvp(tg)


class _SquareNoJvp(_SquareWithJvp):
    jvp = tg.autograd.Function.jvp


def test_forward_mode_uses_the_functions_jvp_as_pytorch():
    torch = pytest.importorskip("torch")
    TorchSquare = _square_with_jvp(torch)
    out, tangent = tg.func.jvp(_SquareWithJvp.apply, (tg.tensor([3.0, -1.0]),), (tg.tensor([1.0, 2.0]),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)     # torch.func.jvp's own torch.jit.script use
        t_out, t_tangent = torch.func.jvp(TorchSquare.apply, (torch.tensor([3.0, -1.0]),),
                                          (torch.tensor([1.0, 2.0]),))
    np.testing.assert_allclose(_np(out), t_out.numpy())
    np.testing.assert_allclose(_np(tangent), t_tangent.numpy())
    # reverse mode keeps using backward; jacfwd uses jvp
    assert tg.func.grad(_SquareWithJvp.apply)(tg.tensor(3.0)).item() == 6.0
    assert tg.func.jacfwd(_SquareWithJvp.apply)(tg.tensor(3.0)).item() == 300.0
    with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
        tg.func.jvp(_SquareNoJvp.apply, (tg.tensor(3.0),), (tg.tensor(1.0),))
