"""create_graph: an OpNode's backward as an op that can itself be recorded.

With ``create_graph=True`` the engine does not call a node's compiled VJP on arrays; the tensor
layer re-applies the VJP as a recorded op on Tensors (``tensorgrad/_tensor/backward.py``,
``replay``), so the gradient computation is on the tape and can be differentiated again. This
module makes that op and says which of the node's inputs its result depends on; it knows no
Tensor.
"""

import jax
import jax.numpy as jnp

from .dependence import depends_on
from .._cache import SMALL, config_key
from .._ops.registry import OpDef, vjp_call


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
    return bop


def primal_dependence(bop, primals, cts, mask):
    """For each primal, whether the backward's result depends on it.

    A linear op's VJP does not read its input (``x * 2`` gives ``2 * ct``), so, as in PyTorch,
    a create_graph gradient that does not depend on any input does not require grad.
    """
    key = ("depends", bop, tuple(jax.tree_util.tree_map(lambda a: (jnp.shape(a), jnp.result_type(a)), list(primals))),
           tuple(c is None for c in cts))
    found = SMALL.get(key)
    if found is None:
        idx = [i for i, m in enumerate(mask) if m]

        def of_masked(*diff):
            full = list(primals)
            for i, v in zip(idx, diff):
                full[i] = v
            return bop.fn(*full, *cts)

        hits = depends_on(of_masked, [primals[i] for i in idx])
        found = [False] * len(mask)
        for i, hit in zip(idx, hits):
            found[i] = hit
        found = SMALL.put(key, tuple(found))
    return found
