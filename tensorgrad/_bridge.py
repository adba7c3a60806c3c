"""The bridge between the tape and JAX's functional transforms.

* ``Tensor`` is a JAX pytree whose one child is its array, so Tensors pass through ``jax.jit``,
  ``jax.grad`` and ``jax.vmap`` and come back as Tensors.
* ``record_call(fn, args)`` runs a JAX-traceable function of Tensors as one op on the tape: when
  an input requires grad, one node (``JaxCallNode``, in ``tensorgrad/_autograd/node.py``) keeps
  the ``jax.vjp`` of the whole call. ``call_jax``, ``tensorgrad.func`` and
  ``autograd.functional`` are built on it. The tensors a call closes over are found with a
  storage watch (``_ClosureWatch``).
* ``functional_scope()`` marks code run by a ``tensorgrad.func`` transform: there ``no_grad``
  and ``detach()`` stop gradients (``jax.lax.stop_gradient``) and ``backward()`` is an error.
* ``from_jax``, ``from_dlpack`` and ``Tensor.__dlpack__`` exchange arrays without copying.
"""

import contextlib

import jax
import jax.numpy as jnp

from ._autograd.grad_mode import STATE
from ._autograd.node import JaxCallNode, node_class, _inexact, _zero_cotangent
from ._ops.registry import conj_tree
from ._storage.overlay import Overlay
from ._storage.watch import Watch
from ._tensor import Tensor, _wrap, _wrap_on_edge


# ---------------------------------------------------------------------- pytree

def _flatten(t):
    return (t._data,), None


def _unflatten(aux, children):
    return _wrap(children[0])


jax.tree_util.register_pytree_node(Tensor, _flatten, _unflatten)


def is_tensor(x):
    return isinstance(x, Tensor)


def tensors_to_arrays(tree):
    """``tree`` with every Tensor replaced by its jax array."""
    mapped = jax.tree_util.tree_map(lambda x: x._data if isinstance(x, Tensor) else x, tree, is_leaf=is_tensor)
    return reorder(mapped, skeleton(tree))


def arrays_to_tensors(tree):
    """``tree`` with every jax array (or tracer) replaced by a Tensor over it."""
    mapped = jax.tree_util.tree_map(lambda x: _wrap(x) if isinstance(x, (jax.Array, jax.core.Tracer)) else x, tree)
    return reorder(mapped, skeleton(tree))


def skeleton(tree):
    """The container structure of ``tree`` (dict key order kept), leaves replaced by None."""
    if isinstance(tree, dict):
        return {k: skeleton(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)) and not hasattr(tree, "_fields"):
        return type(tree)(skeleton(v) for v in tree)
    return None


def reorder(result, skel, leaf_skel=None):
    """``result`` with its dicts in ``skel``'s key order (JAX rebuilds dicts with sorted keys).

    ``leaf_skel``: the structure found at each leaf of ``skel`` (a Jacobian's input side).
    """
    if isinstance(skel, dict) and isinstance(result, dict):
        return {k: reorder(result[k], v, leaf_skel) for k, v in skel.items()}
    if isinstance(skel, (tuple, list)) and isinstance(result, (tuple, list)) and len(skel) == len(result):
        return type(result)(reorder(r, k, leaf_skel) for r, k in zip(result, skel))
    if skel is None and leaf_skel is not None:
        return reorder(result, leaf_skel)
    return result


# ---------------------------------------------------------------------- scope

@contextlib.contextmanager
def functional_scope(vmap=False, forward=False):
    """Run the body as a tensorgrad.func transform does (grad mode on, as torch.func's inner level).

    ``forward``: the transform is forward mode (custom Functions directly inside it use their
    ``jvp``; inside a reverse-mode transform nested in it, their ``backward``).
    """
    prev = STATE.grad, STATE.forward
    STATE.functional += 1
    STATE.vmap += vmap
    if not vmap:    # vmap differentiates nothing: the enclosing transform's mode stays
        STATE.forward = forward
    STATE.grad = True
    try:
        yield
    finally:
        STATE.grad, STATE.forward = prev
        STATE.functional -= 1
        STATE.vmap -= vmap


# ---------------------------------------------------------------------- recorded calls

def _replay_call(node, grads):
    """A recorded call's backward (create_graph), recorded as a call itself so that it can be
    differentiated again (``JaxCallNode.replay``)."""
    inputs = []
    for arr, (fn, nr) in zip(node.primals, node._next):
        if fn is None:
            inputs.append(_wrap(arr))
        else:
            inputs.append(_wrap_on_edge(arr, fn, nr))
    cts = []
    for g, aval in zip(grads, node.avals):
        if _inexact(aval[1]):
            cts.append(_wrap(jnp.zeros(aval[0], aval[1])) if g is None else g)
    pure = node.pure
    avals = node.avals
    n = len(inputs)

    def backward(*tensors):
        primals = [t._data for t in tensors[:n]]
        given = iter([t._data for t in tensors[n:]])
        full = [next(given) if _inexact(a[1]) else _zero_cotangent(a) for a in avals]
        return [_wrap(g) for g in conj_tree(jax.vjp(pure, *primals)[1](conj_tree(full)))]

    return list(record_call(backward, tuple(inputs) + tuple(cts), name=type(node).__name__ + "Backward"))


class _ClosureWatch(Watch):
    """Notes the tensors from outside a transformed function that it reads and that require
    grad (the tensors it closes over): a storage watch on this thread's reads."""

    def __init__(self):
        self.found = {}

    def read(self, t):
        if t._rg or t._base is not None:
            base = t if t._base is None else t._base
            found = self.found
            if base._rg and id(base) not in found and not isinstance(base._cell.value, jax.core.Tracer):
                found[id(base)] = base


def record_call(fn, args, name="CallJaxBackward0"):
    """``fn(*args)``, recorded on the tape as one node when an input Tensor requires grad.

    ``fn`` takes and returns pytrees with Tensors in them and must be traceable by JAX (Tensor
    methods and tensorgrad functions are). Its gradient is ``jax.vjp`` of the whole call. Tensors
    that ``fn`` closes over and that require grad are inputs of the node too (as in torch.func,
    ``func.grad(lambda x: (x * w).sum())(x)`` depends on ``w``).
    """
    flat, treedef = jax.tree_util.tree_flatten(args, is_leaf=is_tensor)
    diff = [i for i, a in enumerate(flat) if isinstance(a, Tensor) and a.requires_grad and _inexact(a._data.dtype)]
    if not STATE.grad or (STATE.functional and not diff):
        return fn(*args)
    closures = []
    if not diff:
        with _ClosureWatch() as watch:
            result = fn(*args)
        if not watch.found:
            return result
        closures = list(watch.found.values())
    layout = {}
    arg_skeleton = skeleton(args)

    def pure(*arrays):
        call = list(flat)
        for i, arr in zip(diff, arrays):
            call[i] = _wrap(arr)
        # the closed-over tensors hold the tracers in this thread's overlay only
        with Overlay() as mine:
            for t, arr in zip(closures, arrays[len(diff):]):
                mine.put(t._cell, arr)
            with functional_scope():
                result = fn(*reorder(jax.tree_util.tree_unflatten(treedef, call), arg_skeleton))
        out, out_tree = jax.tree_util.tree_flatten(result, is_leaf=is_tensor)
        layout["tree"] = out_tree
        layout["skeleton"] = skeleton(result)
        layout["static"] = [None if isinstance(o, Tensor) else o for o in out]
        return [o._data for o in out if isinstance(o, Tensor)]

    primals = [flat[i]._data for i in diff]
    if closures or STATE.functional:
        outs, vjp_fn = jax.vjp(pure, *primals, *[t._data for t in closures])
    else:
        with _ClosureWatch() as watch:
            outs, vjp_fn = jax.vjp(pure, *primals)
        if watch.found:
            closures = list(watch.found.values())
            outs, vjp_fn = jax.vjp(pure, *primals, *[t._data for t in closures])
    avals = tuple((o.shape, o.dtype) for o in outs)
    edges = tuple(flat[i]._edge() for i in diff) + tuple(t._edge() for t in closures)
    node = node_class(name, JaxCallNode)(edges, pure, primals + [t._data for t in closures], vjp_fn, avals,
                                         _replay_call)
    if STATE.anomaly:
        import traceback
        node._trace = traceback.format_stack()[:-2]
    tensors = []
    for k, o in enumerate(outs):
        t = _wrap(o)
        if _inexact(o.dtype):
            t._grad_fn = node
            t._output_nr = k
            t._rg = True
        tensors.append(t)
    leaves = []
    for s in layout["static"]:
        leaves.append(tensors.pop(0) if s is None else s)
    return reorder(jax.tree_util.tree_unflatten(layout["tree"], leaves), layout["skeleton"])


def call_jax(fn, *args, **kwargs):
    """Run a JAX function on Tensors as one differentiable op on the tape.

    Tensors in ``args`` (any pytree) reach ``fn`` as jax arrays; the arrays ``fn`` returns come
    back as Tensors, with a graph node when an input requires grad. Keyword arguments are passed
    through unchanged.

    >>> import jax.numpy as jnp
    >>> import tensorgrad as torch
    >>> x = torch.tensor([0., 1.], requires_grad=True)
    >>> y = torch.call_jax(jnp.sin, x)
    >>> y.sum().backward()
    >>> x.grad
    tensor([1.0000, 0.5403])
    """
    def run(*targs):
        return arrays_to_tensors(fn(*tensors_to_arrays(targs), **kwargs))

    return record_call(run, args)


# ---------------------------------------------------------------------- zero-copy exchange

def from_jax(array):
    """A Tensor over a jax array, without a copy.

    >>> import jax.numpy as jnp
    >>> import tensorgrad as torch
    >>> torch.from_jax(jnp.arange(3))
    tensor([0, 1, 2])
    """
    if not isinstance(array, (jax.Array, jax.core.Tracer)):
        raise TypeError(f"from_jax expects a jax.Array, got {type(array).__name__}")
    return _wrap(array)


def from_dlpack(ext_tensor):
    """A Tensor sharing memory with any object that implements ``__dlpack__`` (NumPy, PyTorch, JAX)."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor.detach()
    return _wrap(jax.dlpack.from_dlpack(ext_tensor))


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    if self.requires_grad:
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    kwargs = {}
    if stream is not None:
        kwargs["stream"] = stream
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is not None:
        kwargs["copy"] = copy
    return self._data.__dlpack__(**kwargs)


def _dlpack_device(self):
    return self._data.__dlpack_device__()


Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = _dlpack_device
