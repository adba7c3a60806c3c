"""The backward of a graph recorded on deferred results, as one program of the segment's leaves.

A backward whose root is a result deferred in a segment (``_storage/lazy.py``) that is not
computed yet, and whose graph stays inside that segment (every edge leads to one of its nodes,
to a leaf's ``AccumulateGrad`` or nowhere: ``Segment.closed``), needs neither the segment's
values nor a walk of the nodes one by one: one program replays the segment's equations from its
leaves, differentiates the root with ``jax.vjp`` with respect to the leaves that receive a
gradient, and returns every equation's value too, which computes the segment (its cells and
its nodes' primals get them, as a flush would).

Gradients flow as the graph says: through an equation's input where its node's mask is set, to
the ``AccumulateGrad`` its edge names (two tensors over one array get their own gradients), and
nowhere else (an input that does not require grad, a result computed under ``no_grad``: their
values are constants to the derivative, ``lax.stop_gradient``). Hooks, retained gradients,
freed nodes and modified saved tensors send the backward to the engine's ordinary walk, which
runs them or raises PyTorch's errors.
"""

import jax
from jax import lax

from .._cache import KERNELS, jit
from .._storage import lazy


def run_segment(root, grad, retain_graph, gops):
    """Backpropagate ``grad`` from ``root`` (an OpNode whose segment is pending) if the segment
    allows it; False where the engine must walk the graph instead."""
    seg = root.seg
    if seg.done or not seg.closed or seg.hooked:
        return False
    bits = root.reach
    nodes = [n for n in seg.nodes if bits >> n.eq & 1]
    for n in nodes:
        if n.saved is not None or n.out_checks is not None:
            n._check_versions(gops)
    accs = []               # the AccumulateGrad nodes reached, in the order first seen
    acc_index = {}
    uses = []               # (equation, input position, AccumulateGrad index) of each leaf read differentiated
    for eq, k, acc in seg.uses:
        if not bits >> eq & 1:
            continue
        i = acc_index.get(acc)
        if i is None:
            if acc._pre or acc._post or acc._tensor_pre or acc._retain:
                return False
            var = acc.variable
            if var is None or gops.post_accumulate_hooks(var):
                return False
            i = acc_index[acc] = len(accs)
            accs.append(acc)
        uses.append((eq, k, i))
    uses = tuple(uses)
    step = seg.step
    leaves = seg.leaves
    reads = [leaves[-1 - step_ref(step, eq, k)] for eq, k, _ in uses]
    if not retain_graph:
        for n in nodes:
            n._release()
            n.saved = n.out_checks = None   # (a freed node raises before it checks versions)
    # the results of the cells still held; the rest (the primals of the nodes kept) are computed
    # if something reads them
    outputs = tuple([i for i, p in enumerate(seg.pendings) if p.read()])
    key = ("deferred backward", step, root.eq, bits, uses, outputs)
    program = KERNELS.get(key)
    if program is None:
        program = jit(KERNELS, key, _backward_program(step.equations(), root.eq, bits, uses, len(accs), outputs))
    values, grads = program(leaves, reads, grad)
    lazy.flush(seg, values, outputs)
    for acc, g in zip(accs, grads):
        acc.accumulate(g, False, gops)
    return True


def step_ref(step, eq, k):
    """The reference of input ``k`` of equation ``eq`` of the path ending at ``step``."""
    while step.depth > eq + 1:
        step = step.parent
    return step.eq[2][k]


def _backward_program(eqs, root, bits, uses, n_accs, outputs):
    """``(leaves, the leaves' differentiated reads, root gradient) -> (the results of the
    equations ``outputs``, the gradient of each AccumulateGrad: the sum over its reads)``."""
    fns = [(op.bind(cfg), refs, mask) for op, cfg, refs, mask in eqs]
    read = {(eq, k): u for u, (eq, k, _) in enumerate(uses)}

    def program(leaves, d, ct):
        def forward(d):
            values = []
            for e, (fn, refs, mask) in enumerate(fns):
                flows = mask is not None and bits >> e & 1
                args = []
                for k, r in enumerate(refs):
                    if r is None:
                        args.append(None)
                    elif flows and (e, k) in read:
                        args.append(d[read[e, k]])
                    elif r < 0:
                        args.append(leaves[-1 - r])
                    elif flows and mask[k]:
                        args.append(values[r])
                    else:
                        args.append(lax.stop_gradient(values[r]))
                values.append(fn(*args))
            return values[root], values

        _, vjp_fn, values = jax.vjp(forward, d, has_aux=True)
        (per_read,) = vjp_fn(ct)
        grads = [None] * n_accs
        for g, (_, _, i) in zip(per_read, uses):
            grads[i] = g if grads[i] is None else grads[i] + g
        return [values[i] for i in outputs], grads
    return program
