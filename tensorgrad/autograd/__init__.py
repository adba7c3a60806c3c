"""``tensorgrad.autograd``: backward, grad, grad modes and graph nodes."""

from .._autograd.grad_mode import (
    no_grad as no_grad,
    enable_grad as enable_grad,
    set_grad_enabled as set_grad_enabled,
    inference_mode as inference_mode,
)
from .._tensor import Tensor, run_backward, make_roots, GRAPH_OPS
from .._autograd import engine as _engine
from . import graph as graph


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate gradients of ``tensors`` into the leaves (``.grad``)."""
    run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned as a tuple; ``.grad`` is not touched."""
    from .._api.creation import zeros_like
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    edges, grads = make_roots(outputs, grad_outputs, create_graph)
    capture = {}
    for i, t in enumerate(inputs):
        capture.setdefault(t._edge(), i)
    slots = [capture[t._edge()] for t in inputs]
    captured = _engine.run_backward(edges, grads, retain_graph=retain_graph, create_graph=create_graph,
                                    gops=GRAPH_OPS, capture=capture, accumulate=False)
    result = []
    for i, (t, slot) in enumerate(zip(inputs, slots)):
        g = captured[slot]
        if g is None:
            if materialize_grads:
                result.append(zeros_like(t))
                continue
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. Set "
                    "allow_unused=True if this is the desired behavior.")
            result.append(None)
        else:
            result.append(g if create_graph else GRAPH_OPS.wrap(g))
    return tuple(result)
