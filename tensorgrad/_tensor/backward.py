"""The backward entry: roots, version errors, the create_graph replay, ``run_backward``.

``tensor.backward()`` and ``autograd.backward`` come here: ``make_roots`` checks the roots and
their gradients as PyTorch does, ``run_backward`` picks the edges of ``inputs=`` and hands
everything to the engine (``tensorgrad/_autograd/engine.py``).

Why this is in the tensor layer and not beside the engine: the ``_autograd`` layer imports no
Tensor, and everything here handles Tensors (checking them, wrapping arrays, re-applying a
node's VJP as recorded ops, naming the modified tensor in a version error). So the engine is
given what it needs as an injected ``engine.GraphOps`` (``GRAPH_OPS`` below: wrap and unwrap,
the create_graph replay, version errors and the leaf accessors ``AccumulateGrad`` uses), and the
Tensor-free part of the replay, making the backward op, is ``tensorgrad/_autograd/replay.py``.
"""

import warnings

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._cache import tracing
from .._device import filled
from .._autograd import engine
from .._meta import is_meta
from .._autograd.grad_mode import STATE
from .._autograd.node import short_name
from .._autograd.replay import backward_op, primal_dependence
from .._ops.registry import OpDef
from .tensor import BACKWARD_IN_TRANSFORM, Tensor, _wrap, _wrap_on_edge
from .dispatch import apply

def _version_error(node, entry):
    first = entry[0]
    if isinstance(first, Tensor):
        arr = first._data
        fn = first._grad_fn
        if first._base is not None:
            try:
                fn = first.grad_fn      # a view's current history (AsStridedBackward0 after a write)
            except RuntimeError:
                pass
        which = "" if fn is None else f", which is output {first._output_nr} of {short_name(fn)},"
    else:
        shape, dt = node.avals[first] if node.avals else (None, None)
        if len(entry) > 4:
            shape, dt = entry[3], entry[4]
        named = node
        if len(entry) > 5:
            named = entry[5]() or entry[6]
        # an integer output (indices) has no history, so PyTorch names no node
        which = f", which is output {first} of {short_name(named)}," if dt is None or _dtype.FROM_NP[
            np.dtype(dt)].kind >= _dtype.FLOAT else ""
        arr = None
    if arr is not None:
        shape, dt = arr.shape, arr.dtype
    legacy = _dtype.FROM_NP[np.dtype(dt)].legacy if dt is not None else "FloatTensor"
    if shape is None and isinstance(first, int):
        shape = ()
    return RuntimeError(
        f"one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[torch.{legacy} {list(shape) if shape is not None else []}]{which} is at version {entry[1].version}; "
        f"expected version {entry[2]} instead. {_ANOMALY_HINT if STATE.anomaly else _VERSION_HINT}")


_VERSION_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                 "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
_ANOMALY_HINT = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                 "The variable in question was changed in there or anywhere later. Good luck!")


def _replay(node, grads):
    """Apply the node's VJP as recorded tensorgrad ops on its saved inputs (create_graph).

    Each input that the VJP reads and that requires grad is stood in for by a tensor over the
    saved value on the input's graph edge, so the recorded backward connects to the forward graph.
    """
    bop = backward_op(node)
    cts = [grads[0]] if node.avals is None else list(grads)
    ct_arrays = [None if c is None else c._data for c in cts]
    depends, reach = primal_dependence(bop, node.primals, ct_arrays, node.mask)
    primals = list(node.primals)
    live = set()
    tensor_idx = 0
    for i, m in enumerate(node.mask):
        if not m:
            continue
        fn, nr = node._next[node.edge_pos[tensor_idx]]
        tensor_idx += 1
        if fn is None or not depends[i]:
            continue
        primals[i] = _wrap_on_edge(primals[i], fn, nr)
        live.add(i)
    n = len(primals)
    live.update(n + j for j, c in enumerate(cts) if c is not None and c._rg)
    out = apply(bop, tuple(primals) + tuple(cts))
    out = out if isinstance(out, tuple) else (out,)
    # a gradient that reads no input requiring grad is a constant, as PyTorch's
    return tuple(o if reach[k] & live else _wrap(o._data) for k, o in enumerate(out))


# ---------------------------------------------------------------------- what the engine may do to Tensors

def _tensor_add(a, b):
    return a + b


def _unwrap(t):
    return t._data


def _get_grad(t):
    return t._grad


def _set_grad(t, g):
    t._grad = g


def _dtype_of(t):
    return t._data.dtype


def _write_in_place(t, array):
    t._write(array)
    t._bump()


# ``.grad`` made by a create_graph backward: a differentiable copy into a tensor of the leaf's dtype
_GRAD_COPY = OpDef("grad_copy", lambda dst, src: src.astype(dst.dtype), "CopyBackwards", saves="none",
                   scalar_slots=False)


def _grad_copy(t, g):
    """The first ``.grad`` of a create_graph backward: as PyTorch, a differentiable copy
    (CopyBackwards) cast to ``t``'s dtype."""
    if g._rg:
        return apply(_GRAD_COPY, (_wrap(jnp.zeros((), t._data.dtype)), g))
    return _wrap(g._data.astype(t._data.dtype))


def _post_accumulate_hooks(t):
    return t._post_acc


def _hook_name(hook):
    """The name PyTorch's hook errors give a hook: its ``__name__``, else ``<unknown>``."""
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def _check_hook_result(hook, old, new):
    """PyTorch's ``check_single_result``: a hook's gradient must be a Tensor of old's type and size."""
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new.dtype is not old.dtype:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was torch.{old.dtype.legacy} "
                           f"got torch.{new.dtype.legacy})")
    if tuple(new.shape) != tuple(old.shape):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")


GRAPH_OPS = engine.GraphOps(
    wrap=_wrap, unwrap=_unwrap, add=_tensor_add, replay=_replay, version_error=_version_error,
    get_grad=_get_grad, set_grad=_set_grad, dtype_of=_dtype_of,
    write_in_place=_write_in_place, grad_copy=_grad_copy, post_accumulate_hooks=_post_accumulate_hooks,
    check_hook_result=_check_hook_result, hook_name=_hook_name)


# ---------------------------------------------------------------------- the entry

def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the gradient of this tensor w.r.t. graph leaves (see ``autograd.backward``).

    ``Tensor.backward``.
    """
    if STATE.functional:
        raise RuntimeError(BACKWARD_IN_TRANSFORM)
    run_backward((self,), gradient, retain_graph, create_graph, inputs)


_CREATE_GRAPH_WARNED = []


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs, *, allow_unused=True):
    """``autograd.backward``: validate roots and gradients, then run the engine."""
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and not _CREATE_GRAPH_WARNED:
        _CREATE_GRAPH_WARNED.append(True)   # PyTorch warns once per process (TORCH_WARN_ONCE)
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter "
            "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
            "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
            "of your parameters to None after use to break the cycle and avoid the leak. (Triggered "
            "internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)", UserWarning, stacklevel=3)
    edges, grads = make_roots(tensors, grad_tensors, create_graph)
    capture = None
    if inputs is not None:
        # only the listed tensors receive gradients: leaves through their AccumulateGrad, non-leaves
        # as retained grads; the walk skips whatever leads to none of them
        if isinstance(inputs, Tensor):
            inputs = (inputs,)
        inputs = tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        capture = {}
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
            if t.grad_fn is not None or not t.requires_grad:
                t.retain_grad()
            capture[t._edge()] = i
    engine.run_backward(edges, grads, retain_graph=retain_graph, create_graph=create_graph,
                        gops=GRAPH_OPS, capture=capture, accumulate=True)


_ONES = {}


def _ones(shape, dtype):
    """A cached array of ones: the implicit gradient of a scalar output (made on the host: no
    kernel to compile; inside a trace, a value of the trace, not kept)."""
    key = (shape, dtype)
    arr = _ONES.get(key)
    if arr is None:
        arr = filled(shape, 1, dtype)
        if not tracing():
            _ONES[key] = arr
    return arr


def _implicit_grad(array):
    """The implicit gradient of a scalar output: one (a shape only for a meta output)."""
    if is_meta(array):
        return array
    return _ones(array.shape, array.dtype)


def make_roots(tensors, grad_tensors, create_graph):
    """Root edges and their gradients, with PyTorch's checks on both."""
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    tensors = tuple(tensors)
    if grad_tensors is None:
        grad_tensors = (None,) * len(tensors)
    elif isinstance(grad_tensors, Tensor):
        grad_tensors = (grad_tensors,)
    grad_tensors = tuple(grad_tensors)
    edges = []
    grads = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        # no edge: not requiring grad, or a view made in no_grad mode (it requires grad, as its
        # base does, but no gradient reaches it; PyTorch's gradient_edge has no function either)
        if not t.requires_grad or t._edge()[0] is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if t.dtype.kind == _dtype.COMPLEX:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {t.dtype}")
            g = _implicit_grad(t._meta)
            if create_graph:
                g = _wrap(g)
        else:
            if not isinstance(g, Tensor):
                raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
            if tuple(g.shape) != tuple(t.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a shape "
                    f"of {t.shape}.")
            if g.dtype.kind == _dtype.COMPLEX and t.dtype.kind != _dtype.COMPLEX:
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have the same dtype. "
                    f"Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] has a dtype "
                    f"of {t.dtype}.")
            if not create_graph:
                g = g._data.astype(t._meta.dtype)
        edges.append(t._edge())
        grads.append(g)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grad_tensors)} gradients")
    return edges, grads
