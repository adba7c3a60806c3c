"""``tensorgrad.signal``: PyTorch's ``torch.signal`` namespace (its ``windows``)."""

from . import windows as windows
