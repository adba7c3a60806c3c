"""Graph nodes: what ``tensor.grad_fn`` returns.

A node of a recorded op keeps the op, its configuration and the primal values it was called
with; its backward is the op's compiled VJP replayed on them. ``AccumulateGrad`` ends each path
at a leaf. Node classes are made per PyTorch name (``MulBackward0``) so that ``type(node)``
and ``repr(node)`` read as PyTorch's.
"""

import itertools

from .._hooks import RemovableHandle

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


class Node:
    """Base of every graph node (``isinstance(t.grad_fn, autograd.graph.Node)``)."""

    # Class-level defaults: a node sets only what it has (nodes are made on every op call).
    _pre = None          # node pre-hooks
    _post = None         # node post-hooks
    _tensor_pre = None   # {output_nr: tensor hooks}
    _retain = None       # {output_nr: weakref of a tensor with retain_grad()}
    metadata_ = None
    _trace = None        # forward stack under anomaly mode

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
        if self._post is None:
            self._post = {}
        return RemovableHandle(self._post, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs) -> tuple or None``, run before this node."""
        if self._pre is None:
            self._pre = {}
        return RemovableHandle(self._pre, fn)

    def _register_tensor_hook(self, output_nr, fn):
        if self._tensor_pre is None:
            self._tensor_pre = {}
        hooks = self._tensor_pre.setdefault(output_nr, {})
        return RemovableHandle(hooks, fn)

    def _register_retain(self, output_nr, tensor_ref):
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
    freed = False
    out_checks = None   # ((output_nr, version_holder, version), ...)

    def __init__(self, next_edges, op, cfg, primals, mask, edge_pos, avals):
        self._next = next_edges
        self._seq = next(_seq)
        self.op = op
        self.cfg = cfg
        self.primals = primals      # jax arrays / Python numbers, as the op received them
        self.mask = mask            # which primals need a gradient
        self.edge_pos = edge_pos    # the next_functions slot of each masked primal
        self.avals = avals          # ((shape, dtype), ...) of a multi-output op, else None

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
        else:
            cts = grads[0] if self.avals is None else tuple(grads)
            results = self.op.backward(self.cfg, self.mask)(self.primals, cts)
        for pos, g in zip(self.edge_pos, results):
            out[pos] = g
        return out

    def _release(self):
        if self.op.saves != "none":
            self.primals = None
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


AccumulateGrad.__module__ = "builtins"
