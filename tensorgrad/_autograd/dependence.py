"""Which inputs of a JAX function its outputs depend on, read off the function's jaxpr.

The engine uses it when it records a backward (``create_graph``): an input that the VJP does
not read is passed as a constant, so a gradient that no longer depends on the inputs does not
require grad, as in PyTorch (``d/dx (x * 2)`` is a plain ``2``). Reading an input through a
boolean or integer value (a mask) does not count, as such tensors never require grad in
PyTorch (``d/dx clamp(x, 0, 1)`` is a masked copy of the incoming gradient).
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend import core as jcore

# Primitives whose sub-jaxpr maps their operands one to one onto its inputs.
_CALL_PARAMS = ("jaxpr", "call_jaxpr", "fun_jaxpr")


def depends_on(fn, args):
    """A tuple of bools: does any output of ``fn(*args)`` depend on ``args[i]``?"""
    hit = frozenset().union(*reaches(fn, args))
    return tuple(i in hit for i in range(len(args)))


def reaches(fn, args):
    """Per output leaf of ``fn(*args)``, the frozenset of the ``args`` indices it depends on."""
    closed = jax.make_jaxpr(fn)(*args)
    counts = [len(jax.tree_util.tree_leaves(a)) for a in args]
    return tuple(_reach_each(closed.jaxpr, [frozenset([i]) for i, c in enumerate(counts) for _ in range(c)]))


def _reach_each(jaxpr, in_sets):
    """Per output of ``jaxpr``, the input labels reaching it.

    Scalars computed from literals alone are evaluated, so that ``x ** 0`` (which repeated
    differentiation of a power produces) counts as the constant it is.
    """
    labels = {}
    known = {}
    for var, s in zip(jaxpr.invars, in_sets):
        labels[var] = s
    for eqn in jaxpr.eqns:
        sets = []
        values = []
        for v in eqn.invars:
            if isinstance(v, jcore.Literal):
                sets.append(frozenset())
                values.append(v.val)
            else:
                sets.append(labels.get(v, frozenset()))
                values.append(known.get(v, _UNKNOWN))
        inner = _sub_jaxpr(eqn)
        branches = eqn.params.get("branches") if eqn.primitive.name == "cond" else None
        if inner is not None and len(inner.invars) == len(sets):
            outs = _reach_each(inner, sets)
        elif branches is not None:
            # the branch index is an integer; each output reaches what it reaches in some branch
            per_branch = [_reach_each(b.jaxpr, sets[1:]) for b in branches]
            outs = [frozenset().union(*hits) for hits in zip(*per_branch)]
        elif _is_power_zero(eqn, values):
            outs = [frozenset()] * len(eqn.outvars)
        else:
            union = frozenset().union(*sets)
            outs = [union] * len(eqn.outvars)
            if inner is None and len(eqn.outvars) == 1 and values and all(
                    v is not _UNKNOWN and np.size(v) == 1 for v in values):
                try:
                    known[eqn.outvars[0]] = eqn.primitive.bind(*values, **eqn.params)
                except Exception:  # noqa: BLE001 - a value we cannot fold is simply not known
                    pass
        for var, s in zip(eqn.outvars, outs):
            labels[var] = s if _carries_gradient(var) else frozenset()
    return [frozenset() if isinstance(v, jcore.Literal) else labels.get(v, frozenset()) for v in jaxpr.outvars]


_UNKNOWN = object()


def _carries_gradient(var):
    """A boolean or integer value (a comparison's mask, an argmax) does not require grad in
    PyTorch, so a result reaches an input through it only as a constant: ``where(x > 0, g, 0)``
    does not depend on x, ``g * sign(x)`` does."""
    dtype = getattr(var.aval, "dtype", None)
    return dtype is None or jnp.issubdtype(dtype, jnp.inexact)


def _is_power_zero(eqn, values):
    name = eqn.primitive.name
    if name == "integer_pow":
        return eqn.params.get("y") == 0
    if name == "pow" and len(values) == 2 and values[1] is not _UNKNOWN:
        return bool(np.all(np.asarray(values[1]) == 0))
    return False


def _sub_jaxpr(eqn):
    for name in _CALL_PARAMS:
        inner = eqn.params.get(name)
        if inner is not None:
            return getattr(inner, "jaxpr", inner)
    return None
