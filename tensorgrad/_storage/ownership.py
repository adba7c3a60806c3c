"""Whether a cell's array is held by its cell alone, so a program may donate its buffer (XLA
then writes the new value into it): ``tensorgrad.compile``'s steps and the fused optimizer
steps count the references to the arrays they would donate, against the counts of an object
that only its known holders reference."""

import sys


def refs(values, k):
    """The references to ``values[k]`` (a list of the arrays a call would donate)."""
    return sys.getrefcount(values[k])


def grad_refs(owner):
    """The references to ``owner``'s ``.grad`` tensor."""
    grad = owner._grad_value
    return sys.getrefcount(grad)


class _Slot:
    __slots__ = ("value",)


class _Holder:
    pass


def _calibrate():
    """What ``refs`` counts for an object held by one slot (a cell's) and one list (the call's
    values) alone, and ``grad_refs`` for a ``.grad`` held by its owner alone: what this Python's
    ``sys.getrefcount`` adds of its own is measured, not assumed."""
    slot = _Slot()
    slot.value = object()
    holder = _Holder()
    holder._grad_value = object()
    return refs([slot.value], 0), grad_refs(holder)


OWNED_REFS, GRAD_REFS = _calibrate()
