"""Storage cells and views: how mutable, aliasing tensors sit on immutable jax arrays.

A cell holds the current array of a base tensor. A view holds a chain of view steps from its
cell's array to its own value; reading recomputes through the chain when the cell changed,
and writing scatters the new value back into the cell's array (a functional write-back, as
PyTorch's functionalization does).
"""

import functools

from .._cache import KERNELS, config_key, jit
from .._ops.views import compose_view, scatter_view
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
    keep their own. Creating a cell is an event for an open storage watch (``watch.py``). The
subclasses (``host.HostCell``, ``overlay``'s overlaid classes) keep these slots, so a cell's
class can be switched.
    """

    __slots__ = ("value", "gen", "version", "host", "__weakref__")   # host: set on ``host.HostCell`` only

    def __init__(self, value):
        self.value = value
        self.gen = 0
        self.version = 0
        if _WATCHING:
            note_cell(self)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "value" in cls.__dict__ and "meta" not in cls.__dict__:
            cls.meta = cls.__dict__["value"]


# ``cell.meta``: an array of the storage's shape and dtype, for what reads no element. It is
# ``value`` (this very slot), except where reading ``value`` costs more than the slot: a
# ``host.HostCell`` gives its array without comparing the numpy memory (a numpy write changes
# no shape or dtype). A subclass that makes ``value`` a property gets it as ``meta`` too.
Cell.meta = Cell.value

_FLUSH = [None]             # lazy.py's flush of a placeholder's segment


def set_flush(fn):
    _FLUSH[0] = fn


class LazyCell(Cell):
    """The cell of a deferred result (``lazy.py``): ``host`` holds its ``Pending`` placeholder.
    Reading ``value`` (or ``meta``) computes the placeholder's segment, which turns this cell
    into an ordinary one holding the array; a write before any read drops the placeholder."""

    __slots__ = ()

    @property
    def value(self):
        _FLUSH[0](self.host)
        if type(self) is LazyCell:
            raise RuntimeError("a deferred result could not be computed (its segment failed before)")
        return self.value

    @value.setter
    def value(self, value):
        self.host.cell = None
        del self.host
        self.__class__ = Cell
        self.value = value


class VersionCounter:
    """A separate version counter (``.data`` aliases share the cell but not the counter)."""

    __slots__ = ("version",)

    def __init__(self):
        self.version = 0


def reader(steps):
    """Compiled ``(base, dyns) -> view value`` for a chain of view steps (in the ``kernels`` cache)."""
    key = ("view read", config_key(steps))
    f = KERNELS.get(key)
    return f if f is not None else jit(KERNELS, key, functools.partial(compose_view, steps))


def writer(steps):
    """Compiled ``(base, dyns, value) -> new base`` writing ``value`` through the view chain."""
    key = ("view write", config_key(steps))
    f = KERNELS.get(key)
    return f if f is not None else jit(KERNELS, key, functools.partial(scatter_view, steps))
