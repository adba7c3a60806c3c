"""Convolutions: Conv1d/2d/3d and ConvTranspose1d/2d/3d."""

from .. import functional as F
from ._factory import kaiming_default_, new_param, optional_param, tuple_of
from .module import Module

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_PADDING_STRINGS = {"same", "valid"}


class _ConvNd(Module):
    """Shared construction, initialization and repr of the convolution layers."""

    _nd = 0
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, output_padding, groups,
                 bias, padding_mode, device=None, dtype=None):
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        kernel_size = tuple_of(kernel_size, nd)
        stride = tuple_of(stride, nd)
        dilation = tuple_of(dilation, nd)
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = tuple_of(padding, nd)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = self._transposed
        self.output_padding = tuple_of(output_padding, nd)
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            pads = [0, 0] * nd
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(nd - 1, -1, -1)):
                    total = d * (k - 1)
                    pads[2 * i] = total // 2
                    pads[2 * i + 1] = total - total // 2
        else:
            pads = [p for p in reversed(padding) for _ in range(2)]
        self._reversed_padding_repeated_twice = pads
        if self._transposed:
            shape = (in_channels, out_channels // groups) + kernel_size
        else:
            shape = (out_channels, in_channels // groups) + kernel_size
        self.weight = new_param(*shape, device=device, dtype=dtype)
        optional_param(self, "bias", bias, out_channels, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        kaiming_default_(self.weight, self.bias)

    def extra_repr(self):
        nd = len(self.kernel_size)
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * nd:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * nd:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, 0, groups, bias,
                         padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        conv = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution over ``(N, C_in, L)``; weight ``(C_out, C_in / groups, k)``."""

    _nd = 1


class Conv2d(_Conv):
    """2-D convolution over ``(N, C_in, H, W)``; weight ``(C_out, C_in / groups, kH, kW)``.

    >>> import tensorgrad as torch
    >>> torch.nn.Conv2d(3, 8, 3, padding=1)
    Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
    """

    _nd = 2


class Conv3d(_Conv):
    """3-D convolution over ``(N, C_in, D, H, W)``."""

    _nd = 3


class _ConvTranspose(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, output_padding, groups,
                         bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size):
        """The output padding that gives ``output_size`` (or the layer's own when None)."""
        if output_size is None:
            return self.output_padding
        nd = self._nd
        non_spatial = 2 if input.dim() == nd + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + nd:
            output_size = output_size[non_spatial:]
        if len(output_size) != nd:
            raise ValueError(f"ConvTranspose{nd}D: for {input.dim()}D input, output_size must have {nd} or "
                             f"{non_spatial + nd} elements (got {len(output_size)})")
        smallest = []
        largest = []
        for d in range(nd):
            size = ((input.size(d + non_spatial) - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            smallest.append(size)
            largest.append(size + self.stride[d] - 1)
        for d in range(nd):
            if not smallest[d] <= output_size[d] <= largest[d]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {smallest} "
                                 f"to {largest} (for an input of {input.size()[2:]})")
        return tuple(output_size[d] - smallest[d] for d in range(nd))

    def forward(self, input, output_size=None):
        conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._nd - 1]
        output_padding = self._output_padding(input, output_size)
        return conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                    self.dilation)


class ConvTranspose1d(_ConvTranspose):
    """Transposed 1-D convolution; weight ``(C_in, C_out / groups, k)``."""

    _nd = 1


class ConvTranspose2d(_ConvTranspose):
    """Transposed 2-D convolution; weight ``(C_in, C_out / groups, kH, kW)``."""

    _nd = 2


class ConvTranspose3d(_ConvTranspose):
    _nd = 3
