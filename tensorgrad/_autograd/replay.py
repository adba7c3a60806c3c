"""create_graph: an OpNode's backward as an op that can itself be recorded.

With ``create_graph=True`` the engine does not call a node's compiled VJP on arrays; the tensor
layer re-applies the VJP as a recorded op on Tensors (``tensorgrad/_tensor/backward.py``,
``replay``), so the gradient computation is on the tape and can be differentiated again. This
module makes that op and says which of the node's inputs its result depends on; it knows no
Tensor.
"""

import weakref

import jax
import jax.numpy as jnp

from .dependence import reaches
from .._cache import SMALL, config_key
from .._ops.registry import OpDef, vjp_call

# backward op -> {primal: the primals its gradient reads} (the forward op's ``grad_reads``);
# weak, so an op evicted from the bounded cache takes its entry with it
_READS = weakref.WeakKeyDictionary()


def backward_op(node):
    """The node's backward as a recordable op: grads of the VJP are again VJPs."""
    multi = node.avals is not None
    key = ("backward op", node.op, config_key(node.cfg), node.mask, multi)
    bop = SMALL.get(key)
    if bop is None:
        n = len(node.mask)
        fwd = node.op.bind(node.cfg)
        mask = node.mask

        def backward_fn(*args):
            return tuple(vjp_call(fwd, mask, args[:n], args[n:] if multi else args[n]))

        bop = OpDef(node.op.name + "_backward", backward_fn, node.op.grad_fn + "Backward", scalar_slots=False)
        SMALL.put(key, bop)
        _READS[bop] = node.op.grad_reads
    return bop


def primal_dependence(bop, primals, cts, mask):
    """Which of the backward's inputs each of its results depends on.

    Returns ``(depends, reach)``: ``depends[i]`` says whether some result depends on primal i;
    ``reach[k]`` is the set of positions among ``primals + cts`` that result k depends on. A
    linear op's VJP does not read its input (``x * 2`` gives ``2 * ct``), so, as in PyTorch, a
    create_graph gradient that depends on no input that requires grad does not require grad;
    each input's gradient is judged on its own (``remainder``'s gradient for ``a`` is the
    incoming gradient itself, whatever ``b``'s reads). The primals named in the forward op's
    ``grad_reads`` count as read.
    """
    key = ("depends", bop, tuple(jax.tree_util.tree_map(lambda a: (jnp.shape(a), jnp.result_type(a)), list(primals))),
           tuple(c is None for c in cts))
    found = SMALL.get(key)
    if found is None:
        idx = [i for i, m in enumerate(mask) if m]
        ct_idx = [j for j, c in enumerate(cts) if c is not None]
        n = len(primals)

        def of_masked(*diff):
            full = list(primals)
            for i, v in zip(idx, diff):
                full[i] = v
            ct_full = list(cts)
            for j, v in zip(ct_idx, diff[len(idx):]):
                ct_full[j] = v
            return bop.fn(*full, *ct_full)

        labels = idx + [n + j for j in ct_idx]
        per_output = reaches(of_masked, [primals[i] for i in idx] + [cts[j] for j in ct_idx])
        reads = _READS.get(bop, {})
        reach = tuple(frozenset(labels[a] for a in hits) | {i for i in reads.get(idx[k], ()) if mask[i]}
                      for k, hits in enumerate(per_output))
        hit = frozenset().union(*reach)
        depends = tuple(m and i in hit for i, m in enumerate(mask))
        found = SMALL.put(key, (depends, reach))
    return found
