"""``autograd.backward`` and ``autograd.grad``: backward from given roots, into ``.grad`` or returned."""

from .._tensor import Tensor, run_backward, make_roots, GRAPH_OPS, BACKWARD_IN_TRANSFORM
from .._autograd.grad_mode import STATE
from .._api.creation import zeros_like
from .._api.joining import stack
from .._autograd import engine as _engine


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate gradients of ``tensors`` into the leaves (``.grad``).

    Arguments:
      tensors: a Tensor or a sequence of Tensors to differentiate.
      grad_tensors: the gradient of each (None for a one-element tensor).
      inputs: when given, only these tensors receive gradients.

    >>> import tensorgrad as torch
    >>> x = torch.tensor([1., 2.], requires_grad=True)
    >>> torch.autograd.backward([(x * x).sum()])
    >>> x.grad
    tensor([2., 4.])
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    if STATE.functional:
        raise RuntimeError(BACKWARD_IN_TRANSFORM)
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    tensors = tuple(tensors)
    grad_tensors = _grad_tuple(grad_tensors, tensors)
    run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


def _grad_tuple(grads, outputs):
    if grads is None:
        return None
    grads = (grads,) if isinstance(grads, Tensor) else tuple(grads)
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return grads[:len(outputs)]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned as a tuple; ``.grad`` is not touched.

    Arguments:
      outputs: a Tensor or sequence of Tensors (a sequence is differentiated as its sum).
      inputs: a Tensor or sequence of Tensors, leaves or not.
      grad_outputs: the vector of the vector-Jacobian product, one per output.
      create_graph: record the gradient computation, for higher-order derivatives.
      allow_unused: give None for an input the outputs do not depend on, instead of an error;
        ``materialize_grads`` gives zeros instead.
      is_grads_batched: the first dimension of each grad_output is a batch of vectors.

    >>> import tensorgrad as torch
    >>> x = torch.tensor(3., requires_grad=True)
    >>> dy, = torch.autograd.grad(x ** 3, x, create_graph=True)
    >>> torch.autograd.grad(dy, x)
    (tensor(18.),)
    """
    if STATE.functional:
        raise RuntimeError(BACKWARD_IN_TRANSFORM)
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
            "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    grad_outputs = _grad_tuple(grad_outputs, outputs)
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    found = _captured_grads(outputs, inputs, grad_outputs, retain_graph, create_graph)
    return _finish_grads(found, inputs, allow_unused, materialize_grads, create_graph)


def _captured_grads(outputs, inputs, grad_outputs, retain_graph, create_graph):
    """One engine run: the gradient arriving at each input (None where none did)."""
    edges, grads = make_roots(outputs, grad_outputs, create_graph)
    capture = {}
    for i, t in enumerate(inputs):
        capture.setdefault(t._edge(), i)
    slots = [capture[t._edge()] for t in inputs]
    captured = _engine.run_backward(edges, grads, retain_graph=retain_graph, create_graph=create_graph,
                                    gops=GRAPH_OPS, capture=capture, accumulate=False)
    return [captured[slot] for slot in slots]


def _finish_grads(found, inputs, allow_unused, materialize_grads, create_graph):
    # one Tensor per captured gradient: autograd.grad(y, [x, x]) gives one tensor twice, as PyTorch
    wrapped = {}
    result = []
    for i, (t, g) in enumerate(zip(inputs, found)):
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
            if not create_graph:
                if id(g) not in wrapped:
                    wrapped[id(g)] = GRAPH_OPS.wrap(g)
                g = wrapped[id(g)]
            result.append(g)
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """``is_grads_batched``: one vector-Jacobian product per row of the grad_outputs, stacked."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    batch = None
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            continue
        if tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of "
                f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                f"{g.shape[2:]} and output[{i}] has a shape of {out.shape}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap.")
        batch = g.shape[0]
    if batch is None:
        found = _captured_grads(outputs, inputs, None, retain_graph, create_graph)
        return _finish_grads(found, inputs, allow_unused, materialize_grads, create_graph)
    rows = []
    for b in range(batch):
        row_outputs = tuple(None if g is None else g[b] for g in grad_outputs)
        keep = retain_graph or b < batch - 1
        found = _captured_grads(outputs, inputs, row_outputs, keep, create_graph)
        rows.append(_finish_grads(found, inputs, True, materialize_grads, create_graph))
    result = []
    for i, t in enumerate(inputs):
        column = [row[i] for row in rows]
        if all(g is None for g in column):
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. Set "
                    "allow_unused=True if this is the desired behavior.")
            result.append(None)
            continue
        column = [zeros_like(t) if g is None else g for g in column]
        result.append(stack(column))
    return tuple(result)
