"""Removable hook handles (public as ``tensorgrad.utils.hooks.RemovableHandle``)."""

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
