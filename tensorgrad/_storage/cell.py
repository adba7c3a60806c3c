"""Storage cells and views: how mutable, aliasing tensors sit on immutable jax arrays.

A cell holds the current array of a base tensor. A view holds a chain of view steps from its
cell's array to its own value; reading recomputes through the chain when the cell changed,
and writing scatters the new value back into the cell's array (a functional write-back, as
PyTorch's functionalization does).
"""

import functools

import jax
import jax.numpy as jnp

from .watch import note_cell, on_watching

_WATCHING = False       # a storage watch is open in some thread (kept by watch.py)


def _set_watching(flag):
    global _WATCHING
    _WATCHING = flag


on_watching(_set_watching)


class Cell:
    """The current array of a storage, shared by a base, its views and detached aliases.

    ``gen`` counts writes (to refresh views); ``version`` is the user-visible version counter
    (``t._version``) of every tensor that shares this cell, except ``.data`` aliases, which
    keep their own. Creating a cell is an event for an open storage watch (``watch.py``).
    """

    __slots__ = ("value", "gen", "version", "__weakref__")

    def __init__(self, value):
        self.value = value
        self.gen = 0
        self.version = 0
        if _WATCHING:
            note_cell(self)


class VersionCounter:
    """A separate version counter (``.data`` aliases share the cell but not the counter)."""

    __slots__ = ("version",)

    def __init__(self):
        self.version = 0


def _compose(steps, base, dyns):
    """Apply view steps ``(op, cfg, output_index)`` with their dynamic arguments."""
    x = base
    for (op, cfg, k), dyn in zip(steps, dyns):
        x = op.bind(cfg)(x, *dyn)
        if k is not None:
            x = x[k]
    return x


@functools.lru_cache(maxsize=None)
def reader(steps):
    """Compiled ``(base, dyns) -> view value`` for a chain of view steps."""
    return jax.jit(functools.partial(_compose, steps))


def _scatter(steps, base, dyns, value):
    # Each view element's flat position in the base, found by viewing an iota; exact for any
    # dtype, and XLA folds the index computation into a constant.
    positions = _compose(steps, jnp.arange(base.size).reshape(base.shape), dyns)
    value = jnp.broadcast_to(value.astype(base.dtype), positions.shape)
    return base.reshape(-1).at[positions.reshape(-1)].set(value.reshape(-1)).reshape(base.shape)


@functools.lru_cache(maxsize=None)
def writer(steps):
    """Compiled ``(base, dyns, value) -> new base`` writing ``value`` through the view chain."""
    return jax.jit(functools.partial(_scatter, steps))
