"""``torch.backends.mps``: tensorgrad has no MPS (Metal) device.

>>> import tensorgrad
>>> tensorgrad.backends.mps.is_available(), tensorgrad.backends.mps.is_built()
(False, False)
"""


def is_available():
    """False: JAX has no Metal backend here."""
    return False


def is_built():
    """False: tensorgrad is not built with MPS."""
    return False
