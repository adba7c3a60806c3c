"""Identity, Linear and Bilinear layers."""

import math

from .. import functional as F
from .. import init
from ._factory import kaiming_default_, new_param, optional_param
from .module import Module


class Identity(Module):
    """Returns its input; accepts and ignores any constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` with ``weight`` of shape ``(out_features, in_features)``.

    Initialized as PyTorch does: weight and bias uniform in ``±1/sqrt(in_features)``.

    >>> import tensorgrad as torch
    >>> torch.nn.Linear(3, 2)
    Linear(in_features=3, out_features=2, bias=True)
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = new_param(out_features, in_features, device=device, dtype=dtype)
        optional_param(self, "bias", bias, out_features, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        kaiming_default_(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """The Linear that MultiheadAttention uses for its output projection (named as in PyTorch)."""


class Bilinear(Module):
    """``y = x1^T A x2 + b`` with ``weight`` of shape ``(out_features, in1_features, in2_features)``."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = new_param(out_features, in1_features, in2_features, device=device, dtype=dtype)
        optional_param(self, "bias", bias, out_features, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
