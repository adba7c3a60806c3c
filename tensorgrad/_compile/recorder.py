"""Watching one call of a compiled step: which tensors it reads and writes, which ``.grad``
attributes it reads and sets, which cells it creates, and which modules and optimizers it runs.

A ``_Recorder`` is a storage watch (``tensorgrad/_storage/watch.py``), so it sees only its own
thread; modules and optimizers announce themselves through ``tensorgrad._hooks``.
"""

import threading
import weakref

import jax

from .._hooks import MODULE_CALL, OPTIMIZER_STEP
from .._storage.overlay import Overlay
from .._storage.watch import Watch

# How the state a program lifts is found again on each call: a tensor's own cell, the cell of its
# ``.grad`` (which a step may replace), or a cell the step itself created.
_CELL, _GRAD, _FIXED = "cell", "grad", "fixed"


class _Active(threading.local):
    def __init__(self):
        self.recorders = []     # this thread's recorders of the compiled calls being run, innermost last


_ACTIVE = _Active()


# ---------------------------------------------------------------------- watching a call

class _Recorder(Watch):
    """What a call does to tensors, seen through a storage watch: the reads, writes, ``.grad``
    reads and writes and (in a trace) new cells of this thread while the call runs, plus the
    modules and optimizers it runs (announced through ``tensorgrad._hooks``). Other threads'
    work reaches no recorder of this one, and nothing is paid outside compiled calls.

    In the eager first call every tensor touched is remembered weakly; those still alive after
    the call are the state. In a trace, a tensor read whose array is concrete comes from outside
    and was not lifted (``found``): its cell joins this thread's overlay (``outside``), so what
    the trace writes there stays in the trace; cells created by the trace are remembered
    (``created``) to find those that outlive it.
    """

    def __init__(self, tracing):
        self.tracing = tracing
        self.touched = {}           # id -> weakref (eager) or tensor (trace)
        self.found = {}             # id(cell) -> entry, for concrete tensors met in a trace
        self.outside = Overlay()    # this thread's own values of those cells, dropped after the trace
        self.grad_of = {}           # id(grad tensor) -> the tensor whose ``.grad`` it was read as
        self.grad_reads = {}        # id(owner) -> (owner, was None): ``.grad`` read before set
        self.grad_writes = {}       # id(owner) -> (owner, ``.grad`` before the call)
        self.optimizers = {}
        self.modules = {}           # modules called (their ``training`` flag is a guard)
        self.created = []

    def _touch(self, t):
        i = id(t)
        if not self.tracing:
            ref = self.touched.get(i)
            if ref is None or ref() is not t:   # ids of dead tensors are reused
                self.touched[i] = weakref.ref(t)
            return
        self.touched[i] = t
        cell = t._cell
        if not isinstance(cell.value, jax.core.Tracer) and id(cell) not in self.found:
            owner = self.grad_of.get(i)
            self.found[id(cell)] = (owner, _GRAD) if owner is not None else (t, _CELL)
            self.outside.put(cell, cell.value)

    # --- storage events (this thread's, while the call runs)
    def read(self, t):
        if not self.tracing or id(t) not in self.touched:
            self._touch(t)

    write = read

    def new_cell(self, cell):
        if self.tracing:
            self.created.append(weakref.ref(cell))

    def grad_read(self, t, g):
        i = id(t)
        if i not in self.grad_reads and i not in self.grad_writes:
            self.grad_reads[i] = (t, g is None)
        if g is not None:
            self.grad_of.setdefault(id(g), t)

    def grad_write(self, t, old):
        i = id(t)
        if i not in self.grad_writes:
            self.grad_writes[i] = (t, old)

    # --- announcements (listeners run in the announcing thread: keep only this thread's)
    def _module_called(self, module):
        recorders = _ACTIVE.recorders
        if recorders and recorders[-1] is self:
            self.modules[id(module)] = module

    def _optimizer_stepped(self, opt):
        """A compiled step that steps ``opt`` guards its hyperparameters (a changed learning rate
        traces a new program)."""
        recorders = _ACTIVE.recorders
        if recorders and recorders[-1] is self:
            self.optimizers[id(opt)] = opt

    def __enter__(self):
        _ACTIVE.recorders.append(self)
        self._listening = [OPTIMIZER_STEP.listen(self._optimizer_stepped)]
        if self.tracing:
            self._listening.append(MODULE_CALL.listen(self._module_called))
        return Watch.__enter__(self)

    def __exit__(self, *exc):
        Watch.__exit__(self, *exc)
        for handle in self._listening:
            handle.remove()
        _ACTIVE.recorders.pop()
        return False
