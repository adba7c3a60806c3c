"""The backward engine: an iterative walk of the graph in dependency order.

Gradients flow as jax arrays, or as Tensors when ``create_graph`` asks for a differentiable
backward. The engine never names an op: an OpNode's backward is its op's compiled VJP, and
the Tensor-level parts it and the nodes need (wrapping arrays for hooks, recording a backward
as an op, reading and writing a leaf's ``.grad``) come from the caller as a ``GraphOps``; the
engine touches no Tensor itself.
"""

import heapq
import os
import threading
import warnings

import jax.numpy as jnp

from .grad_mode import STATE
from .. import _meta
from .._meta import call as meta_call
from .node import AccumulateGrad, OpNode, accumulate_grad, _add
from .deferred import run_segment
from .staged import BACKGROUND, Staged
from .._storage import lazy
from .._cache import FUSED, KERNELS, config_key, hold_sweeps, jit, tracing
from .._ops.registry import apply_views, saved_vjp, views_key, vjp_call


class GraphOps:
    """What the engine and the nodes need from the Tensor layer (given by the caller, to keep
    imports one-way).

    Gradients: ``wrap(array) -> Tensor``; ``unwrap(Tensor) -> array``; ``add(a, b)`` of Tensors;
    ``replay(node, grads) -> recorded grads`` (an OpNode's backward under create_graph);
    ``version_error(node, entry) -> RuntimeError`` (a saved tensor was modified in place).

    Leaves (``AccumulateGrad``): ``get_grad(t)`` and ``set_grad(t, g)`` (``t.grad`` without
    PyTorch's non-leaf warning or checks); ``dtype_of(t)``, the dtype of ``t``'s array;
    ``write_in_place(t, array)``
    (an in-place write that moves the version); ``grad_copy(t, g)``, the differentiable copy of
    ``g`` in ``t``'s dtype (create_graph); ``post_accumulate_hooks(t)``, a dict or None.

    Hooks: ``check_hook_result(hook, old, new)`` raises PyTorch's error unless the gradient ``new``
    that ``hook`` returned for ``old`` is a Tensor of old's type and size; ``hook_name(hook)``.
    """

    def __init__(self, *, wrap, unwrap, add, replay, version_error, get_grad, set_grad, dtype_of,
                 write_in_place, grad_copy, post_accumulate_hooks, check_hook_result, hook_name):
        self.wrap = wrap
        self.unwrap = unwrap
        self.add = add
        self.replay = replay
        self.version_error = version_error
        self.get_grad = get_grad
        self.set_grad = set_grad
        self.dtype_of = dtype_of
        self.write_in_place = write_in_place
        self.grad_copy = grad_copy
        self.post_accumulate_hooks = post_accumulate_hooks
        self.check_hook_result = check_hook_result
        self.hook_name = hook_name


def _call_tensor_hooks(node, grads, gops, create_graph):
    for nr, hooks in node._tensor_pre.items():
        if grads[nr] is None or not hooks:
            continue
        g = grads[nr] if create_graph else gops.wrap(grads[nr])
        for fn in list(hooks.values()):
            new = fn(g)
            if new is not None:
                gops.check_hook_result(fn, g, new)
                g = new
        grads[nr] = g if create_graph else gops.unwrap(g)


def _wrap_tuple(grads, gops, create_graph):
    if create_graph:
        return tuple(grads)
    return tuple(None if g is None else gops.wrap(g) for g in grads)


def _unwrap_tuple(grads, gops, create_graph):
    if create_graph:
        return list(grads)
    return [None if g is None else gops.unwrap(g) for g in grads]


def _checked_results(fn, old, new, gops):
    """PyTorch's ``check_result`` for what a node hook returned in place of ``old``: None (keep
    ``old``), or a tuple as long as ``old`` whose entries are None or gradients like old's."""
    if new is None:
        return old
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(f"hook '{gops.hook_name(fn)}' has returned an incorrect number of values (got {len(new)}, "
                           f"but expected {len(old)})")
    for before, after in zip(old, new):
        if after is None:
            continue
        if before is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        gops.check_hook_result(fn, before, after)
    return new


def _run_pre_hooks(node, grads, gops, create_graph):
    wrapped = _wrap_tuple(grads, gops, create_graph)
    for fn in list(node._pre.values()):
        wrapped = _checked_results(fn, wrapped, fn(wrapped), gops)
    return _unwrap_tuple(wrapped, gops, create_graph)


def _run_post_hooks(node, grad_inputs, grads, gops, create_graph):
    wrapped = _wrap_tuple(grad_inputs, gops, create_graph)
    for fn in list(node._post.values()):
        wrapped = _checked_results(fn, wrapped, fn(wrapped, _wrap_tuple(grads, gops, create_graph)), gops)
    return _unwrap_tuple(wrapped, gops, create_graph)


def _topological(roots, deps):
    """Nodes reachable from roots, parents before children (Kahn's order)."""
    remaining = dict(deps)
    order = []
    stack = [n for n in roots if remaining.get(n, 0) == 0]
    seen = set(stack)
    while stack:
        n = stack.pop()
        order.append(n)
        for child, _ in n._next:
            if child is None:
                continue
            remaining[child] -= 1
            if remaining[child] == 0 and child not in seen:
                seen.add(child)
                stack.append(child)
    return order


class _Runs(threading.local):
    count = 0


_RUNS = _Runs()


def backward_runs():
    """How many backward passes this thread ran (tensorgrad.compile notes whether a step ran one)."""
    return _RUNS.count


def in_capturing_backward():
    """Whether this thread is inside a backward pass that captures gradients (``autograd.grad``,
    ``backward(inputs=...)``): reentrant checkpoints refuse to run there, as in PyTorch."""
    return getattr(_RUNS, "capturing", False)


def run_backward(root_edges, root_grads, *, retain_graph, create_graph, gops,
                 capture=None, accumulate=True):
    """Propagate ``root_grads`` from ``root_edges`` through the graph (see ``_run_backward``)."""
    if (capture is None and not create_graph and accumulate and len(root_edges) == 1 and not STATE.anomaly
            and root_edges[0][0] is not None and root_edges[0][0].seg is not None and root_edges[0][1] == 0
            and run_segment(root_edges[0][0], root_grads[0], retain_graph, gops)):
        _RUNS.count += 1
        return None
    outer = getattr(_RUNS, "capturing", False)
    _RUNS.capturing = capture is not None
    try:
        return _run_backward(root_edges, root_grads, retain_graph=retain_graph, create_graph=create_graph,
                             gops=gops, capture=capture, accumulate=accumulate)
    finally:
        _RUNS.capturing = outer


def _run_backward(root_edges, root_grads, *, retain_graph, create_graph, gops, capture, accumulate):
    """Propagate ``root_grads`` from ``root_edges`` through the graph.

    Arguments:
      root_edges: ``[(node, output_nr), ...]``; root_grads: matching arrays (or Tensors).
      capture: optional ``{(node, output_nr): slot}``; the gradient arriving there (after
        tensor hooks) is returned in that slot and the walk goes no further on its account.
        Nodes that lead to no captured edge are not run (nor are their hooks).
      accumulate: write into leaves' ``.grad`` (False for ``autograd.grad``). With a capture
        (``backward(inputs=...)``), a captured leaf's AccumulateGrad runs as usual, with its
        hooks, instead of being captured.

    Returns:
      the captured gradients, a list (None where nothing arrived).
    """
    _RUNS.count += 1
    deps = {}
    roots = []
    for node, _ in root_edges:
        if node is not None and node not in deps:
            deps[node] = 0
            roots.append(node)
    stack = list(roots)
    while stack:
        n = stack.pop()
        if n.seg is not None:
            lazy.settle(n)      # a node recorded on deferred results gets their arrays
        for child, _ in n._next:
            if child is None:
                continue
            if child in deps:
                deps[child] += 1
            else:
                deps[child] = 1
                stack.append(child)

    needed = None
    captured = None
    if capture is not None:
        captured = [None] * (max(capture.values()) + 1 if capture else 0)
        targets = {n for n, _ in capture}
        needed = set(targets)
        for n in reversed(_topological(roots, deps)):
            if any(c in needed for c, _ in n._next if c is not None):
                needed.add(n)

    buffers = {}
    for (node, nr), g in zip(root_edges, root_grads):
        if node is None:
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._num_outputs()
        buf[nr] = g if buf[nr] is None else (gops.add(buf[nr], g) if create_graph else _add(buf[nr], g))

    if capture is None and not create_graph and not STATE.anomaly:
        if _run_fused(roots, deps, root_edges, root_grads, retain_graph, gops):
            return captured

    ready = [(-n._seq, n) for n in roots if deps[n] == 0]
    heapq.heapify(ready)
    prev_grad_mode = STATE.grad
    STATE.grad = bool(create_graph)
    try:
        while ready:
            _, node = heapq.heappop(ready)
            grads = buffers.pop(node, None)
            grad_inputs = None
            # as PyTorch's engine: a node runs if it leads to a captured edge (every node without a
            # capture); one that does not keeps its saved tensors and is skipped, except a lone
            # root, whose tensor hooks and retain_grad are still called
            ran = needed is None or node in needed
            try:
                if grads is None:
                    pass
                elif ran:
                    grad_inputs = _process(node, grads, create_graph, gops, capture, captured,
                                           needed, accumulate)
                    if grad_inputs is _CAPTURED_ONLY:
                        grad_inputs, ran = None, False
                elif len(root_edges) == 1 and node is roots[0]:
                    _tensor_hooks(node, grads, create_graph, gops)
            except Exception:
                if STATE.anomaly:
                    _report_anomaly(node)
                raise
            if ran and not retain_graph:
                node._release()
            for i, (child, nr) in enumerate(node._next):
                if child is None:
                    continue
                g = None if grad_inputs is None else grad_inputs[i]
                if g is not None:
                    buf = buffers.get(child)
                    if buf is None:
                        buf = buffers[child] = [None] * child._num_outputs()
                    if buf[nr] is None:
                        buf[nr] = g
                    else:
                        buf[nr] = gops.add(buf[nr], g) if create_graph else _add(buf[nr], g)
                deps[child] -= 1
                if deps[child] == 0:
                    heapq.heappush(ready, (-child._seq, child))
    finally:
        STATE.grad = prev_grad_mode
    return captured


# what ``_process`` returns for a node whose gradients were captured and that leads nowhere needed
_CAPTURED_ONLY = object()


def _tensor_hooks(node, grads, create_graph, gops):
    """The hooks of the tensors whose gradients ``grads`` are: register_hook's, then retain_grad."""
    if node._tensor_pre:
        _call_tensor_hooks(node, grads, gops, create_graph)
    if node._retain:
        for nr, ref in node._retain.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                accumulate_grad(t, grads[nr], create_graph, gops, retained=True)


def _process(node, grads, create_graph, gops, capture, captured, needed, accumulate):
    """Run one node: tensor hooks, retain_grad, capture, pre-hooks, the node, post-hooks."""
    _tensor_hooks(node, grads, create_graph, gops)
    if capture is not None and not (accumulate and type(node) is AccumulateGrad):
        for nr in range(len(grads)):
            slot = capture.get((node, nr))
            if slot is not None and grads[nr] is not None:
                captured[slot] = grads[nr] if captured[slot] is None else (
                    gops.add(captured[slot], grads[nr]) if create_graph else _add(captured[slot], grads[nr]))
        if not any(c in needed for c, _ in node._next if c is not None):
            return _CAPTURED_ONLY
    if node._pre:
        grads = _run_pre_hooks(node, grads, gops, create_graph)
    if type(node) is AccumulateGrad:
        if accumulate and grads[0] is not None:
            node.accumulate(grads[0], create_graph, gops)
        if node._post:
            _run_post_hooks(node, [], grads, gops, create_graph)
        return None
    if any(g is not None for g in grads):
        grad_inputs = node._apply(grads, create_graph, gops)
    else:
        grad_inputs = [None] * len(node._next)
    if node._post:
        grad_inputs = _run_post_hooks(node, grad_inputs, grads, gops, create_graph)
    if STATE.anomaly and STATE.anomaly_check_nan:
        for i, g in enumerate(grad_inputs):
            if g is not None and bool(jnp.isnan(gops.unwrap(g) if create_graph else g).any()):
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    return grad_inputs


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _report_anomaly(node):
    """Anomaly mode: warn with the forward stack of the node whose backward failed."""
    if node._trace is None:
        text = (f"Error detected in {node.name()}. No forward pass information available. Enable detect "
                "anomaly during forward pass for more information.")
    else:
        frames = [f for f in node._trace if not f.startswith(f'  File "{_PACKAGE_DIR}')]
        text = f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n" + "".join(frames)
    warnings.warn(text + " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
                  "python_anomaly_mode.cpp:122.)", UserWarning, stacklevel=4)



# ---------------------------------------------------------------------- fused backward
#
# A training loop builds the same graph every step. The second time a graph of a given
# structure is backpropagated (and from then on), its whole backward runs as one compiled XLA
# program instead of one compiled call per node. The structure key holds each node's op,
# configuration key, mask and edges; jit itself specializes on the primals' shapes and dtypes,
# and each program it compiles counts towards the ``fused`` cache's limit (``_cache.py``).
# Graphs with hooks, retained grads, captures or create_graph take the node-by-node path.

_SEEN = "seen once"         # a structure's first backward: compiled on its next occurrence
_FUSED_MAX_NODES = 1000     # bigger graphs would spend longer compiling than running

# A structure's first program compiles on a background thread (``_compile_behind``) while that
# backward, and any until the program is ready, runs node by node: the compile (0.3-1 s for a
# small CNN on a CPU) never stalls a training step. Its later programs (a new batch size)
# compile in the call, as any jit's do. ``BACKGROUND["on"] = False`` compiles in the call.
_COMPILING = {}             # program -> its compiling thread

# A structure seen for the first time whose nodes' backward kernels mostly were never compiled
# (a model's first training step) compiles its fused program at once instead: one program of
# the whole backward compiles in about half the time of its nodes' kernels one by one (0.5 s
# against 1.0 s for a small CNN). Small graphs (the tutorials' one-off backwards) and graphs
# whose kernels exist (a structure that changes from step to step) keep the node-by-node path.
_FIRST_FUSED_NODES = 12


_COVERED = set()            # (op, configuration, mask, primal types) of the nodes a fused-first program served


def _mostly_cold(parts, order):
    """Whether most op nodes of a new structure have neither a backward kernel nor a place, with
    their primals' shapes, in a program compiled at its first sighting. A new structure of the
    same ops and shapes, as a changing sequence length makes, goes node by node (compiling each
    would stall every step); one of new shapes (an epoch's last, smaller batch, whose reshapes'
    configurations change the structure) compiles its program at once, as its nodes' kernels
    would each compile for the new shapes."""
    nodes = [n for n in order if type(n) is not AccumulateGrad]
    ops = [(p[0], p[1], p[2]) if p[7] is None else (p[0], p[1], p[2], p[7]) for p in parts if p is not None]
    if len(ops) < _FIRST_FUSED_NODES:
        return False
    shaped = [k + (_primal_types(n),) for k, n in zip(ops, nodes)]
    cold = sum(1 for k, s in zip(ops, shaped) if k not in KERNELS and s not in _COVERED)
    if 2 * cold <= len(ops):
        return False
    if len(_COVERED) > 100_000:
        _COVERED.clear()
    _COVERED.update(shaped)
    return True


def _primal_types(node):
    return tuple([(a.shape, a.dtype) if hasattr(a, "shape") else type(a) for a in node._primals])


def _compile_behind(program, primals, grads):
    """Compile ``program`` for these arguments on a thread of its own (by calling it: the result
    is dropped; the arrays are immutable, so the graph may be freed meanwhile). Not a daemon:
    an exit waits for the compile, which then also reaches the compilation cache on disk."""
    def run():
        try:
            program(primals, grads)
        except Exception:       # the call in the engine will raise it again, where it can be seen
            pass
        finally:
            _COMPILING.pop(program, None)
            hold_sweeps(-1)

    hold_sweeps(1)
    thread = threading.Thread(target=run, name="tensorgrad-fused-compile")
    _COMPILING[program] = thread
    thread.start()


def _structure(order, root_edges, gops):
    """The structure key of a graph, its node index, and each node's configuration."""
    index = {n: i for i, n in enumerate(order)}
    parts = []
    cfgs = []
    for n in order:
        if n._pre or n._post or n._tensor_pre or n._retain:
            return None, None, None
        if type(n) is AccumulateGrad:
            var = n.variable
            if var is None or gops.post_accumulate_hooks(var):
                return None, None, None
            parts.append(None)
            cfgs.append(None)
            continue
        if not isinstance(n, OpNode) or n.freed:
            return None, None, None
        nexts = tuple([(-1 if c is None else index[c], nr) for c, nr in n._next])
        views = n.views
        avals = n.avals
        parts.append((n.op, config_key(n.cfg), n.mask, n.edge_pos, avals is not None,
                      1 if avals is None else len(avals), nexts, None if views is None else views_key(views),
                      n.res is not None))
        cfgs.append((n.cfg, views))
    roots = tuple((index[n], nr) for n, nr in root_edges if n is not None)
    return (tuple(parts), roots), index, cfgs


def _fused_program(parts, roots, cfgs):
    """The whole backward of a graph structure as one function of (primals, root grads)."""
    def backward(primals, root_grads):
        bufs = [None] * len(parts)
        for (i, nr), g in zip(roots, root_grads):
            part = parts[i]
            if bufs[i] is None:
                bufs[i] = [None] * (1 if part is None else part[5])
            bufs[i][nr] = g if bufs[i][nr] is None else bufs[i][nr] + g
        leaf_grads = []
        p = 0
        for i, part in enumerate(parts):
            grads = bufs[i]
            if part is None:
                leaf_grads.append(None if grads is None else grads[0])
                continue
            node_primals = primals[p]
            p += 1
            if grads is None or all(g is None for g in grads):
                continue
            op, _, mask, edge_pos, multi, nout, nexts, _, saved = part
            if not any(mask):
                continue
            cts = tuple(grads) if multi else grads[0]
            cfg, views = cfgs[i]
            if saved:           # the node's residuals, not its primals (``OpDef.forward_saving``)
                results = saved_vjp(node_primals, cts)
            else:
                if views is not None:
                    node_primals = apply_views(node_primals, views)
                results = vjp_call(op.bind(cfg), mask, node_primals, cts)
            for pos, r in zip(edge_pos, results):
                child, nr = nexts[pos]
                if child < 0:
                    continue
                if bufs[child] is None:
                    cpart = parts[child]
                    bufs[child] = [None] * (1 if cpart is None else cpart[5])
                old = bufs[child][nr]
                bufs[child][nr] = r if old is None else old + r
        return leaf_grads
    return backward


def _run_fused(roots, deps, root_edges, root_grads, retain_graph, gops):
    if not 3 <= len(deps) <= _FUSED_MAX_NODES:
        return False
    order = _topological(roots, deps)
    key, index, cfgs = _structure(order, root_edges, gops)
    if key is None:
        return False
    program = FUSED.get(key)
    if program is None:
        if not _mostly_cold(key[0], order):
            FUSED.put(key, _SEEN, 0)
            return False
        program = _SEEN         # its node kernels would compile anyway: one program costs less
        compile_now = True
    else:
        compile_now = False
    fresh = program is _SEEN
    if fresh:
        program = jit(FUSED, key, _fused_program(*key, cfgs), make=Staged)
    elif program in _COMPILING:
        return False            # its first program is still compiling: this backward runs node by node
    primals = []
    leaves = []
    for n in order:
        if type(n) is AccumulateGrad:
            leaves.append(n)
        else:
            n._check_versions(gops)
            primals.append(n._primals if n.res is None else n.res)
    grads = [g for (n, _), g in zip(root_edges, root_grads) if n is not None]
    if (fresh and not compile_now and BACKGROUND["on"] and not tracing()
            and not (_meta.LIVE.on and _meta.has_meta((primals, grads)))):
        _compile_behind(program, primals, grads)
        return False
    leaf_grads = meta_call(program, (primals, grads))
    for acc, g in zip(leaves, leaf_grads):
        if g is not None:
            acc.accumulate(g, False, gops)
    if not retain_graph:
        for n in order:
            n._release()
    return True
