"""Removable hook handles (public as ``tensorgrad.utils.hooks.RemovableHandle``), and the
announcements that let one layer observe another without importing it.

``MODULE_CALL`` and ``OPTIMIZER_STEP`` are announced by ``nn.Module.__call__`` and
``optim.Optimizer.step``; ``tensorgrad.compile`` listens while it runs a step (a module's
``training`` flag and an optimizer's hyperparameters are guards of the compiled program). So
compile imports neither ``nn`` nor ``optim``, and they do not import compile.
"""

import itertools

_ids = itertools.count()


class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` unregisters the hook."""

    def __init__(self, hooks_dict, fn=None):
        self.hooks_dict = hooks_dict
        self.id = next(_ids)
        if fn is not None:
            hooks_dict[self.id] = fn

    def remove(self):
        self.hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class Announcement:
    """Something code announces, with the object concerned, to whoever listens.

    The announcer tests ``listeners`` first (``if MODULE_CALL.listeners: MODULE_CALL(self)``), so
    with no listener an announcement costs one attribute lookup. A listener runs in the thread
    that announces: one that cares about its own thread only must check.

    >>> seen = []
    >>> event = Announcement("example")
    >>> handle = event.listen(seen.append)
    >>> event(42)
    >>> handle.remove()
    >>> event(43)
    >>> seen
    [42]
    """

    __slots__ = ("name", "listeners")

    def __init__(self, name):
        self.name = name
        self.listeners = {}

    def listen(self, fn):
        """Call ``fn(obj)`` on each announcement until the returned handle is removed."""
        return RemovableHandle(self.listeners, fn)

    def __call__(self, obj):
        for fn in tuple(self.listeners.values()):
            fn(obj)

    def __repr__(self):
        return f"Announcement({self.name!r})"


MODULE_CALL = Announcement("nn.Module.__call__")
OPTIMIZER_STEP = Announcement("optim.Optimizer.step")
