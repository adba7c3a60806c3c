"""The meta device: tensors that have a shape and a dtype but no data.

A meta tensor's storage holds a ``jax.ShapeDtypeStruct`` instead of an array. A compiled call
(an op's forward or backward, a ``bounded_jit`` kernel) given one is evaluated abstractly
(``eval_shape``) instead of run, so results are meta too and nothing is ever allocated
(``torch.rand(2**10, 3, 2**16, 2**16, device="meta")`` is a shape). The callers look for meta
arguments only once a meta array exists in the process (``LIVE``, set by ``struct``), so
programs that never use the meta device pay one flag test per call. (Waiting for JAX to refuse
the argument is not enough: a jitted function that never reads an input, ``zeros_like``,
accepts a ``ShapeDtypeStruct`` for it and would allocate.)

Unlike PyTorch, which refuses a CPU tensor of more than 0 dimensions in an op with a meta one,
tensorgrad accepts it and gives a meta result (the ops' own constants, a loss's default class
weights, are CPU arrays, so the check would refuse them too). ``copy_`` into a meta tensor takes
any source, and moving a meta tensor's values anywhere raises PyTorch's error.
"""

import jax

STRUCT = jax.ShapeDtypeStruct
_LISTENERS = []


class _Live:
    on = False          # a meta array has been made in this process


LIVE = _Live()


def on_live(fn):
    """Call ``fn()`` once a meta array first exists (at once if one already does)."""
    if LIVE.on:
        fn()
    else:
        _LISTENERS.append(fn)


def struct(shape, dtype):
    """A meta array: ``shape`` and ``dtype`` without data."""
    if not LIVE.on:
        LIVE.on = True
        for fn in _LISTENERS:
            fn()
    return STRUCT(tuple(shape), dtype)


def is_meta(x):
    return type(x) is STRUCT


def _leaves(args, kwargs):
    for a in args:
        if type(a) in (tuple, list):
            yield from a
        else:
            yield a
    if kwargs:
        yield from kwargs.values()


def has_meta(args, kwargs=None):
    """Whether any argument (or element of a tuple argument) is a meta array."""
    return any(type(a) is STRUCT for a in _leaves(args, kwargs))


def abstract(compiled, args, kwargs=None):
    """``compiled(*args, **kwargs)`` (a ``jax.jit``) evaluated for shapes: meta results."""
    return compiled.eval_shape(*args, **(kwargs or {}))


def call(compiled, args, kwargs=None):
    """``compiled(*args, **kwargs)``, or its shapes when an argument is meta."""
    if LIVE.on and has_meta(args, kwargs):
        return abstract(compiled, args, kwargs)
    return compiled(*args, **(kwargs or {}))
