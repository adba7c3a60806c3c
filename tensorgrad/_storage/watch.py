"""Watching what the current thread does to storage: tensor reads and writes, ``.grad`` reads
and writes, and new storage cells.

``tensorgrad.compile`` finds a step's state this way (which tensors it reads and writes, which
cells it creates), and ``tensorgrad.func`` finds the tensors a function closes over. Both
subclass ``Watch``, override the events they need and open it with ``with``:

>>> from tensorgrad._storage.watch import Watch
>>> import tensorgrad as torch
>>> class Reads(Watch):
...     def __init__(self):
...         self.seen = []
...     def read(self, tensor):
...         self.seen.append(tensor)
>>> x = torch.ones(2)
>>> with Reads() as reads:
...     y = x * 2
>>> reads.seen[0] is x
True

* Per thread: a watch sees only what the thread that opened it does; another thread's reads
  and writes reach no watch of this one.
* Nesting: watches open in one thread form a stack and every event reaches all of them,
  innermost first (a ``func`` closure watch inside a compiled step is seen by both).
* Cost: ``ACTIVE[0]`` counts the watches open in all threads, and each module on the hot path
  keeps a module-level flag that is True while that count is not zero (it registers a setter
  with ``on_watching``). The accessors test their flag before anything else
  (``if _WATCHING: note_read(t)``), so with no watch open anywhere an access pays one test of a
  global; only while some watch is open does an access look up this thread's stack.

The event functions are called by the tensor layer (``Tensor._data``, ``Tensor._write``,
``Tensor._grad``, ``apply``) and by ``Cell``; this module knows nothing of tensors.
"""

import threading

__all__ = ["Watch", "ACTIVE", "on_watching", "open_watches", "note_read", "note_write", "note_cell",
           "note_grad_read", "note_grad_write"]

ACTIVE = [0]            # how many watches are open, in all threads
_COUNT_LOCK = threading.Lock()
_SETTERS = []           # flag setters of the hot modules (``on_watching``)


def on_watching(setter):
    """Call ``setter(True)`` when the first watch opens in any thread and ``setter(False)`` when
    the last one closes; call it now with the current state. A module on the hot path keeps a
    module-level flag this way: testing a global costs less than looking up ``ACTIVE[0]``."""
    with _COUNT_LOCK:
        _SETTERS.append(setter)
        setter(ACTIVE[0] > 0)


class _Open(threading.local):
    watches = ()        # this thread's open watches, outermost first


_OPEN = _Open()


class Watch:
    """Base of storage watches: override the events to observe; each default does nothing.

    A watch is a context manager; while it is open every event of its thread reaches it.
    """

    def read(self, tensor):
        """``tensor``'s value was read."""

    def write(self, tensor):
        """``tensor``'s value is about to be written."""

    def new_cell(self, cell):
        """A storage cell was created."""

    def grad_read(self, tensor, grad):
        """``tensor.grad`` (``grad``, possibly None) was read."""

    def grad_write(self, tensor, old):
        """``tensor.grad`` is about to be replaced; ``old`` is its value until then."""

    def __enter__(self):
        with _COUNT_LOCK:
            ACTIVE[0] += 1
            if ACTIVE[0] == 1:
                for setter in _SETTERS:
                    setter(True)
        _OPEN.watches = _OPEN.watches + (self,)
        return self

    def __exit__(self, *exc):
        watches = _OPEN.watches
        if watches and watches[-1] is self:
            _OPEN.watches = watches[:-1]
        else:
            _OPEN.watches = tuple(w for w in watches if w is not self)
        with _COUNT_LOCK:
            ACTIVE[0] -= 1
            if ACTIVE[0] == 0:
                for setter in _SETTERS:
                    setter(False)
        return False


def open_watches():
    """This thread's open watches, outermost first."""
    return _OPEN.watches


def note_read(tensor):
    for w in reversed(_OPEN.watches):
        w.read(tensor)


def note_write(tensor):
    for w in reversed(_OPEN.watches):
        w.write(tensor)


def note_cell(cell):
    for w in reversed(_OPEN.watches):
        w.new_cell(cell)


def note_grad_read(tensor, grad):
    for w in reversed(_OPEN.watches):
        w.grad_read(tensor, grad)


def note_grad_write(tensor, old):
    for w in reversed(_OPEN.watches):
        w.grad_write(tensor, old)
