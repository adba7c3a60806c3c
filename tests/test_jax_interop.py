"""JAX interop: Tensor as a pytree through jax.jit/grad/vmap, zero-copy ``jax()``/``from_jax``,
``__jax_array__``, DLPack with NumPy and PyTorch, and ``call_jax`` as a differentiable op.
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tensorgrad as tg


def _np(t):
    return np.asarray(t.detach().numpy())


# --------------------------------------------------------------------------------------------
# Tensor is a pytree

def test_tensors_pass_through_jit_and_come_out_as_tensors():
    x = tg.tensor([1., 2., 3.])

    @jax.jit
    def f(t, scale):
        return {"y": (t * scale).sin(), "n": t.sum()}

    out = f(x, 2.0)
    assert isinstance(out["y"], tg.Tensor) and isinstance(out["n"], tg.Tensor)
    np.testing.assert_allclose(_np(out["y"]), np.sin(2 * np.array([1., 2., 3.])), rtol=1e-6)
    assert repr(out["n"]) == "tensor(6.)"
    assert not out["y"].requires_grad


def test_jax_grad_and_vmap_over_tensor_code():
    x = tg.tensor([0.5, -1.0, 2.0], dtype=tg.float64)
    g = jax.grad(lambda t: (t.exp() * t).sum().jax())(x)
    assert isinstance(g, tg.Tensor)
    np.testing.assert_allclose(_np(g), jax.grad(lambda a: jnp.sum(jnp.exp(a) * a))(_np(x)), rtol=1e-12)
    rows = jax.vmap(lambda t: t @ t)(tg.tensor([[1., 2.], [3., 4.]]))
    assert isinstance(rows, tg.Tensor) and rows.tolist() == [5., 25.]
    leaves, treedef = jax.tree_util.tree_flatten({"a": x, "b": [x, 1]})
    assert all(isinstance(leaf, (jax.Array, int)) for leaf in leaves)
    rebuilt = jax.tree_util.tree_unflatten(treedef, leaves)
    assert isinstance(rebuilt["a"], tg.Tensor) and rebuilt["b"][1] == 1


def test_detach_inside_raw_jax_grad():
    g = jax.grad(lambda a: (tg.from_jax(a).detach() * tg.from_jax(a)).sum().jax())(jnp.array([1., 2.]))
    # outside tensorgrad.func, detach keeps the storage aliasing of the tape; JAX sees both factors
    assert g.tolist() == [2., 4.]


# --------------------------------------------------------------------------------------------
# zero-copy conversions

def test_jax_and_from_jax_do_not_copy():
    arr = jnp.arange(4.0, dtype=jnp.float32)
    t = tg.from_jax(arr)
    assert t.jax() is arr
    assert repr(t) == "tensor([0., 1., 2., 3.])"
    assert t.dtype is tg.float32
    assert jnp.asarray(t) is arr or np.shares_memory(np.asarray(jnp.asarray(t)), np.asarray(arr))
    assert jnp.asarray(t).dtype == jnp.float32
    with pytest.raises(TypeError, match="from_jax expects a jax.Array"):
        tg.from_jax(np.ones(2))


def test_dlpack_with_numpy():
    t = tg.tensor([1., 2., 3.])
    a = np.from_dlpack(t)
    assert a.tolist() == [1., 2., 3.]
    assert a.ctypes.data == t.jax().unsafe_buffer_pointer()
    back = tg.from_dlpack(np.array([4., 5.], dtype=np.float64))
    assert repr(back) == "tensor([4., 5.], dtype=torch.float64)"
    assert tg.from_dlpack(t).tolist() == [1., 2., 3.]
    with pytest.raises(RuntimeError, match="^Can't export tensors that require gradient, use tensor.detach\\(\\)$"):
        np.from_dlpack(tg.ones(2, requires_grad=True))


def test_dlpack_with_pytorch():
    torch = pytest.importorskip("torch")
    t = tg.tensor([[1., 2.], [3., 4.]])
    pt = torch.from_dlpack(t)
    assert pt.tolist() == [[1., 2.], [3., 4.]] and pt.dtype == torch.float32
    assert pt.data_ptr() == t.jax().unsafe_buffer_pointer()
    back = tg.from_dlpack(torch.arange(3, dtype=torch.int64))
    assert repr(back) == "tensor([0, 1, 2])"


# --------------------------------------------------------------------------------------------
# call_jax: any JAX function as one differentiable op on the tape

def test_call_jax_gradient_matches_jax():
    fn = lambda a, b: jnp.sum(jnp.tanh(a @ b) ** 2)  # noqa: E731
    a0 = np.array([[0.5, -0.2], [0.1, 0.9]])
    b0 = np.array([[1.0, -0.5], [0.3, 0.2]])
    a = tg.tensor(a0, requires_grad=True)
    b = tg.tensor(b0, requires_grad=True)
    out = tg.call_jax(fn, a, b)
    assert out.grad_fn is not None and out.grad_fn.name() == "CallJaxBackward0"
    (out * 2).backward()
    ga, gb = jax.grad(fn, argnums=(0, 1))(a0, b0)
    np.testing.assert_allclose(_np(a.grad), 2 * ga, rtol=1e-12)
    np.testing.assert_allclose(_np(b.grad), 2 * gb, rtol=1e-12)


def test_call_jax_higher_order_and_pytrees():
    x = tg.tensor([0.3, 1.2], dtype=tg.float64, requires_grad=True)
    out = tg.call_jax(lambda p: {"s": jnp.sin(p["x"]) * p["k"], "c": jnp.cos(p["x"])}, {"x": x, "k": 3.0})
    assert list(out) == ["s", "c"] and out["s"].requires_grad
    (g,) = tg.autograd.grad(out["s"].sum(), x, create_graph=True)
    np.testing.assert_allclose(_np(g), 3 * np.cos([0.3, 1.2]), rtol=1e-12)
    (h,) = tg.autograd.grad(g.sum(), x, create_graph=True)
    np.testing.assert_allclose(_np(h), -3 * np.sin([0.3, 1.2]), rtol=1e-12)
    (h3,) = tg.autograd.grad(h.sum(), x)
    np.testing.assert_allclose(_np(h3), -3 * np.cos([0.3, 1.2]), rtol=1e-12)


def test_call_jax_without_grad_and_with_integer_outputs():
    x = tg.tensor([3., 1., 2.])
    out = tg.call_jax(jnp.argsort, x)
    assert repr(out) == "tensor([1, 2, 0])" and not out.requires_grad
    y = tg.tensor([3., 1., 2.], requires_grad=True)
    values, order = tg.call_jax(lambda v: (jnp.sort(v), jnp.argsort(v)), y)
    assert values.requires_grad and not order.requires_grad
    values[0].backward()
    assert y.grad.tolist() == [0., 1., 0.]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        values[1].backward()


def test_call_jax_kwargs_and_tape_mixing():
    x = tg.tensor([1., 2.], requires_grad=True)
    y = tg.call_jax(jnp.power, x * 2, 3.0)
    z = tg.call_jax(lambda a, axis: jnp.sum(a, axis=axis), y, axis=0)
    z.backward()
    np.testing.assert_allclose(_np(x.grad), 3 * 2 * (2 * np.array([1., 2.])) ** 2, rtol=1e-6)


# --------------------------------------------------------------------------------------------
# ops with host-side index checks and host-sized outputs under jax.jit

def test_ops_with_index_checks_run_under_jax_jit_and_grad():
    """Host-side checks are skipped for traced values, so these ops compose with jax.jit."""

    def f(x, i):
        t, idx = tg.from_jax(x), tg.from_jax(i)
        out = (t.gather(1, idx).sum() + t.index_select(0, idx[0]).sum() + t.take(idx).sum()
               + t.index_fill(1, idx[0], 0.0).sum() + t.scatter(1, idx, 1.0).sum() + tg.sort(t).values.sum()
               + tg.quantile(t, 0.5) + tg.median(t) + tg.cummax(t, 1).values.sum() + t.topk(2).values.sum()
               + tg.einsum("ij,kj->ik", t, t).sum() + tg.linalg.inv(t[:, :2] + 3 * tg.eye(2, dtype=t.dtype)).sum())
        return out.jax()

    x = jax.numpy.arange(6.0).reshape(2, 3) / 5
    i = jax.numpy.array([[0, 1], [2, 0]])
    np.testing.assert_allclose(jax.jit(f)(x, i), f(x, i), rtol=1e-12)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(x, i), jax.grad(f)(x, i), rtol=1e-12)


@pytest.mark.parametrize("fn", [lambda x: tg.masked_select(x, x > 0), lambda x: tg.unique(x),
                                lambda x: x.repeat_interleave(x.long()), lambda x: tg.bincount(x.long())])
def test_host_sized_ops_say_they_cannot_run_under_jit(fn):
    with pytest.raises(RuntimeError, match="cannot be computed inside jax.jit"):
        jax.jit(lambda x: fn(tg.from_jax(x)).jax())(jax.numpy.ones(3))


# --------------------------------------------------------------------------------------------
# NumPy's functions of a tensor, and jax.grad's output

def test_numpy_functions_of_a_tensor_give_tensors_as_in_pytorch():
    from oracle import torch
    if torch is None:
        pytest.skip("PyTorch (the oracle) is not installed")
    calls = [lambda m: np.exp(m.tensor([1., 2.])), lambda m: np.greater(m.tensor([1., 2.]), 1),
             lambda m: np.add(m.tensor([1., 2.]), 1), lambda m: np.sqrt(m.tensor(4.)),
             lambda m: np.exp(m.tensor([1])), lambda m: np.maximum(m.tensor([1., 2.]), 1.5),
             lambda m: np.float32(2) * m.tensor([1., 2.])]
    for call in calls:
        ours = call(tg)
        with warnings.catch_warnings():                 # NumPy 2 warns about PyTorch's __array_wrap__
            warnings.simplefilter("ignore", DeprecationWarning)
            theirs = call(torch)
        assert type(ours) is tg.Tensor and repr(ours) == repr(theirs)


def test_jax_grad_takes_a_function_returning_a_jax_scalar():
    x = tg.tensor([1., 2.])
    g = jax.grad(lambda t: (t ** 2).sum().jax())(x)
    assert isinstance(g, tg.Tensor) and g.tolist() == [2., 4.]
    with pytest.raises((TypeError, ValueError)):        # JAX refuses a Tensor as a gradient's output
        jax.grad(lambda t: (t ** 2).sum())(x)


def test_utils_dlpack_round_trips_with_pytorch():
    from oracle import torch
    if torch is None:
        pytest.skip("PyTorch (the oracle) is not installed")
    from tensorgrad.utils import dlpack
    t = tg.arange(3.)
    assert dlpack.from_dlpack(dlpack.to_dlpack(t)).tolist() == [0., 1., 2.]
    assert dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(torch.arange(4.))).tolist() == [0., 1., 2., 3.]
    assert torch.utils.dlpack.from_dlpack(dlpack.to_dlpack(t)).tolist() == [0., 1., 2.]
    assert dlpack.from_dlpack(np.arange(2)).dtype == tg.int64
    capsule = dlpack.to_dlpack(t)
    dlpack.from_dlpack(capsule)
    for bad in (capsule, 3):            # a consumed capsule, not a capsule: PyTorch's error type
        with pytest.raises(RuntimeError, match="from_dlpack received an invalid capsule"):
            dlpack.from_dlpack(bad)
        with pytest.raises(RuntimeError, match="from_dlpack received an invalid capsule"):
            torch.utils.dlpack.from_dlpack(bad)
    with pytest.raises(TypeError):
        dlpack.to_dlpack(np.ones(2))


def test_top_level_vmap_is_func_vmap_without_torch():
    assert tg.vmap is tg.func.vmap
    assert tg.vmap(lambda x: x.sum())(tg.ones(2, 3)).tolist() == [3., 3.]
