"""Graph nodes: what ``tensor.grad_fn`` returns. Every kind of node lives here.

* ``Node``: the base (``isinstance(t.grad_fn, autograd.graph.Node)``): edges, hooks, names.
* ``OpNode``: one recorded op call; it keeps the op, its configuration and the primal values
  it was called with, and its backward is the op's compiled VJP replayed on them.
* ``AccumulateGrad``: ends each path at a leaf and adds the gradient into ``leaf.grad``.
* ``JaxCallNode``: a recorded JAX call (``call_jax``, ``tensorgrad.func`` on the tape); its
  backward is the call's ``jax.vjp``.
* ``CompiledFunctionBackward``: a compiled forward (``tensorgrad.compile``); its backward is the
  program's ``jax.vjp``.
* ``FunctionNode``: the graph half of a custom ``autograd.Function``'s node (the ctx half and the
  user's code are in ``tensorgrad/autograd/function.py``).

Node classes are made per PyTorch name (``MulBackward0``) so that ``type(node)`` and
``repr(node)`` read as PyTorch's. This layer knows no Tensor: where a node needs one (wrapping a
gradient for a hook or a user's backward, reading or writing a leaf's ``.grad``) it goes through
the ``gops`` the engine passes it (``engine.GraphOps``, made by the tensor layer).
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np


from .._cache import bounded_jit
from .._meta import call as meta_call
from .._hooks import RemovableHandle
from .._ops.registry import conj_tree
from .._storage import lazy

_seq = itertools.count()

# Hand-written nodes in PyTorch carry a C++ namespace in name() but not in their class name.
_NAMESPACED = {
    "AccumulateGrad": "torch::autograd::AccumulateGrad",
    "CopySlices": "torch::autograd::CopySlices",
    "CopyBackwards": "torch::autograd::CopyBackwards",
    "GraphRoot": "torch::autograd::GraphRoot",
}

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")


def short_name(node):
    """PyTorch's node name in version errors: ``SigmoidBackward0`` -> ``Sigmoid``, ``PowBackward1`` -> ``Pow1``."""
    name = node.name()
    if "Backward" not in name:
        return name
    head, _, tail = name.partition("Backward")
    if not tail.isdigit():
        return name
    return head + ("" if tail == "0" else tail)


@bounded_jit
def _add(a, b):
    return a + b


class Node:
    """Base of every graph node (``isinstance(t.grad_fn, autograd.graph.Node)``)."""

    # Class-level defaults: a node sets only what it has (nodes are made on every op call).
    _pre = None          # node pre-hooks
    _post = None         # node post-hooks
    _tensor_pre = None   # {output_nr: tensor hooks}
    _retain = None       # {output_nr: weakref of a tensor with retain_grad()}
    metadata_ = None
    _trace = None        # forward stack under anomaly mode
    # an OpNode recorded on deferred results: their segment (``_storage/lazy.py``), while its
    # placeholders are among the primals (until the segment is computed)
    seg = None

    def __init__(self, next_edges):
        self._next = next_edges
        self._seq = next(_seq)

    def name(self):
        cls = type(self).__name__
        return _NAMESPACED.get(cls, cls)

    @property
    def next_functions(self):
        return self._next

    @property
    def metadata(self):
        if self.metadata_ is None:
            self.metadata_ = {}
        return self.metadata_

    @property
    def requires_grad(self):
        return True

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs) -> tuple or None``, run after this node."""
        if self.seg is not None:
            self.seg.hooked = True
        if self._post is None:
            self._post = {}
        return RemovableHandle(self._post, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs) -> tuple or None``, run before this node."""
        if self.seg is not None:
            self.seg.hooked = True
        if self._pre is None:
            self._pre = {}
        return RemovableHandle(self._pre, fn)

    def _register_tensor_hook(self, output_nr, fn):
        if self.seg is not None:
            self.seg.hooked = True
        if self._tensor_pre is None:
            self._tensor_pre = {}
        hooks = self._tensor_pre.setdefault(output_nr, {})
        return RemovableHandle(hooks, fn)

    def _register_retain(self, output_nr, tensor_ref):
        if self.seg is not None:
            self.seg.hooked = True
        if self._retain is None:
            self._retain = {}
        self._retain[output_nr] = tensor_ref

    # --- what the engine calls
    def _num_outputs(self):
        return 1

    def _release(self):
        """Drop what backward needs (after a backward without retain_graph)."""


class OpNode(Node):
    """The node of one recorded op call."""

    saved = None        # ((tensor, version_holder, version), ...) checked before backward
    holds = True        # keeps something for backward (freed after a backward without retain_graph)
    freed = False
    out_checks = None   # ((output_nr, version_holder, version), ...)
    # ((position, view op, view configuration), ...): primals kept as the sources of layout views
    # that the op's kernel computed inside (``OpDef.composed_forward``); None: kept as received
    views = None
    # the ``Saved`` residuals of an op that ``saves_residuals``: its backward reads them, not the
    # primals (kept too, for create_graph's replay and the version checks)
    res = None
    eq = -1             # the equation of its segment whose result is this node's output
    reach = 0           # the equations of its segment its gradient reaches, as bits

    def __init__(self, next_edges, op, cfg, primals, mask, edge_pos, avals):
        self._next = next_edges
        self._seq = next(_seq)
        self.op = op
        self.cfg = cfg
        self._primals = primals     # jax arrays / Python numbers, as the op received them
        self.mask = mask            # which primals need a gradient
        self.edge_pos = edge_pos    # the next_functions slot of each masked primal
        self.avals = avals          # ((shape, dtype), ...) of a multi-output op, else None

    @property
    def primals(self):
        """The op's inputs as it received them (views kept as their sources are computed now)."""
        if self.seg is not None:
            lazy.settle(self)
        primals = self._primals
        if self.views is not None and primals is not None:
            primals = list(primals)
            for pos, op, cfg in self.views:
                primals[pos] = meta_call(op.forward(cfg), (primals[pos],))
            self._primals = primals = tuple(primals)
            self.views = None
        return primals

    @primals.setter
    def primals(self, value):
        self._primals = value

    def _num_outputs(self):
        return 1 if self.avals is None else len(self.avals)

    def _check_versions(self, gops):
        for entries in (self.saved, self.out_checks):
            if entries is not None:
                for entry in entries:
                    if entry[1].version != entry[2]:
                        raise gops.version_error(self, entry)

    def _apply(self, grads, create_graph, gops):
        """Input gradients, one per next_functions slot (None where none flows)."""
        if self.freed:
            raise RuntimeError(SECOND_BACKWARD)
        self._check_versions(gops)
        out = [None] * len(self._next)
        if create_graph:
            results = gops.replay(self, grads)
        elif self.res is not None:
            results = meta_call(self.op.backward_saved(), (self.res, tuple(grads)))
        else:
            cts = grads[0] if self.avals is None else tuple(grads)
            results = meta_call(self.op.backward(self.cfg, self.mask, self.views), (self._primals, cts))
        for pos, g in zip(self.edge_pos, results):
            out[pos] = g
        return out

    def _release(self):
        if self.holds:
            self.primals = None
            self.res = None
            self.freed = True


_classes = {}


def node_class(name, base=OpNode):
    """The node class PyTorch calls ``name`` (made once, then reused)."""
    cls = _classes.get((name, base))
    if cls is None:
        cls = type(name, (base,), {})
        cls.__module__ = "builtins"
        _classes[(name, base)] = cls
    return cls


class AccumulateGrad(Node):
    """The node that adds a leaf's gradient into ``leaf.grad``."""

    def __init__(self, variable_ref):
        Node.__init__(self, ())
        self._variable = variable_ref

    @property
    def variable(self):
        return self._variable()

    def accumulate(self, grad, create_graph, gops):
        """Add ``grad`` into the leaf's ``.grad``, then run its post-accumulate-grad hooks."""
        var = self._variable()
        if var is None:
            return
        accumulate_grad(var, grad, create_graph, gops)
        hooks = gops.post_accumulate_hooks(var)
        if hooks:
            for fn in list(hooks.values()):
                if fn(var) is not None:
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")


AccumulateGrad.__module__ = "builtins"


def accumulate_grad(variable, grad, create_graph, gops, retained=False):
    """Add a backward's gradient into ``variable.grad`` as PyTorch does.

    With ``create_graph``, ``grad`` is a Tensor: the first gradient is stored as a differentiable
    copy in the variable's dtype (``CopyBackwards``), later ones are added out of place (recorded).
    Otherwise ``grad`` is an array, cast to the variable's dtype: the first becomes a new ``.grad``;
    a retained non-leaf gradient (``retain_grad``) gets a new ``.grad`` object; else ``.grad`` is
    added to in place (the same object keeps receiving and its version moves).
    """
    if create_graph:
        old = gops.get_grad(variable)
        gops.set_grad(variable, gops.grad_copy(variable, grad) if old is None else gops.add(old, grad))
        return
    dtype = gops.dtype_of(variable)
    if grad.dtype != dtype:
        grad = grad.astype(dtype)
    old = gops.get_grad(variable)
    if old is None:
        gops.set_grad(variable, gops.wrap(grad))
    elif retained:
        # PyTorch's retain_grad hook accumulates out of place (a new .grad object)
        gops.set_grad(variable, gops.wrap(_add(gops.unwrap(old), grad)))
    else:
        # PyTorch adds in place when grad mode is off, even into a .grad that has a history (made
        # by an earlier create_graph backward): the object, its grad_fn and requires_grad stay
        gops.write_in_place(old, _add(gops.unwrap(old), grad))


# ---------------------------------------------------------------------- nodes of JAX calls

def _inexact(dtype):
    return jnp.issubdtype(dtype, jnp.inexact)


def _zero_cotangent(aval):
    shape, dtype = aval
    if _inexact(dtype):
        return jnp.zeros(shape, dtype)
    return np.zeros(shape, jax.dtypes.float0)


class JaxCallNode(Node):
    """The node of a recorded JAX call: its backward is the call's ``jax.vjp``.

    ``replay(node, grads)``, given by whoever recorded the call, records the backward as a new
    call (create_graph), so that it can be differentiated again.
    """

    freed = False

    def __init__(self, next_edges, pure, primals, vjp_fn, avals, replay):
        Node.__init__(self, next_edges)
        self.pure = pure            # arrays of the differentiated inputs -> list of output arrays
        self.primals = primals
        self.vjp_fn = vjp_fn
        self.avals = avals          # (shape, dtype) of each output
        self.replay = replay

    def _num_outputs(self):
        return len(self.avals)

    def _release(self):
        self.primals = None
        self.vjp_fn = None
        self.freed = True

    def _apply(self, grads, create_graph, gops):
        if self.freed:
            raise RuntimeError(SECOND_BACKWARD)
        if create_graph:
            return self.replay(self, grads)
        cts = []
        for g, aval in zip(grads, self.avals):
            if g is None or not _inexact(aval[1]):
                cts.append(_zero_cotangent(aval))
            else:
                cts.append(g.astype(aval[1]))
        return list(conj_tree(self.vjp_fn(conj_tree(cts))))


class CompiledFunctionBackward(Node):
    """The node of a compiled forward: its backward is the program's ``jax.vjp``."""

    def __init__(self, next_edges, vjp_fn, avals):
        Node.__init__(self, next_edges)
        self.vjp_fn = vjp_fn
        self.avals = avals

    def _num_outputs(self):
        return len(self.avals)

    def _release(self):
        self.vjp_fn = None

    def _apply(self, grads, create_graph, gops):
        if self.vjp_fn is None:
            raise RuntimeError(SECOND_BACKWARD)
        if create_graph:
            raise RuntimeError("tensorgrad.compile: a compiled forward does not support double backward "
                               "(create_graph=True); run it eagerly for higher-order gradients")
        cts = [jnp.zeros(shape, dtype) if g is None else g.astype(dtype) for g, (shape, dtype) in zip(grads, self.avals)]
        return list(_pull(self.vjp_fn, cts))


@bounded_jit
def _pull(vjp_fn, cts):
    return conj_tree(vjp_fn(conj_tree(cts))[0])


# ---------------------------------------------------------------------- custom Functions

class FunctionNode(Node):
    """The graph half of the node of one ``autograd.Function.apply`` call (``MyFnBackward``).

    The node is also the call's ``ctx``: ``autograd.function.BackwardCFunction`` joins this class
    with ``FunctionCtx`` and runs the user's backward in ``_user_backward``. Here: the node's
    outputs and inputs, freeing what it saved, and the gradients in and out of the user's code.
    """

    _inputs = ()            # per forward argument: (shape, dtype) of a Tensor, else None
    _outputs = ()           # per forward output: (shape, dtype) of a Tensor, else None
    _saved = None           # ((tensor, version_holder, version), ...) packed after forward
    _freed = False
    to_save = ()
    materialize_grads = True

    def __init__(self):
        Node.__init__(self, ())

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def _num_outputs(self):
        return max(1, len(self._outputs))

    def _release(self):
        if self._saved:
            self._freed = True
            self._saved = None
            self.to_save = ()

    def _user_backward(self, grad_outputs):
        """Per forward argument, its gradient (a Tensor or None) from the user's backward."""
        raise NotImplementedError

    def _apply(self, grads, create_graph, gops):
        """Run the user's backward on the output gradients; one gradient per tensor input."""
        grad_outputs = []
        for meta, g in zip(self._outputs, list(grads) + [None] * (len(self._outputs) - len(grads))):
            if g is None:
                if meta is not None and self.materialize_grads:
                    g = jnp.zeros(meta[0], meta[1])
                    g = gops.wrap(g) if create_graph else g
                grad_outputs.append(None if g is None else (g if create_graph else gops.wrap(g)))
            else:
                grad_outputs.append(g if create_graph else gops.wrap(g))
        checked = self._user_backward(grad_outputs)
        out = []
        for meta, g in zip(self._inputs, checked):
            if meta is None:
                continue
            out.append(None if g is None else (g if create_graph else gops.unwrap(g)))
        return out
