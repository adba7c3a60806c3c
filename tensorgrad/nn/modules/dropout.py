"""Dropout layers (plain, channel-wise and alpha): active in training mode, the identity in eval mode."""

from .. import functional as F
from .module import Module


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return getattr(F, self._function)(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (training only)."""

    _function = "dropout"


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` input with probability ``p`` (training only)."""

    _function = "dropout1d"


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` input with probability ``p`` (training only)."""

    _function = "dropout2d"


class Dropout3d(_DropoutNd):
    _function = "dropout3d"


class AlphaDropout(_DropoutNd):
    """Dropout that keeps a SELU network's mean and variance (training only)."""

    _function = "alpha_dropout"


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (training only)."""

    _function = "feature_alpha_dropout"
