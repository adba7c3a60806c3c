"""backward(), autograd.grad/backward, retain_graph, accumulation, grad modes, and the
gradient of every op against ``jax.grad`` of the same function and against PyTorch.

Differential cases run one snippet with ``torch`` bound to tensorgrad and to real PyTorch and
compare the repr of the last expression (or the exception type and message, and warnings).
"""

import functools
import sys
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tensorgrad as tg
from snippets import cases, ids, same


# --------------------------------------------------------------------------------------------
# the differential harness (``run`` and ``same`` are in snippets.py)

@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _grad_mode_is_restored():
    """Every test leaves grad mode on and inference mode off (in tensorgrad and PyTorch)."""
    yield
    modules = [tg] + ([sys.modules["torch"]] if "torch" in sys.modules else [])
    leaked = [m.__name__ for m in modules if not m.is_grad_enabled() or m.is_inference_mode_enabled()]
    for m in modules:
        m.set_grad_enabled(True)
    assert not leaked, f"grad mode left changed in {leaked}"


SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
    "if you need to access saved tensors after calling backward.")


# --------------------------------------------------------------------------------------------
# backward(): roots and gradients (reference sections 2.1 - 2.3)

BACKWARD_CASES = cases("""
x = torch.tensor([1., 2., 3.], requires_grad=True)
(x * 2).backward()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x[:1] * 2).backward(); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(None)
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (x * 2).sum(); y.backward(); x.grad, y
---
x = torch.tensor([[1., 2.]], requires_grad=True); (x * x)[:, :1].backward(); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(torch.ones(2))
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(torch.tensor(1.))
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(torch.ones(1))
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).sum().backward(torch.ones(1))
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(torch.ones(1, 3))
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).sum().backward(torch.tensor(3.)); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(torch.tensor([1., 2., 3.], dtype=torch.float64)); x.grad, x.grad.dtype
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(torch.tensor([1, 2, 3])); x.grad, x.grad.dtype
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(torch.ones(3, dtype=torch.complex64))
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward([1., 1., 1.])
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(1.)
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(torch.ones(3, requires_grad=True)); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(torch.tensor([0.1, 1.0, 0.0001])); x.grad
---
x = torch.tensor([1., 2., 3.], dtype=torch.float64, requires_grad=True); x.float().sum().backward(); x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); (x.double() * x.double()).sum().backward(); x.grad
---
torch.tensor([1., 2.]).sum().backward()
---
torch.tensor([1, 2]).sum().backward()
---
x = torch.tensor([1., 2.], requires_grad=True)
with torch.no_grad(): y = (x * 2).sum()
y.backward()
---
l = torch.tensor(2., requires_grad=True); l.backward(); l.grad
---
l = torch.tensor([2.], requires_grad=True); l.backward(); l.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = (x * x).sum()
with torch.no_grad(): y.backward()
x.grad
---
x = torch.tensor([1. + 1.j], requires_grad=True); (x * 2).sum().backward()
---
x = torch.tensor([1., 2.], requires_grad=True); y = x * 2
try: y.backward(torch.ones(3))
except RuntimeError: pass
y.backward(torch.ones(2)); x.grad
""")


@pytest.mark.parametrize("src", BACKWARD_CASES, ids=ids(BACKWARD_CASES))
def test_backward_matches_torch(torch_, src):
    same(torch_, src)


def test_implicit_gradient_needs_one_element():
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs$"):
        (x * 2).backward()
    assert x.grad is None
    (x[:1] * 2).backward()
    assert x.grad.tolist() == [2., 0., 0.]


@pytest.mark.parametrize("grad_shape, out_shape", [((2,), (3,)), ((), (3,)), ((1,), (3,)), ((1,), ())])
def test_gradient_shape_must_match_exactly(grad_shape, out_shape):
    x = tg.ones(3, requires_grad=True)
    out = x * 2 if out_shape else (x * 2).sum()
    message = (f"Mismatch in shape: grad_output[0] has a shape of torch.Size({list(grad_shape)}) and output[0] "
               f"has a shape of torch.Size({list(out_shape)}).")
    with pytest.raises(RuntimeError) as info:
        out.backward(tg.ones(grad_shape))
    assert str(info.value) == message
    assert x.grad is None


def test_gradient_argument_values_and_dtypes():
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    (x * 2).sum().backward(tg.tensor(3.))
    assert x.grad.tolist() == [6., 6., 6.]
    x.grad = None
    (x * 2).backward(tg.tensor([1, 2, 3]))
    assert x.grad.tolist() == [2., 4., 6.] and x.grad.dtype is tg.float32
    x.grad = None
    (x * 2).backward(tg.tensor([0.1, 1.0, 0.0001]))
    assert repr(x.grad) == "tensor([2.0000e-01, 2.0000e+00, 2.0000e-04])"
    with pytest.raises(TypeError, match="^gradients can be either Tensors or None, but got float$"):
        (x * 2).backward([1., 1., 1.])
    with pytest.raises(RuntimeError, match="^For complex Tensors, both grad_output and output are required to have "
                                           "the same dtype. Mismatch in dtype: grad_output\\[0\\] has a dtype of "
                                           "torch.complex64 and output\\[0\\] has a dtype of torch.float32.$"):
        (x * 2).backward(tg.ones(3, dtype=tg.complex64))
    assert repr(x.grad) == "tensor([2.0000e-01, 2.0000e+00, 2.0000e-04])"


def test_backward_without_grad_requirement():
    message = "^element 0 of tensors does not require grad and does not have a grad_fn$"
    with pytest.raises(RuntimeError, match=message):
        tg.tensor([1., 2.]).sum().backward()
    with pytest.raises(RuntimeError, match=message):
        tg.tensor([1, 2]).sum().backward()
    x = tg.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match=message):
        tg.autograd.grad(tg.tensor(1.), x)
    leaf = tg.tensor(2., requires_grad=True)
    leaf.backward()
    assert repr(leaf.grad) == "tensor(1.)"


# --------------------------------------------------------------------------------------------
# retain_graph and the second backward (reference section 2.4)

RETAIN_CASES = cases("""
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (x + 2).sum(); y.backward(); y.backward(); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x.sum(); y.backward(); y.backward(); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (x * 2).sum(); y.backward(); y.backward()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (x * 2).sum(); y.backward()
try: y.backward()
except RuntimeError: pass
x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (x * x).sum(); y.backward(retain_graph=True); a = x.grad.clone(); y.backward(); a, x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (x * x).sum(); y.backward(retain_graph=True); y.backward(); y.backward()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x.exp().sum(); y.backward(); y.backward()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x.sigmoid().sum(); y.backward(); y.backward()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x.tanh().sum(); y.backward(); y.backward()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (x ** 2).sum(); y.backward(); y.backward()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (x - 2).sum(); y.backward(); y.backward(); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (-x).sum(); y.backward(); y.backward(); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (1 - x).sum(); y.backward(); y.backward(); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (x / 2).sum(); y.backward(); y.backward()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x.mean(); y.backward(); y.backward(); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x.view(3, 1).t()[0].sum(); y.backward(); y.backward(); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = torch.cat([x, x]).sum(); y.backward(); y.backward(); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = (x + 2) * 3; z = y.sum(); z.backward(); z.backward()
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2; y.backward(torch.ones(3), retain_graph=True); y.backward(torch.ones(3)); x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); y = (x * x).sum(); torch.autograd.grad(y, x); torch.autograd.grad(y, x)
---
x = torch.tensor([1., 2.], requires_grad=True); y = (x * x).sum(); torch.autograd.grad(y, x, retain_graph=True); torch.autograd.grad(y, x)
""")


@pytest.mark.parametrize("src", RETAIN_CASES, ids=ids(RETAIN_CASES))
def test_retain_graph_matches_torch(torch_, src):
    same(torch_, src)


def test_second_backward_only_through_nodes_that_save():
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    y = (x + 2).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2., 2., 2.]
    x.grad = None
    y = (x * 2).sum()
    y.backward()
    with pytest.raises(RuntimeError) as info:
        y.backward()
    assert str(info.value) == SECOND_BACKWARD
    assert x.grad.tolist() == [2., 2., 2.]       # the first backward's grads stay


def test_retain_graph_then_plain_then_error():
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    assert repr(x.grad) == "tensor([2., 4., 6.])"
    y.backward()
    assert repr(x.grad) == "tensor([ 4.,  8., 12.])"
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()
    assert repr(x.grad) == "tensor([ 4.,  8., 12.])"


# --------------------------------------------------------------------------------------------
# accumulation (reference section 2.5)

def test_grad_accumulates_in_place():
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    seen = []
    for _ in range(3):
        (x * x).sum().backward()
        seen.append(x.grad.tolist())
    assert seen == [[2., 4., 6.], [4., 8., 12.], [6., 12., 18.]]
    g = x.grad
    (x * x).sum().backward()
    assert x.grad is g and g.tolist() == [8., 16., 24.]
    assert g.grad_fn is None and not g.requires_grad and g.is_leaf and g.dtype is tg.float32
    assert g.zero_() is g and x.grad is g and g.tolist() == [0., 0., 0.]
    (x * x).sum().backward()
    assert x.grad is g and g.tolist() == [2., 4., 6.]
    x.grad *= 0.5
    assert x.grad is g and g.tolist() == [1., 2., 3.]


def test_leaf_used_twice_gets_summed_gradient():
    x = tg.tensor([1., 2.], requires_grad=True)
    (x * 3 + x * x).sum().backward()
    assert x.grad.tolist() == [5., 7.]


ACCUMULATE_CASES = cases("""
x = torch.tensor([1., 2., 3.], requires_grad=True); g = None
for i in range(3):
    (x * x).sum().backward()
    if g is None: g = x.grad
g is x.grad, g
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * x).sum().backward(); g = x.grad; g.zero_(); g is x.grad, x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); (x * x).sum().backward(); x.grad *= 0.5; x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); (x * 3 + x * x + x.exp()).sum().backward(); x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); y = x * 2; y.retain_grad(); (y * y).sum().backward(retain_graph=True); (y * y).sum().backward(); y.grad, x.grad
""")


@pytest.mark.parametrize("src", ACCUMULATE_CASES, ids=ids(ACCUMULATE_CASES))
def test_accumulation_matches_torch(torch_, src):
    same(torch_, src)


# --------------------------------------------------------------------------------------------
# autograd.backward, autograd.grad, inputs= (reference sections 2.7, 2.8)

API_CASES = cases("""
x = torch.tensor([1., 2.], requires_grad=True); out = x * 3; torch.autograd.backward([out], [torch.ones(2)]); x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); out = x * 3; torch.autograd.backward(out, torch.ones(2)); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = torch.tensor([1., 2.], requires_grad=True); torch.autograd.backward([x.sum(), y.sum()]); x.grad, y.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); torch.autograd.backward([x.sum(), x * 2], [None, torch.ones(3)]); x.grad
---
x = torch.tensor([1., 2., 3.], requires_grad=True); torch.autograd.backward([x.sum(), x * 2], [None])
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad((x * x).sum(), x), x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); v = x * 2; torch.autograd.grad((v ** 2).sum(), v)
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); torch.autograd.grad((x * 2).sum(), [x, w])
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); torch.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); torch.autograd.grad((x * 2).sum(), [x, w], allow_unused=True, materialize_grads=True)
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); torch.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); torch.autograd.grad((x * 2).sum(), [w, x])
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.]); torch.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad(x * 2, x)
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad(x * 2, x, torch.ones(3))
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad(x * 2, x, torch.ones(2))
---
x = torch.tensor([1., 2.], requires_grad=True); v = x * 2; torch.autograd.grad([v.sum(), (x ** 2).sum()], x)
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad(x * 2, x, torch.eye(2), is_grads_batched=True)
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad((x * x) * 3, x, torch.tensor([[1., 0.], [2., 1.], [0., 5.]]), is_grads_batched=True)
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad(torch.tensor(1.), x)
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad((x * 2).sum(), (x,)), torch.autograd.grad((x * 2).sum(), x, grad_outputs=torch.tensor(2.))
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad((x * 2).sum(), x, grad_outputs=[1.])
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad([(x * 2).sum(), x.sum()], x, grad_outputs=[None])
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad((x * 2).sum(), [x, x])
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad((x * 2).sum(), [])
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad((x * 2).sum(), [x, 3])
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad((x * 2).sum(), [x, torch.ones(2)])
---
x = torch.tensor([1., 2.], requires_grad=True); y = x * 2; y.backward(torch.ones(2)); torch.autograd.grad(y.sum(), x)
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); out = (x * w).sum(); out.backward(inputs=[x]); x.grad, w.grad
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); out = (x * w).sum(); out.backward(inputs=x); x.grad, w.grad
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); h = x * 3; (h * w).sum().backward(inputs=[h]); h.grad, x.grad, w.grad, h.retains_grad
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); h = x * 3; (h * w).sum().backward(inputs=[h], retain_graph=True); (h * w).sum().backward(); h.grad, x.grad, w.grad
---
x = torch.tensor([1., 2.], requires_grad=True); (x * 2).sum().backward(inputs=[])
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); (x * 2).sum().backward(inputs=[w]); x.grad, w.grad
---
x = torch.tensor([1., 2.], requires_grad=True); (x * 2).sum().backward(inputs=[torch.ones(2)])
---
x = torch.tensor([1., 2.], requires_grad=True); (x * 2).sum().backward(inputs=[x, 3])
---
x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True); torch.autograd.backward([(x * w).sum()], inputs=[w, x]); x.grad, w.grad
---
x = torch.tensor([1., 2.], requires_grad=True); torch.autograd.grad((x * 2).sum(), x, create_graph=True), torch.autograd.grad((x * x).sum(), x, create_graph=True)
---
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x ** 3; y.backward(torch.ones(3), create_graph=True); x.grad
---
x = torch.tensor(3., requires_grad=True); y = x ** 3; y.backward(create_graph=True); g = x.grad; x.grad = None; g.backward(); g, x.grad
---
x = torch.tensor([1., 2.], requires_grad=True); y = (x * x).sum(); y.backward(create_graph=True); y2 = (x * x).sum(); y2.backward(create_graph=True); x.grad
""")


@pytest.mark.parametrize("src", API_CASES, ids=ids(API_CASES))
def test_autograd_api_matches_torch(torch_, src):
    same(torch_, src)


def test_higher_order_values():
    x = tg.tensor(3., requires_grad=True)
    (dy,) = tg.autograd.grad(x ** 3, x, create_graph=True)
    (d2,) = tg.autograd.grad(dy, x, create_graph=True)
    (d3,) = tg.autograd.grad(d2, x)
    assert (dy.item(), d2.item(), d3.item()) == (27., 18., 6.)
    assert dy.requires_grad and d2.requires_grad and not d3.requires_grad and d3.grad_fn is None


@pytest.mark.xfail(strict=True, reason="create_graph records each backward as one '<Node>Backward' op, not "
                                       "PyTorch's own backward formula nodes (MulBackward0, ...)")
def test_higher_order_node_names_match_torch(torch_):
    same(torch_, "x = torch.tensor(3., requires_grad=True); y = x ** 3\n"
                 "(dy,) = torch.autograd.grad(y, x, create_graph=True)\n"
                 "(d2,) = torch.autograd.grad(dy, x, create_graph=True)\n"
                 "(d3,) = torch.autograd.grad(d2, x); dy, d2, d3")


def test_autograd_grad_basics():
    x = tg.tensor([1., 2.], requires_grad=True)
    w = tg.tensor([3., 4.], requires_grad=True)
    result = tg.autograd.grad((x * w).sum(), x)
    assert isinstance(result, tuple) and len(result) == 1
    assert result[0].tolist() == [3., 4.]
    assert x.grad is None and w.grad is None
    with pytest.raises(RuntimeError) as info:
        tg.autograd.grad((x * 2).sum(), [x, w])
    assert str(info.value) == ("The differentiated Tensor at index 1 appears to not have been used in the graph. "
                               "Set allow_unused=True if this is the desired behavior.")
    gx, gw = tg.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
    assert gx.tolist() == [2., 2.] and gw is None
    gx, gw = tg.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)
    assert repr(gw) == "tensor([0., 0.])"
    with pytest.raises(RuntimeError, match="^One of the differentiated Tensors does not require grad$"):
        tg.autograd.grad((x * 2).sum(), [x, tg.ones(2)], allow_unused=True)
    assert x.grad is None


def test_backward_inputs():
    x = tg.tensor([1., 2.], requires_grad=True)
    w = tg.tensor([3., 4.], requires_grad=True)
    (x * w).sum().backward(inputs=[x])
    assert x.grad.tolist() == [3., 4.] and w.grad is None
    h = x * 3
    (h * w).sum().backward(inputs=[h])
    assert h.grad.tolist() == [3., 4.] and x.grad.tolist() == [3., 4.]
    with pytest.raises(RuntimeError, match="^`inputs` argument to `backward\\(\\)` cannot be empty.$"):
        (x * 2).sum().backward(inputs=[])
    other = tg.tensor([1.], requires_grad=True)
    (x * 2).sum().backward(inputs=[other])
    assert other.grad is None


# --------------------------------------------------------------------------------------------
# deep graphs

def test_backward_through_20k_nodes_is_iterative():
    # 20 times Python's recursion limit: a recursive backward (or free) would fail long before
    x = tg.tensor(1., requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y + 1.0
    assert repr(y) == "tensor(20001., grad_fn=<AddBackward0>)"
    y.backward()
    assert x.grad.item() == 1.0
    del y                         # freeing the long chain does not recurse either


# --------------------------------------------------------------------------------------------
# gradient of every op: against jax.grad of the same function in jax.numpy, and against PyTorch

def _pos(shape):
    return lambda rng: rng.uniform(0.5, 2.0, shape)


def _any(shape):
    return lambda rng: rng.uniform(-2.0, 2.0, shape)


def _unit(shape):
    return lambda rng: rng.uniform(-0.9, 0.9, shape)


def _off_int(shape):
    """Values away from integers and half-integers (floor, round, remainder are smooth there)."""
    return lambda rng: rng.integers(-3, 3, shape) + rng.uniform(0.1, 0.4, shape)


# (name, function of (module, *tensors) for tensorgrad and torch, the same in jax.numpy, inputs)
GRAD_OPS = [
    ("add", lambda m, a, b: a + b, lambda a, b: a + b, [_any((3, 4)), _any((3, 4))]),
    ("add_broadcast", lambda m, a, b: a + b, lambda a, b: a + b, [_any((3, 1)), _any((6,))]),
    ("add_alpha", lambda m, a, b: m.add(a, b, alpha=2.5), lambda a, b: a + 2.5 * b, [_any((3,)), _any((3,))]),
    ("add_scalar", lambda m, a: 2 + a, lambda a: 2 + a, [_any((3,))]),
    ("sub", lambda m, a, b: a - b, lambda a, b: a - b, [_any((2, 3)), _any((3,))]),
    ("rsub", lambda m, a: 1 - a, lambda a: 1 - a, [_any((3,))]),
    ("mul", lambda m, a, b: a * b, lambda a, b: a * b, [_any((2, 3)), _any((2, 1))]),
    ("mul_scalar", lambda m, a: a * 3.5, lambda a: a * 3.5, [_any((3,))]),
    ("div", lambda m, a, b: a / b, lambda a, b: a / b, [_any((3,)), _pos((3,))]),
    ("rdiv", lambda m, a: 2 / a, lambda a: 2 / a, [_pos((3,))]),
    ("pow_scalar", lambda m, a: a ** 3, lambda a: a ** 3, [_any((3,))]),
    ("pow_half", lambda m, a: a ** 0.5, lambda a: a ** 0.5, [_pos((3,))]),
    ("pow_tensor", lambda m, a, b: a ** b, lambda a, b: a ** b, [_pos((3,)), _any((3,))]),
    ("pow_scalar_base", lambda m, a: 2 ** a, lambda a: 2.0 ** a, [_any((3,))]),
    ("neg", lambda m, a: -a, lambda a: -a, [_any((3,))]),
    ("abs", lambda m, a: a.abs(), jnp.abs, [_any((6,))]),
    ("exp", lambda m, a: m.exp(a), jnp.exp, [_any((3,))]),
    ("exp2", lambda m, a: m.exp2(a), jnp.exp2, [_any((3,))]),
    ("log", lambda m, a: m.log(a), jnp.log, [_pos((3,))]),
    ("log1p", lambda m, a: m.log1p(a), jnp.log1p, [_pos((3,))]),
    ("sqrt", lambda m, a: m.sqrt(a), jnp.sqrt, [_pos((3,))]),
    ("rsqrt", lambda m, a: m.rsqrt(a), lambda a: 1 / jnp.sqrt(a), [_pos((3,))]),
    ("sin", lambda m, a: m.sin(a), jnp.sin, [_any((3,))]),
    ("cos", lambda m, a: m.cos(a), jnp.cos, [_any((3,))]),
    ("tanh", lambda m, a: m.tanh(a), jnp.tanh, [_any((3,))]),
    ("sigmoid", lambda m, a: m.sigmoid(a), jax.nn.sigmoid, [_any((3,))]),
    ("relu", lambda m, a: m.relu(a), jax.nn.relu, [_any((6,))]),
    ("reciprocal", lambda m, a: m.reciprocal(a), lambda a: 1 / a, [_pos((3,))]),
    ("erf", lambda m, a: m.erf(a), jax.scipy.special.erf, [_any((3,))]),
    ("square", lambda m, a: m.square(a), jnp.square, [_any((3,))]),
    ("floor", lambda m, a: m.floor(a) * a, lambda a: jnp.floor(a) * a, [_off_int((6,))]),
    ("round", lambda m, a: m.round(a) * a, lambda a: jnp.round(a) * a, [_off_int((6,))]),
    ("sign", lambda m, a: m.sign(a) * a, lambda a: jnp.sign(a) * a, [_any((6,))]),
    ("clamp", lambda m, a: a.clamp(-0.5, 0.7), lambda a: jnp.clip(a, -0.5, 0.7), [_any((6,))]),
    ("clamp_min", lambda m, a: a.clamp(min=0.1), lambda a: jnp.maximum(a, 0.1), [_any((6,))]),
    ("maximum", lambda m, a, b: m.maximum(a, b), jnp.maximum, [_any((6,)), _any((6,))]),
    ("minimum", lambda m, a, b: m.minimum(a, b), jnp.minimum, [_any((6,)), _any((6,))]),
    ("atan2", lambda m, a, b: m.atan2(a, b), jnp.arctan2, [_any((3,)), _pos((3,))]),
    ("remainder", lambda m, a: a % 1.5, lambda a: jnp.remainder(a, 1.5), [_off_int((6,))]),
    ("where", lambda m, a, b: m.where(a > 0, a, b), lambda a, b: jnp.where(a > 0, a, b), [_any((6,)), _any((6,))]),
    ("where_scalar", lambda m, a: m.where(a > 0, a, 0.), lambda a: jnp.where(a > 0, a, 0.), [_any((6,))]),
    ("sum", lambda m, a: a.sum(), jnp.sum, [_any((2, 3))]),
    ("sum_dim", lambda m, a: a.sum(1), lambda a: a.sum(1), [_any((2, 3))]),
    ("sum_dims", lambda m, a: a.sum((0, 2)), lambda a: a.sum((0, 2)), [_any((2, 3, 2))]),
    ("mean", lambda m, a: a.mean(), jnp.mean, [_any((2, 3))]),
    ("mean_dim", lambda m, a: a.mean(-1), lambda a: a.mean(-1), [_any((2, 3))]),
    ("prod", lambda m, a: a.prod(), jnp.prod, [_any((6,))]),
    ("prod_dim", lambda m, a: a.prod(1), lambda a: a.prod(1), [_any((2, 3))]),
    ("max", lambda m, a: a.max(), jnp.max, [_any((6,))]),
    ("min", lambda m, a: a.min(), jnp.min, [_any((6,))]),
    ("max_dim", lambda m, a: a.max(1).values, lambda a: a.max(1), [_any((3, 4))]),
    ("amax", lambda m, a: a.amax(1), lambda a: a.max(1), [_any((3, 4))]),
    ("norm", lambda m, a: a.norm(), jnp.linalg.norm, [_any((6,))]),
    ("norm_p1", lambda m, a: a.norm(p=1), lambda a: jnp.abs(a).sum(), [_any((6,))]),
    ("logsumexp", lambda m, a: a.logsumexp(1), lambda a: jax.scipy.special.logsumexp(a, 1), [_any((2, 3))]),
    ("cumsum", lambda m, a: a.cumsum(0), lambda a: jnp.cumsum(a, 0), [_any((4, 2))]),
    ("var", lambda m, a: a.var(), lambda a: jnp.var(a, ddof=1), [_any((6,))]),
    ("std", lambda m, a: a.std(), lambda a: jnp.std(a, ddof=1), [_any((6,))]),
    ("dot", lambda m, a, b: m.dot(a, b), jnp.dot, [_any((3,)), _any((3,))]),
    ("mv", lambda m, a, b: a.mv(b), jnp.matmul, [_any((2, 3)), _any((3,))]),
    ("mm", lambda m, a, b: a.mm(b), jnp.matmul, [_any((2, 3)), _any((3, 4))]),
    ("bmm", lambda m, a, b: m.bmm(a, b), jnp.matmul, [_any((2, 2, 3)), _any((2, 3, 2))]),
    ("matmul_1d_2d", lambda m, a, b: a @ b, jnp.matmul, [_any((3,)), _any((3, 2))]),
    ("matmul_3d_2d", lambda m, a, b: a @ b, jnp.matmul, [_any((2, 2, 3)), _any((3, 2))]),
    ("matmul_broadcast", lambda m, a, b: a @ b, jnp.matmul, [_any((2, 1, 2, 3)), _any((3, 3, 2))]),
    ("outer", lambda m, a, b: m.outer(a, b), jnp.outer, [_any((3,)), _any((2,))]),
    ("addmm", lambda m, c, a, b: m.addmm(c, a, b), lambda c, a, b: c + a @ b,
     [_any((2, 2)), _any((2, 3)), _any((3, 2))]),
    ("view", lambda m, a: a.view(3, 2) * a.view(3, 2), lambda a: a.reshape(3, 2) ** 2, [_any((2, 3))]),
    ("reshape", lambda m, a: a.reshape(-1) ** 2, lambda a: a.reshape(-1) ** 2, [_any((2, 3))]),
    ("flatten", lambda m, a: a.flatten() ** 2, lambda a: a.reshape(-1) ** 2, [_any((2, 3))]),
    ("transpose", lambda m, a: a.transpose(0, 1) * m.arange(6.).reshape(3, 2),
     lambda a: a.T * jnp.arange(6.).reshape(3, 2), [_any((2, 3))]),
    ("t", lambda m, a: a.t() ** 2, lambda a: a.T ** 2, [_any((2, 3))]),
    ("permute", lambda m, a: a.permute(2, 0, 1) ** 2, lambda a: a.transpose(2, 0, 1) ** 2, [_any((2, 3, 2))]),
    ("movedim", lambda m, a: m.movedim(a, 0, 2) ** 2, lambda a: jnp.moveaxis(a, 0, 2) ** 2, [_any((2, 3, 2))]),
    ("getitem_int", lambda m, a: a[1] ** 2, lambda a: a[1] ** 2, [_any((3, 2))]),
    ("getitem_slice", lambda m, a: a[1:, ::2] ** 2, lambda a: a[1:, ::2] ** 2, [_any((3, 4))]),
    ("getitem_list", lambda m, a: a[[0, 2, 0]] ** 2, lambda a: a[jnp.array([0, 2, 0])] ** 2, [_any((3, 2))]),
    ("getitem_mask", lambda m, a: a[a > 0] ** 2, lambda a: jnp.where(a > 0, a, 0.) ** 2, [_any((6,))]),
    ("select", lambda m, a: a.select(1, 2) ** 2, lambda a: a[:, 2] ** 2, [_any((2, 4))]),
    ("diagonal", lambda m, a: a.diagonal() ** 2, lambda a: jnp.diagonal(a) ** 2, [_any((3, 3))]),
    ("cat", lambda m, a, b: m.cat([a, b, a], 1) ** 2, lambda a, b: jnp.concatenate([a, b, a], 1) ** 2,
     [_any((2, 2)), _any((2, 3))]),
    ("stack", lambda m, a, b: m.stack([a, b], 1) ** 2, lambda a, b: jnp.stack([a, b], 1) ** 2,
     [_any((2, 3)), _any((2, 3))]),
    ("expand", lambda m, a: a.expand(3, 4) * m.arange(12.).reshape(3, 4),
     lambda a: jnp.broadcast_to(a, (3, 4)) * jnp.arange(12.).reshape(3, 4), [_any((3, 1))]),
    ("repeat", lambda m, a: a.repeat(2, 3) * m.arange(24.).reshape(4, 6),
     lambda a: jnp.tile(a, (2, 3)) * jnp.arange(24.).reshape(4, 6), [_any((2, 2))]),
    ("flip", lambda m, a: a.flip(0) * m.arange(6.).reshape(3, 2), lambda a: a[::-1] * jnp.arange(6.).reshape(3, 2),
     [_any((3, 2))]),
    ("squeeze", lambda m, a: a.squeeze(1) ** 2, lambda a: a.squeeze(1) ** 2, [_any((3, 1, 2))]),
    ("unsqueeze", lambda m, a: a.unsqueeze(1) ** 2, lambda a: a[:, None] ** 2, [_any((3, 2))]),
    ("unbind", lambda m, a: a.unbind(1)[1] ** 2, lambda a: a[:, 1] ** 2, [_any((2, 3))]),
    ("split", lambda m, a: a.split(2)[1] ** 2, lambda a: a[2:4] ** 2, [_any((6,))]),
    ("clone", lambda m, a: a.clone() ** 2, lambda a: a ** 2, [_any((3,))]),
    ("to_float32", lambda m, a: a.float() ** 2, lambda a: a.astype(jnp.float32) ** 2, [_any((3,))]),
    ("masked_fill", lambda m, a: a.masked_fill(a > 0, 2.) * a, lambda a: jnp.where(a > 0, 2., a) * a,
     [_any((6,))]),
    ("softmax_like", lambda m, a: a.exp() / a.exp().sum(1, keepdim=True),
     lambda a: jax.nn.softmax(a, axis=1), [_any((2, 3))]),
    ("mlp", lambda m, x, w, b: ((x @ w + b).tanh() ** 2).mean(),
     lambda x, w, b: jnp.mean(jnp.tanh(x @ w + b) ** 2), [_any((4, 3)), _any((3, 2)), _any((2,))]),
    ("fan_in_out", lambda m, a: (a * a).sum() * a + a.exp() - a.sin() * a[0],
     lambda a: jnp.sum(a * a) * a + jnp.exp(a) - jnp.sin(a) * a[0], [_any((3,))]),
]


_GRAD_ROWS = {row[0]: row for row in GRAD_OPS}


@functools.lru_cache(maxsize=None)
def _tg_result(name):
    """Inputs, output weights and tensorgrad's gradients of ``sum(f(inputs) * weights)``."""
    _, fn, _, makers = _GRAD_ROWS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    arrays = [np.asarray(make(rng), np.float64) for make in makers]
    xs = [tg.tensor(a, requires_grad=True) for a in arrays]
    out = fn(tg, *xs)
    weights = np.random.default_rng(7).uniform(0.5, 1.5, tuple(out.shape))
    (out * tg.tensor(weights, dtype=out.dtype)).sum().backward()
    return arrays, weights, [x.grad for x in xs]


@pytest.mark.parametrize("name", _GRAD_ROWS)
def test_gradient_matches_jax_grad(name):
    _, _, jfn, _ = _GRAD_ROWS[name]
    arrays, weights, grads = _tg_result(name)

    def loss(*xs):
        return jnp.sum(jfn(*xs) * weights)

    expected = jax.jit(jax.grad(loss, argnums=tuple(range(len(arrays)))))(*arrays)
    for g, e, a in zip(grads, expected, arrays):
        assert g is not None and g.dtype is tg.float64 and tuple(g.shape) == a.shape
        np.testing.assert_allclose(g.numpy(), np.asarray(e), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", _GRAD_ROWS)
def test_gradient_matches_torch(torch_, name):
    _, fn, _, _ = _GRAD_ROWS[name]
    arrays, weights, grads = _tg_result(name)
    xs = [torch_.tensor(a, requires_grad=True) for a in arrays]
    out = fn(torch_, *xs)
    (out * torch_.tensor(weights, dtype=out.dtype)).sum().backward()
    for g, x in zip(grads, xs):
        # float64 special functions (digamma's derivative, ...) differ between libraries in the last digits
        np.testing.assert_allclose(g.numpy(), x.grad.numpy(), rtol=1e-8, atol=1e-12)


def test_gradient_float32_result_and_printing_matches_reference():
    x = tg.arange(4.0, requires_grad=True)
    y = 2 * tg.dot(x, x)
    assert repr(y) == "tensor(28., grad_fn=<MulBackward0>)"
    y.backward()
    assert repr(x.grad) == "tensor([ 0.,  4.,  8., 12.])"
    assert (x.grad == 4 * x).tolist() == [True] * 4


# --------------------------------------------------------------------------------------------
# grad modes (reference sections 4.2, 4.3)

GRAD_MODE_CASES = cases("""
torch.is_grad_enabled()
---
x = torch.tensor([1., 2.], requires_grad=True)
with torch.no_grad():
    y = x * 2
    inside = torch.is_grad_enabled()
    z = torch.ones(2, requires_grad=True)
    w = torch.ones(2).requires_grad_()
y, y.requires_grad, y.is_leaf, y.grad_fn, inside, torch.is_grad_enabled(), z.requires_grad, w.requires_grad, x.requires_grad
---
x = torch.tensor([1., 2.], requires_grad=True)
with torch.no_grad():
    with torch.enable_grad():
        y = x * 3
y
---
x = torch.tensor([1., 2.], requires_grad=True)
with torch.no_grad():
    x *= 2
x, x.is_leaf, x._version
---
w = torch.tensor([1., 2.], requires_grad=True)
with torch.no_grad():
    w -= 0.1 * torch.ones(2)
w, w.is_leaf, w.grad_fn, w._version
---
@torch.no_grad()
def f(x): return x * 2, torch.is_grad_enabled()
f(torch.ones(2, requires_grad=True)), torch.is_grad_enabled()
---
@torch.no_grad
def f(x): return x * 2, torch.is_grad_enabled()
f(torch.ones(2, requires_grad=True)), torch.is_grad_enabled()
---
@torch.enable_grad()
def f(x): return x * 2
with torch.no_grad(): r = f(torch.ones(2, requires_grad=True))
r, torch.is_grad_enabled()
---
@torch.enable_grad
def f(x): return x * 2
with torch.no_grad(): r = f(torch.ones(2, requires_grad=True))
r
---
r = torch.set_grad_enabled(False); a = torch.is_grad_enabled(); y = torch.ones(1, requires_grad=True) * 2; torch.set_grad_enabled(True); r, a, torch.is_grad_enabled(), y
---
@torch.set_grad_enabled(False)
def f(x): return x * 2, torch.is_grad_enabled()
after = torch.is_grad_enabled()
after, f(torch.ones(2, requires_grad=True)), torch.is_grad_enabled()
---
with torch.set_grad_enabled(False): a = torch.is_grad_enabled()
a, torch.is_grad_enabled()
---
with torch.set_grad_enabled(True): a = torch.is_grad_enabled()
a, torch.is_grad_enabled()
---
with torch.no_grad():
    with torch.set_grad_enabled(True): a = torch.is_grad_enabled()
    b = torch.is_grad_enabled()
a, b, torch.is_grad_enabled()
---
try:
    with torch.no_grad(): raise ValueError
except ValueError: pass
torch.is_grad_enabled()
---
@torch.no_grad()
def f(): raise ValueError
try: f()
except ValueError: pass
torch.is_grad_enabled()
---
with torch.no_grad() as g: pass
g
---
torch.no_grad.__name__, torch.enable_grad.__name__, torch.set_grad_enabled.__name__, torch.inference_mode.__name__
---
a = repr(torch.set_grad_enabled(True)); b = repr(torch.set_grad_enabled(False)); c = torch.is_grad_enabled()
torch.set_grad_enabled(True)
a, b, c, torch.is_grad_enabled()
---
torch.set_grad_enabled(True)
@torch.no_grad()
def f(): return torch.is_grad_enabled()
@torch.enable_grad()
def g(): return f(), torch.is_grad_enabled()
with torch.no_grad(): r = g()
r
---
def gen():
    yield torch.is_grad_enabled()
    yield torch.is_grad_enabled()
g = torch.no_grad()(gen)
list(g()), torch.is_grad_enabled()
---
x = torch.ones(2, requires_grad=True)
with torch.inference_mode():
    y = x * 2
    a = torch.is_grad_enabled(); b = torch.is_inference_mode_enabled()
y.is_inference(), y.requires_grad, a, b, torch.is_inference_mode_enabled(), torch.is_grad_enabled(), x.is_inference()
---
x = torch.ones(2, requires_grad=True)
with torch.inference_mode():
    with torch.enable_grad():
        z = x * 2
        e = torch.is_grad_enabled()
z.requires_grad, z.grad_fn, e, z.is_inference()
---
x = torch.ones(2, requires_grad=True)
with torch.inference_mode():
    y = torch.ones(2)
(x * y).sum()
---
x = torch.ones(2, requires_grad=True)
with torch.inference_mode():
    y = torch.ones(2)
x + y
---
with torch.inference_mode():
    y = torch.ones(2)
y.add_(1)
---
with torch.inference_mode():
    y = torch.ones(2)
y.requires_grad_()
---
with torch.inference_mode():
    y = torch.ones(2)
c = y.clone(); c.is_inference(), c.add_(1)
---
x = torch.ones(2, requires_grad=True)
with torch.inference_mode(False):
    y = x * 2
y, torch.is_inference_mode_enabled(), y.is_inference()
---
@torch.inference_mode()
def f(x): return x * 2
f(torch.ones(2, requires_grad=True)).is_inference()
---
@torch.inference_mode
def f(x): return x * 2
f(torch.ones(2, requires_grad=True)).is_inference(), torch.is_inference_mode_enabled()
""")


@pytest.mark.parametrize("src", GRAD_MODE_CASES, ids=ids(GRAD_MODE_CASES))
def test_grad_modes_match_torch(torch_, src):
    same(torch_, src)


def test_no_grad_context_and_decorators():
    x = tg.ones(2, requires_grad=True)
    assert tg.is_grad_enabled()
    with tg.no_grad():
        assert not tg.is_grad_enabled()
        y = x * 2
        with tg.enable_grad():
            assert tg.is_grad_enabled()
            z = x * 3
    assert tg.is_grad_enabled()
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None
    assert repr(z) == "tensor([3., 3.], grad_fn=<MulBackward0>)"

    @tg.no_grad()
    def called():
        return tg.is_grad_enabled()

    @tg.no_grad
    def bare():
        return tg.is_grad_enabled()

    assert called() is False and bare() is False and tg.is_grad_enabled()
    with pytest.raises(ZeroDivisionError):
        with tg.no_grad():
            1 / 0
    assert tg.is_grad_enabled()


def test_set_grad_enabled_call_context_and_decorator_quirk():
    try:
        mode = tg.set_grad_enabled(False)
        assert not tg.is_grad_enabled()
        assert repr(mode) == "torch.autograd.grad_mode.set_grad_enabled(mode=False)"
    finally:
        tg.set_grad_enabled(True)
    assert tg.is_grad_enabled()
    with tg.set_grad_enabled(False):
        assert not tg.is_grad_enabled()
    assert tg.is_grad_enabled()

    @tg.set_grad_enabled(False)
    def body():
        return tg.is_grad_enabled()

    assert tg.is_grad_enabled()          # decorating flipped the mode back
    assert body() is False
    assert tg.is_grad_enabled()
    with tg.no_grad():
        with tg.set_grad_enabled(True):
            assert tg.is_grad_enabled()
        assert not tg.is_grad_enabled()


def test_inference_mode():
    x = tg.ones(2, requires_grad=True)
    with tg.inference_mode():
        assert not tg.is_grad_enabled() and tg.is_inference_mode_enabled()
        y = x * 2
        with tg.enable_grad():
            assert tg.is_grad_enabled()
            z = x * 2
    assert y.is_inference() and not y.requires_grad
    assert not z.requires_grad and z.grad_fn is None
    assert tg.is_grad_enabled() and not tg.is_inference_mode_enabled()
    with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved for backward"):
        x * y
    with pytest.raises(RuntimeError, match="^Inplace update to inference tensor outside InferenceMode is not "
                                           "allowed.You can make"):
        y.add_(1)
    assert y.tolist() == [2., 2.]
    with pytest.raises(RuntimeError, match="^Setting requires_grad=True on inference tensor outside InferenceMode "
                                           "is not allowed.$"):
        y.requires_grad_()
    assert not y.clone().is_inference()


def test_grad_mode_is_thread_local():
    seen = {}
    started = threading.Event()
    release = threading.Event()

    def worker():
        seen["start"] = tg.is_grad_enabled()
        with tg.no_grad():
            started.set()
            release.wait(10)
            seen["inside"] = tg.is_grad_enabled()
        seen["end"] = tg.is_grad_enabled()

    with tg.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        started.wait(10)
        assert not tg.is_grad_enabled()
        x = tg.ones(1, requires_grad=True)
        with tg.enable_grad():
            assert (x * 2).requires_grad
        release.set()
        thread.join(10)
        assert not tg.is_grad_enabled()
    assert tg.is_grad_enabled()
    assert seen == {"start": True, "inside": False, "end": True}


def test_backward_runs_under_no_grad_and_in_other_threads():
    x = tg.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    with tg.no_grad():
        y.backward()
    assert x.grad.tolist() == [2., 4.]
    z = (x * 3).sum()
    thread = threading.Thread(target=z.backward)
    thread.start()
    thread.join()
    assert x.grad.tolist() == [5., 7.]


def test_tensors_work_across_threads():
    x = tg.tensor([1., 2.], requires_grad=True)
    results = []

    def work():
        results.append(((x * x).sum(), tg.is_grad_enabled()))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    y, enabled = results[0]
    assert enabled
    y.backward()
    assert x.grad.tolist() == [2., 4.]
