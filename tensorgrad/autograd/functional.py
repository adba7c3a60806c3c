"""``autograd.functional``: Jacobians, Hessians and their products, computed by JAX's transforms.

Each function runs the user's function on Tensors that wrap JAX tracers and applies
``jax.jacrev``/``jax.jacfwd``/``jax.vjp``/``jax.jvp``. Results are plain tensors; with
``create_graph=True`` they are recorded on the tape (as PyTorch, they then have a grad_fn and
connect to the inputs that require grad). ``strict=True`` runs PyTorch's checks for outputs
or derivatives that do not depend on the inputs, using the tape.

>>> import tensorgrad as torch
>>> from tensorgrad.autograd.functional import jacobian
>>> jacobian(lambda t: t ** 2 * 3, torch.tensor([1., 2.]))
tensor([[ 6.,  0.],
        [ 0., 12.]])
"""

import jax
import jax.numpy as jnp

from .._autograd.grad_mode import enable_grad, no_grad
from .._bridge import functional_scope, record_call
from .._tensor import Tensor, _wrap
from .backward import grad as autograd_grad

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]


# ---------------------------------------------------------------------- argument handling

def _as_tuple(value, arg_name, fn_name):
    """``(was_tuple, tuple_of_tensors)`` with PyTorch's type errors."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                    f"value at index {i} has type {type(el)}.")
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the given "
                f"{arg_name} has type {type(el)}.")
    return is_tuple, items


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


def _input_vectors(v, inputs, in_tuple, fn_name):
    """The vectors ``v`` of jvp, hvp and vhp as a tuple of Tensors sized like ``inputs``; ``v`` may be
    None only for a single single-element input (then it is one)."""
    if v is None:
        if in_tuple or inputs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a single Tensor with a "
                "single element.")
        return (_ones_like(inputs[0]),)
    _, vs = _as_tuple(v, "v", fn_name)
    _validate_v(vs, inputs, in_tuple)
    return vs


def _unpack(res, was_tuple):
    return res if was_tuple else res[0]


def _outputs_fn(func, fn_name, layout, single_element=False):
    """``func`` as a function of arrays returning a tuple of arrays; records whether it returned a tuple."""
    def arrays_fn(*arrays):
        result = func(*[_wrap(a) for a in arrays])
        was_tuple, outs = _as_tuple(result, "outputs of the user-provided function", fn_name)
        if single_element:
            if was_tuple or outs[0].numel() != 1:
                if was_tuple:
                    raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
                raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single "
                                   "element")
            layout["shape"] = outs[0]._data.shape
            return outs[0]._data.reshape(())
        layout["tuple"] = was_tuple
        return tuple(o._data for o in outs)
    return arrays_fn


def _differentiable_inputs(inputs, create_graph):
    """With create_graph, the results must have a graph even for inputs that do not require grad."""
    if not create_graph:
        return inputs
    return tuple(t if t.requires_grad else t.detach().requires_grad_() for t in inputs)


def _run(run, inputs, create_graph):
    if create_graph:
        return record_call(run, inputs, name="FunctionalBackward0")
    with no_grad():
        return run(*inputs)


def _arrays(tensors):
    return [t._data for t in tensors]


def _tensors(arrays):
    return tuple(_wrap(a) for a in arrays)


def _ones_like(t):
    return _wrap(jnp.ones(t._data.shape, t._data.dtype))


# ---------------------------------------------------------------------- strict checks (on the tape)

_NO_GRAD_OUTPUT = ("Output {} of the user-provided function does not require gradients. The outputs must be "
                   "computed in a differentiable manner from the input when running in strict mode.")


def _strict_outputs(func, inputs, fn_name):
    """Run ``func`` on fresh leaves with the tape; PyTorch's check that every output requires grad."""
    leaves = tuple(t.detach().requires_grad_() for t in inputs)
    with enable_grad():
        _, outs = _as_tuple(func(*leaves), "outputs of the user-provided function", fn_name)
    for i, o in enumerate(outs):
        if not o.requires_grad:
            raise RuntimeError(_NO_GRAD_OUTPUT.format(i))
    return leaves, outs, autograd_grad


def _independent(subject, i):
    """PyTorch's strict-mode error for a ``subject`` (of the user's function) that input ``i`` does not reach."""
    return RuntimeError(f"{subject} of the user-provided function is independent of input {i}. This is not allowed "
                        "in strict mode.")


def _strict_jacobian(func, inputs):
    leaves, outs, autograd_grad = _strict_outputs(func, inputs, "jacobian")
    for i, o in enumerate(outs):
        with enable_grad():
            grads = autograd_grad(o, leaves, grad_outputs=_ones_like(o), retain_graph=True, allow_unused=True)
        for j, g in enumerate(grads):
            if g is None:
                raise _independent(f"Output {i}", j)


def _strict_every_input_used(func, inputs, fn_name, subject):
    """vjp's and jvp's strict check: every input reaches the outputs (``subject`` names them in the error)."""
    leaves, outs, autograd_grad = _strict_outputs(func, inputs, fn_name)
    with enable_grad():
        grads = autograd_grad(outs, leaves, grad_outputs=tuple(_ones_like(o) for o in outs), allow_unused=True)
    for i, g in enumerate(grads):
        if g is None:
            raise _independent(subject, i)


def _strict_hessian(func, inputs, fn_name):
    leaves, outs, autograd_grad = _strict_outputs(func, inputs, fn_name)
    with enable_grad():
        grads = autograd_grad(outs[0], leaves, create_graph=True, allow_unused=True)
    for i, g in enumerate(grads):
        if g is None:
            raise _independent("The output", i)
        if not g.requires_grad:
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided function with respect "
                f"to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is twice differentiable and that the jacobian depends on the inputs (this would "
                "be violated by a linear function for example).")


# ---------------------------------------------------------------------- public API

def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: shape ``output.shape + input.shape``.

    Tuple inputs give a tuple (one Jacobian per input); tuple outputs give a tuple per output.
    ``vectorize`` is accepted for compatibility (JAX always vectorizes); ``strategy`` picks
    ``jax.jacrev`` ("reverse-mode") or ``jax.jacfwd`` ("forward-mode").
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use '
            '"reverse-mode".')
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
            "`vectorize=True`.")
    in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if strict:
        _strict_jacobian(func, inputs)
    transform = jax.jacrev if strategy == "reverse-mode" else jax.jacfwd
    layout = {}

    def run(*tensors):
        with functional_scope():
            jac = transform(_outputs_fn(func, "jacobian", layout), argnums=tuple(range(len(tensors))))(
                *_arrays(tensors))
        rows = tuple(_tensors(row) for row in jac)
        return rows

    rows = _run(run, _differentiable_inputs(inputs, create_graph), create_graph)
    rows = tuple(_unpack(row, in_tuple) for row in rows)
    return _unpack(rows, layout["tuple"])


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function with a single-element output; nested tuples for tuple inputs."""
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if strict:
        _strict_hessian(func, inputs, "hessian")

    def run(*tensors):
        scalar_fn = _outputs_fn(func, "hessian", {}, single_element=True)
        with functional_scope():
            hess = jax.hessian(scalar_fn, argnums=tuple(range(len(tensors))))(*_arrays(tensors))
        return tuple(_tensors(row) for row in hess)

    rows = _run(run, _differentiable_inputs(inputs, create_graph), create_graph)
    rows = tuple(_unpack(row, in_tuple) for row in rows)
    return _unpack(rows, in_tuple)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T J)``; ``v`` may be None only for a single-element output."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    if strict:
        _strict_every_input_used(func, inputs, "vjp", "The output")
    layout = {}

    def run(*tensors):
        n = len(inputs)
        with functional_scope():
            outs, vjp_fn = jax.vjp(_outputs_fn(func, "vjp", layout), *_arrays(tensors[:n]))
            if v is None:
                if layout["tuple"] or outs[0].size != 1:
                    raise RuntimeError(
                        "The vector v can only be None if the user-provided function returns a single Tensor with "
                        "a single element.")
                cts = (jnp.ones_like(outs[0]),)
            else:
                out_tuple = layout["tuple"]
                _, vs = _as_tuple(tensors[n:] if isinstance(v, tuple) else tensors[n], "v", "vjp")
                _validate_v(vs, _tensors(outs), out_tuple)
                cts = tuple(t._data.astype(o.dtype) for t, o in zip(vs, outs))
            grads = vjp_fn(cts)
        return _tensors(outs), _tensors(grads)

    extra = () if v is None else (v if isinstance(v, tuple) else (v,))
    outs, grads = _run(run, _differentiable_inputs(inputs, create_graph) + tuple(extra), create_graph)
    return _unpack(outs, layout["tuple"]), _unpack(grads, in_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), J v)``; ``v`` may be None only for a single single-element input."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    vs = _input_vectors(v, inputs, in_tuple, "jvp")
    if strict:
        _strict_every_input_used(func, inputs, "jvp", "The jacobian")
    layout = {}
    n = len(inputs)

    def run(*tensors):
        primals = _arrays(tensors[:n])
        tangents = [t._data.astype(p.dtype) for t, p in zip(tensors[n:], primals)]
        with functional_scope():
            outs, tangent_outs = jax.jvp(_outputs_fn(func, "jvp", layout), primals, tangents)
        return _tensors(outs), _tensors(tangent_outs)

    outs, tangent_outs = _run(run, _differentiable_inputs(inputs, create_graph) + tuple(vs), create_graph)
    return _unpack(outs, layout["tuple"]), _unpack(tangent_outs, layout["tuple"])


def _second_order(func, inputs, v, create_graph, strict, fn_name, forward_over_reverse):
    in_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    vs = _input_vectors(v, inputs, in_tuple, fn_name)
    if strict:
        _strict_hessian(func, inputs, fn_name)
    n = len(inputs)

    def run(*tensors):
        primals = _arrays(tensors[:n])
        vectors = [t._data.astype(p.dtype) for t, p in zip(tensors[n:], primals)]
        layout = {}
        scalar_fn = _outputs_fn(func, fn_name, layout, single_element=True)
        grad_fn = jax.grad(scalar_fn, argnums=tuple(range(n)))
        with functional_scope():
            value = scalar_fn(*primals)
            if forward_over_reverse:
                _, product = jax.jvp(grad_fn, primals, vectors)
            else:
                _, pullback = jax.vjp(grad_fn, *primals)
                product = pullback(tuple(vectors))
        return _wrap(value.reshape(layout["shape"])), _tensors(product)

    value, product = _run(run, _differentiable_inputs(inputs, create_graph) + tuple(vs), create_graph)
    return value, _unpack(product, in_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), H v)`` for a function with a single-element output."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp", forward_over_reverse=True)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T H)`` for a function with a single-element output."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp", forward_over_reverse=False)
