"""Per-thread overlays of storage cells: while a thread traces, it sees its own values in the
cells it lifted, and every other thread sees the cells' own.

A trace (``tensorgrad.compile``, the closure capture of ``tensorgrad.func``) runs ordinary
tensorgrad code on JAX tracers, so the tensors it lifts (parameters, optimizer state, the random
key) must hold tracers while it runs. Those tensors are shared: another thread may read or write
them at the same time. An ``Overlay`` gives the tracing thread private values for the cells'
``value``, ``gen`` and ``version``; the cells themselves are not written, so another thread
neither reads a tracer nor loses a write when the trace ends.

>>> import threading
>>> from tensorgrad._storage.cell import Cell
>>> from tensorgrad._storage.overlay import Overlay
>>> cell = Cell("shared")
>>> seen = []
>>> with Overlay() as mine:
...     mine.put(cell, "private")
...     t = threading.Thread(target=lambda: seen.append(cell.value))
...     t.start(); t.join()
...     seen.append(cell.value)
>>> seen, cell.value
(['shared', 'private'], 'shared')

How: while some thread overlays a cell, the cell's class is ``_Overlaid``, whose attributes look
up the current thread's overlay first (the cell keeps its own values in its slots); when the last
overlay of a cell closes, it has its own class again, so cells no trace lifted cost nothing. A
cell of a subclass (``host.HostCell``, whose storage is a numpy array) is overlaid by a subclass
of its own class, whose attributes fall back to that class's properties in other threads.
An overlaid ``gen`` is a fresh negative number at every write: a view never mistakes a value
cached inside a trace for a current one, nor the other way round.
"""

import itertools
import threading

import jax

from .cell import Cell, LazyCell

__all__ = ["Overlay", "set_class", "overlaid_here", "placed"]

_VALUE, _GEN, _VERSION = Cell.value, Cell.gen, Cell.version    # the slots themselves
_FRESH = itertools.count(-1, -1)        # generations no real write uses (those count up from 0)


class _Mine(threading.local):
    def __init__(self):
        self.cells = {}     # cell -> [value, gen, version]: this thread's overlay of it


_MINE = _Mine()
_LOCK = threading.Lock()
_HOLDERS = {}               # cell -> [how many threads overlay it, its own class]


def _get(slot, index):
    def get(cell):
        mine = _MINE.cells.get(cell)
        return slot.__get__(cell) if mine is None else mine[index]

    def set_(cell, value):
        mine = _MINE.cells.get(cell)
        if mine is None:
            slot.__set__(cell, value)
        else:
            mine[index] = next(_FRESH) if index == 1 else value
    return property(get, set_)


class _Overlaid(Cell):
    """A cell some thread overlays: each attribute is the current thread's overlay, if any."""

    __slots__ = ()
    value = _get(_VALUE, 0)
    meta = _get(_VALUE, 0)
    gen = _get(_GEN, 1)
    version = _get(_VERSION, 2)


_OVERLAID = {Cell: _Overlaid}       # a cell's own class -> the class it has while overlaid


def _overlaid(cls):
    """The overlaid class of a cell of class ``cls`` (a subclass of Cell with Cell's slots, such
    as ``host.HostCell``): outside an overlay its attributes are those of ``cls``."""
    over = _OVERLAID.get(cls)
    if over is None:
        over = _OVERLAID[cls] = type("_Overlaid" + cls.__name__, (cls,), {
            "__slots__": (), "__doc__": _Overlaid.__doc__, "__module__": __name__,
            "value": _get(cls.value, 0), "meta": _get(cls.meta, 0), "gen": _get(cls.gen, 1),
            "version": _get(cls.version, 2)})
    return over


def _hold(cell):
    if type(cell) is LazyCell:
        cell.value              # a deferred result is computed before a trace lifts its cell
    with _LOCK:
        entry = _HOLDERS.get(cell)
        if entry is None:
            _HOLDERS[cell] = [1, type(cell)]
            cell.__class__ = _overlaid(type(cell))
        else:
            entry[0] += 1


def _release(cell):
    with _LOCK:
        entry = _HOLDERS[cell]
        entry[0] -= 1
        if not entry[0]:
            del _HOLDERS[cell]
            cell.__class__ = entry[1]


def set_class(cell, cls):
    """Give ``cell`` the class ``cls`` (a Cell subclass with Cell's slots), also while some thread
    overlays it (it then has ``cls``'s overlaid class, and ``cls`` when the last overlay closes)."""
    with _LOCK:
        entry = _HOLDERS.get(cell)
        if entry is None:
            cell.__class__ = cls
        else:
            entry[1] = cls
            cell.__class__ = _overlaid(cls)


def overlaid_here(cell):
    """Whether the current thread overlays ``cell``."""
    return cell in _MINE.cells


def placed(cell, value):
    """An array placed where ``value`` (read from ``cell``) is: the cell's own array when this
    thread's trace lifted the cell and ``value`` is its tracer (an optimizer step's parameter
    then has its own array's device), else ``value``."""
    if cell in _MINE.cells and isinstance(value, jax.core.Tracer):
        own = _VALUE.__get__(cell)
        if not isinstance(own, jax.core.Tracer):
            return own
    return value


class Overlay:
    """This thread's own values for some cells, from ``put`` until the overlay closes.

    Overlays nest: one opened inside another overlays the same cell again, and closing it
    brings back the outer one's values (with a fresh ``gen``, so views read them again).
    """

    def __init__(self):
        self._previous = {}     # cell -> this thread's overlay of it before this one, or None

    def put(self, cell, value, version=None):
        """Overlay ``cell`` in this thread with ``value`` (and ``version``, by default its current
        one); a later ``put`` of the same cell sets its value again."""
        cells = _MINE.cells
        if cell in self._previous:
            mine = cells[cell]
            mine[0] = value
            mine[1] = next(_FRESH)
            if version is not None:
                mine[2] = version
            return
        previous = cells.get(cell)
        cells[cell] = [value, next(_FRESH), cell.version if version is None else version]
        self._previous[cell] = previous
        if previous is None:
            _hold(cell)

    def holds(self, cell):
        """Whether this overlay has ``cell``."""
        return cell in self._previous

    def close(self):
        """Give this thread the cells' own values back (or those of the overlay around this one)."""
        cells = _MINE.cells
        entries, self._previous = self._previous, {}
        for cell, previous in reversed(entries.items()):
            if previous is None:
                del cells[cell]
                _release(cell)
            else:
                previous[1] = next(_FRESH)
                cells[cell] = previous

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
