"""The op registry: every op is a pure function of jax arrays plus the facts about it.

An op's derivative is JAX's: its backward is ``jax.vjp`` of the same function, compiled once
per configuration. The compiled kernels live in the bounded ``kernels`` cache (``_cache.py``),
keyed by ``config_key`` of the configuration. Nothing here knows about Tensors or the graph.
"""

import functools
import inspect

import jax
import jax.numpy as jnp
import numpy as np

from .._cache import NUMBER_FREE, KERNELS, config_key, jit
from .real_only import REAL_ONLY

_find, _touch = KERNELS.find, KERNELS.touch

OPS = {}


def _default_grad_fn(name):
    return name[:1].upper() + name[1:] + "Backward0"


class OpDef:
    """One registered op.

    Attributes:
      name: the torch name (``"mul"``).
      fn: the pure function; arrays (and Python numbers) positional, configuration keyword-only.
      grad_fn: the class name of its graph node (``"MulBackward0"``).
      kwnames: the keyword-only configuration names, in order; a call passes their values.
      saves: what PyTorch's node keeps for backward (its derivatives.yaml formulas), which
        decides the "modified by an inplace operation" check, whether a second backward is an
        error and whether an inference tensor may be an input. A dict names each saved
        positional argument (or output: ``"out"``, or ``"out0"``, ``"out1"``, ... of a
        multi-output op) with when it is saved: ``"any"`` (whenever the node is recorded) or
        the name of the argument whose gradient needs it (saved only if that argument requires
        grad: ``mul`` keeps ``b`` for ``a``'s gradient, ``{"a": "b", "b": "a"}``). Shorthands:
        ``"inputs"`` (each tensor argument is saved when another one requires grad, a lone one
        always), ``"output"`` (every output), ``"none"``.
      is_view: the output aliases the first input's storage.
      scalar_slots: Python numbers passed positionally get a ``(None, 0)`` slot in
        ``next_functions`` (true for ``+ - * /``; pow/rsub/clamp take them as config).
      no_slot: positions of Tensor arguments that are never differentiated and get no slot
        (``where``'s condition, ``gather``'s index).
      differentiable: False for ops whose outputs never carry a gradient (comparisons).
      grad_reads: the positional arguments that PyTorch's derivative reads differentiably
        although its value does not depend on them (relu's ``threshold_backward(grad, result)``
        has a zero derivative in ``result``): a create_graph gradient requires grad when one of
        them does. Otherwise that is read off the derivative (``dependence.py``). A dict
        ``{argument: names}`` says it per argument's gradient.
    """

    __slots__ = ("name", "fn", "grad_fn", "kwnames", "saves", "saved_inputs", "saved_outputs", "is_view",
                 "scalar_slots", "no_slot", "differentiable", "grad_reads", "node_cls", "real_only",
                 "layout_view", "folds_views", "saves_residuals", "lazy", "__weakref__")

    def __init__(self, name, fn, grad_fn, saves="inputs", is_view=False, scalar_slots=True,
                 no_slot=(), differentiable=True, grad_reads=()):
        self.name = name
        self.fn = fn
        self.grad_fn = grad_fn
        params = inspect.signature(fn).parameters.values()
        self.kwnames = tuple(p.name for p in params if p.kind is p.KEYWORD_ONLY)
        self.saves = saves
        positional = [p.name for p in params if p.kind is not p.KEYWORD_ONLY]
        self.saved_inputs, self.saved_outputs = _saved_spec(name, saves, positional)
        if not isinstance(grad_reads, dict):
            grad_reads = {name: grad_reads for name in positional}
        # {position: positions its gradient reads}
        self.grad_reads = {positional.index(g): tuple(positional.index(n) for n in names)
                           for g, names in grad_reads.items() if names}
        self.is_view = is_view
        self.scalar_slots = scalar_slots
        self.no_slot = frozenset(no_slot)
        self.differentiable = differentiable
        self.node_cls = None        # the graph node class, made by the autograd layer on first use
        # (exception type, message with {c} for the dtype's C name): PyTorch's error for a
        # complex input, where it has no complex kernel (set by ``complex.py``'s table)
        self.real_only = REAL_ONLY.get(name)
        # a view that only moves axes, which a matrix product can read in place (``t``)
        self.layout_view = False
        # an op that computes such a view of an input inside its own kernel when the view's value
        # was not computed (``mm``, ``addmm``: see ``composed_forward``)
        self.folds_views = False
        # a multi-output op whose forward costs too much to replay in its backward (a recurrent
        # scan): its node keeps the residuals of its derivative instead (``forward_saving``)
        self.saves_residuals = False
        # a call outside traces may be deferred and computed with others (``_storage/lazy.py``)
        self.lazy = False

    def __repr__(self):
        return f"<op {self.name}>"

    def bind(self, cfg):
        """The pure function with its configuration applied."""
        return functools.partial(self.fn, **dict(zip(self.kwnames, cfg))) if cfg else self.fn

    def forward(self, cfg):
        """The compiled forward for this configuration (cached in the ``kernels`` cache)."""
        # ``KERNELS.get((self, config_key(cfg)))``, inlined: this is every op call's path
        try:
            key = (self, cfg if cfg in NUMBER_FREE else config_key(cfg)) if cfg else self
        except TypeError:           # an unhashable configuration (a list in it)
            key = (self, config_key(cfg))
        entry = _find(key)
        if entry is None:
            KERNELS.misses += 1
            return jit(KERNELS, key, self.bind(cfg))
        KERNELS.hits += 1
        try:
            _touch(key)
        except KeyError:            # evicted by another thread meanwhile
            pass
        return entry[0]

    def backward(self, cfg, mask, views=None):
        """The compiled backward: ``(primals, cotangents) -> cotangents of the masked primals``.

        The forward is replayed inside the same XLA program, so a node keeps only its
        inputs; XLA drops whatever part of the forward the derivative does not need. With
        ``views`` (see ``composed_forward``) the primals at those positions are the views'
        sources, and the views are computed inside the program.
        """
        key = (self, config_key(cfg), mask) if views is None else (self, config_key(cfg), mask, views_key(views))
        f = KERNELS.get(key)
        if f is None:
            fn = functools.partial(vjp_call, self.bind(cfg), mask)
            f = jit(KERNELS, key, fn if views is None else functools.partial(_on_viewed, fn, views))
        return f

    def forward_saving(self, cfg, mask):
        """The compiled forward that also returns its derivative's residuals: ``primals ->
        (outputs, Saved)``, JAX's pullback in the primals where ``mask`` is true. The node keeps
        them, and its backward (``backward_saved``) runs the reverse pass alone, not the forward
        again (an LSTM's backward replayed its whole scan). For ops whose absent output
        cotangents may be zeros (``vjp_call`` leaves them out)."""
        key = (self, config_key(cfg), mask, "saving")
        f = KERNELS.get(key)
        if f is None:
            f = jit(KERNELS, key, functools.partial(_saving, self.bind(cfg), mask))
        return f

    def backward_saved(self):
        """The compiled ``(Saved, cotangents) -> cotangents of the masked primals``."""
        key = (self, "saved")
        f = KERNELS.get(key)
        if f is None:
            f = jit(KERNELS, key, saved_vjp)
        return f

    def composed_forward(self, cfg, views):
        """The compiled forward for this configuration where some inputs are given as the sources
        of layout views: ``views`` is ``((position, view op, view configuration), ...)``, and each
        view is computed inside the same program (XLA folds a transpose into the matrix product
        that reads it, so no transposed copy is made)."""
        key = (self, config_key(cfg), views_key(views))
        f = KERNELS.get(key)
        if f is None:
            fn = self.bind(cfg)
            f = jit(KERNELS, key, lambda *arrays: fn(*apply_views(arrays, views)))
        return f


def views_key(views):
    """The cache key of a ``views`` spec (``OpDef.composed_forward``)."""
    return tuple((pos, op, config_key(cfg)) for pos, op, cfg in views)


def apply_views(arrays, views):
    """``arrays`` with each position of ``views`` replaced by its view of the array there."""
    arrays = list(arrays)
    for pos, op, cfg in views:
        arrays[pos] = op.bind(cfg)(arrays[pos])
    return arrays


def _on_viewed(backward, views, primals, cotangents):
    return backward(apply_views(primals, views), cotangents)


def _saved_spec(name, saves, positional):
    """``saves`` as ``(saved_inputs, saved_outputs)``.

    ``saved_inputs``: None for the ``"inputs"`` rule, else ``((position, guard), ...)`` with
    ``guard`` the position whose requiring grad makes the input saved (None: always).
    ``saved_outputs``: the saved output indices, or ``"all"``.
    """
    if saves == "inputs":
        return None, ()
    if saves == "output":
        return (), "all"
    if not isinstance(saves, dict):
        return (), ()       # "none", and "unchecked" (a node that frees but checks nothing)
    inputs = []
    outputs = []
    for what, when in saves.items():
        if what == "out" or (what.startswith("out") and what[3:].isdigit()):
            if when != "any":
                raise ValueError(f"op {name}: an output is saved whenever the node is recorded")
            outputs.append(int(what[3:] or 0))
            continue
        if what not in positional or (when != "any" and when not in positional):
            raise ValueError(f"op {name}: saves names {what!r} -> {when!r}, not among {positional}")
        inputs.append((positional.index(what), None if when == "any" else positional.index(when)))
    return tuple(inputs), tuple(outputs)


def with_tangent(fn, tangent):
    """``fn`` (a function of arrays) with the derivative ``tangent(*args, fn(*args), *tangents)``,
    linear in the tangents: PyTorch's formula where JAX's differs. Write a mask as
    ``jnp.where``, so that the masked entries get exactly 0 even under a NaN gradient."""
    @jax.custom_jvp
    def f(*args):
        return fn(*args)

    @f.defjvp
    def f_jvp(primals, tangents):
        out = f(*primals)
        return out, tangent(*primals, out, *tangents)

    f.__name__ = getattr(fn, "__name__", "f")
    return f


def vjp_call(fn, mask, primals, cotangents):
    """The cotangents of ``fn`` at ``primals`` for the positions where ``mask`` is true.

    ``cotangents`` mirrors the output; a None entry stands for a zero cotangent (an unused
    output, or an integer output that has none). The outputs of a multi-output op whose
    cotangent is None are left out of the differentiated function, so that the derivative sees
    them as PyTorch's undefined gradients, not as zeros: ``svd``'s gradient from the singular
    values alone is finite at repeated values, where multiplying zeros into the vectors'
    terms would give NaN.
    """
    idx = [i for i, m in enumerate(mask) if m]
    used = None
    if isinstance(cotangents, (tuple, list)):
        used = tuple(k for k, c in enumerate(cotangents) if c is not None)

    def restricted(*diff):
        full = list(primals)
        for i, v in zip(idx, diff):
            full[i] = v
        out = fn(*full)
        return out if used is None else tuple(out[k] for k in used)

    diff = [primals[i] for i in idx]
    if used == ():
        return tuple(jnp.zeros_like(d) for d in diff)
    out, vjp_fn = jax.vjp(restricted, *diff)
    if used is not None:
        cotangents = tuple(cotangents[k] for k in used)
    return conj_tree(vjp_fn(conj_tree(fill_cotangents(out, cotangents))))


@jax.tree_util.register_pytree_node_class
class Saved:
    """An op's pullback (a pytree of its residual arrays) and its outputs' shapes and dtypes."""

    __slots__ = ("pullback", "avals")

    def __init__(self, pullback, avals):
        self.pullback = pullback
        self.avals = avals

    def tree_flatten(self):
        return (self.pullback,), self.avals

    @classmethod
    def tree_unflatten(cls, avals, children):
        return cls(children[0], avals)


def _saving(fn, mask, *primals):
    idx = [i for i, m in enumerate(mask) if m]

    def restricted(*diff):
        full = list(primals)
        for i, v in zip(idx, diff):
            full[i] = v
        return fn(*full)

    out, pullback = jax.vjp(restricted, *[primals[i] for i in idx])
    return out, Saved(pullback, tuple((o.shape, np.dtype(o.dtype)) for o in out))


def saved_vjp(saved, cotangents):
    """``vjp_call``'s cotangents from a node's ``Saved`` residuals (absent ones as zeros)."""
    cts = tuple(_zero_cotangent(shape, dtype) if c is None else c.astype(dtype) if jnp.issubdtype(dtype, jnp.inexact)
                else c for c, (shape, dtype) in zip(cotangents, saved.avals))
    return conj_tree(saved.pullback(conj_tree(cts)))


def _zero_cotangent(shape, dtype):
    return jnp.zeros(shape, dtype) if jnp.issubdtype(dtype, jnp.inexact) else np.zeros(shape, jax.dtypes.float0)


def conj_tree(arrays):
    """Complex conjugate of each complex array in a tree; real ones pass unchanged.

    PyTorch's gradient of a complex value is the conjugate of JAX's cotangent (PyTorch
    propagates ``dL/d(conj z)``, JAX ``dL/dz``), so every VJP is wrapped as
    ``conj . jax_vjp . conj``: holomorphic ``f`` then gives ``g * conj(f'(z))`` as in PyTorch.
    """
    return jax.tree_util.tree_map(_conj, arrays)


def _conj(a):
    return jnp.conj(a) if jnp.iscomplexobj(a) else a


def fill_cotangents(out, cotangents):
    """Replace None cotangents by zeros (float0 zeros for integer outputs)."""
    if isinstance(out, (tuple, list)):
        return type(out)(fill_cotangents(o, c) for o, c in zip(out, cotangents))
    if jnp.issubdtype(out.dtype, jnp.inexact):
        return jnp.zeros_like(out) if cotangents is None else cotangents.astype(out.dtype)
    return np.zeros(out.shape, jax.dtypes.float0)


def op(name, *, grad_fn=None, saves="inputs", is_view=False, scalar_slots=True, no_slot=(),
       differentiable=True, grad_reads=()):
    """Register a pure function as the op ``name``; returns its OpDef."""
    def register(fn):
        d = OpDef(name, fn, grad_fn or _default_grad_fn(name), saves, is_view, scalar_slots,
                  no_slot, differentiable, grad_reads)
        OPS[name if name not in OPS else f"{name}:{d.grad_fn}"] = d
        return d
    return register
