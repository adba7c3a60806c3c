"""``torch.mps``: Apple's Metal backend, which JAX does not have here, so this answers as a
PyTorch built without MPS does.

>>> import tensorgrad
>>> tensorgrad.mps.is_available()
False
"""


def is_available():
    """False: tensorgrad has no MPS device."""
    return False


def device_count():
    """0: tensorgrad has no MPS device."""
    return 0


def manual_seed(seed):
    """Does nothing (PyTorch without MPS ignores it, so that ``torch.manual_seed`` can call it)."""


def seed():
    raise RuntimeError("Cannot execute getDefaultGenerator() without MPS backend.")


def synchronize():
    raise RuntimeError("Cannot execute deviceSynchronize() without MPS backend.")


def empty_cache():
    raise RuntimeError("Cannot execute emptyCache() without MPS backend.")
