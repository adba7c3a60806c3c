"""Modules over the sampling and composed pools of ``nn.functional``: max unpooling, fractional
max pooling, power-average pooling, local response normalization, the channel shuffle, the CTC
loss and the triplet loss with any distance."""

from .. import functional as F
from ._factory import tuple_of
from .distance import PairwiseDistance
from .loss import _Loss
from .module import Module


class _MaxUnpoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = tuple_of(kernel_size, self._nd)
        self.stride = tuple_of(stride if stride is not None else kernel_size, self._nd)
        self.padding = tuple_of(padding, self._nd)

    def forward(self, input, indices, output_size=None):
        unpool = getattr(F, f"max_unpool{self._nd}d")
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The inverse of ``MaxPool1d`` given its indices; zeros elsewhere."""

    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _nd = 3


class _FractionalMaxPoolNd(Module):
    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        nd = self._nd
        self.kernel_size = tuple_of(kernel_size, nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = tuple_of(output_size, nd) if output_size is not None else None
        self.output_ratio = tuple_of(output_ratio, nd) if output_ratio is not None else None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = getattr(F, f"fractional_max_pool{self._nd}d")
        return pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                    _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max over pseudo-random windows that shrink the input to ``output_size`` (or by ``output_ratio``)."""

    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _nd = 3


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        pool = getattr(F, f"lp_pool{self._nd}d")
        return pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """``(sum over each window of x ** p) ** (1 / p)``."""

    _nd = 1


class LPPool2d(_LPPoolNd):
    _nd = 2


class LPPool3d(_LPPoolNd):
    _nd = 3


class LocalResponseNorm(Module):
    """Normalization of each element by the squares of ``size`` neighbouring channels."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class ChannelShuffle(Module):
    """Channels split into ``groups`` and interleaved."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (see ``nn.functional.ctc_loss``)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


class TripletMarginWithDistanceLoss(_Loss):
    """The triplet margin loss with any ``distance_function`` (default: ``PairwiseDistance()``)."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function, margin=self.margin,
                                                   swap=self.swap, reduction=self.reduction)
