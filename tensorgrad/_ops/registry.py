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
      saves: what PyTorch keeps for backward, which decides the "modified by an inplace
        operation" check and whether a second backward is an error: ``"inputs"``,
        ``"output"`` (exp, sigmoid, ... keep their result) or ``"none"`` (linear ops).
      is_view: the output aliases the first input's storage.
      scalar_slots: Python numbers passed positionally get a ``(None, 0)`` slot in
        ``next_functions`` (true for ``+ - * /``; pow/rsub/clamp take them as config).
      no_slot: positions of Tensor arguments that are never differentiated and get no slot
        (``where``'s condition, ``gather``'s index).
      differentiable: False for ops whose outputs never carry a gradient (comparisons).
    """

    __slots__ = ("name", "fn", "grad_fn", "kwnames", "saves", "is_view", "scalar_slots",
                 "no_slot", "differentiable", "node_cls", "__weakref__")

    def __init__(self, name, fn, grad_fn, saves="inputs", is_view=False, scalar_slots=True,
                 no_slot=(), differentiable=True):
        self.name = name
        self.fn = fn
        self.grad_fn = grad_fn
        params = inspect.signature(fn).parameters.values()
        self.kwnames = tuple(p.name for p in params if p.kind is p.KEYWORD_ONLY)
        self.saves = saves
        self.is_view = is_view
        self.scalar_slots = scalar_slots
        self.no_slot = frozenset(no_slot)
        self.differentiable = differentiable
        self.node_cls = None        # the graph node class, made by the autograd layer on first use

    def __repr__(self):
        return f"<op {self.name}>"

    def bind(self, cfg):
        """The pure function with its configuration applied."""
        return functools.partial(self.fn, **dict(zip(self.kwnames, cfg))) if cfg else self.fn

    def forward(self, cfg):
        """The compiled forward for this configuration (cached in the ``kernels`` cache)."""
        # ``KERNELS.get((self, config_key(cfg)))``, inlined: this is every op call's path
        key = (self, cfg if cfg in NUMBER_FREE else config_key(cfg)) if cfg else self
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

    def backward(self, cfg, mask):
        """The compiled backward: ``(primals, cotangents) -> cotangents of the masked primals``.

        The forward is replayed inside the same XLA program, so a node keeps only its
        inputs; XLA drops whatever part of the forward the derivative does not need.
        """
        key = (self, config_key(cfg), mask)
        f = KERNELS.get(key)
        return f if f is not None else jit(KERNELS, key, functools.partial(vjp_call, self.bind(cfg), mask))


def vjp_call(fn, mask, primals, cotangents):
    """The cotangents of ``fn`` at ``primals`` for the positions where ``mask`` is true.

    ``cotangents`` mirrors the output; a None entry stands for a zero cotangent (an unused
    output, or an integer output that has none).
    """
    idx = [i for i, m in enumerate(mask) if m]

    def restricted(*diff):
        full = list(primals)
        for i, v in zip(idx, diff):
            full[i] = v
        return fn(*full)

    out, vjp_fn = jax.vjp(restricted, *[primals[i] for i in idx])
    return vjp_fn(fill_cotangents(out, cotangents))


def fill_cotangents(out, cotangents):
    """Replace None cotangents by zeros (float0 zeros for integer outputs)."""
    if isinstance(out, (tuple, list)):
        return type(out)(fill_cotangents(o, c) for o, c in zip(out, cotangents))
    if jnp.issubdtype(out.dtype, jnp.inexact):
        return jnp.zeros_like(out) if cotangents is None else cotangents.astype(out.dtype)
    return np.zeros(out.shape, jax.dtypes.float0)


def op(name, *, grad_fn=None, saves="inputs", is_view=False, scalar_slots=True, no_slot=(),
       differentiable=True):
    """Register a pure function as the op ``name``; returns its OpDef."""
    def register(fn):
        d = OpDef(name, fn, grad_fn or _default_grad_fn(name), saves, is_view, scalar_slots,
                  no_slot, differentiable)
        OPS[name if name not in OPS else f"{name}:{d.grad_fn}"] = d
        return d
    return register
