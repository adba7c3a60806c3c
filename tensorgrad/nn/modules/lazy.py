"""Lazy modules: layers whose input size is read from their first input.

``LazyLinear(out_features)`` holds ``UninitializedParameter``s until its first call; a forward
pre-hook then calls ``initialize_parameters(input)``, which materializes them with the input's
feature count and initializes them as the eager layer does, and the module becomes that layer
(``Linear``): its class, repr and hooks are the eager one's from then on. The parameter objects
stay the same, so an optimizer made before the first call updates them afterwards.
"""

from ..._autograd.grad_mode import no_grad
from ..._api.creation import tensor as _tensor
from ... import _dtype
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, Conv3d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyBatchNorm1d",
           "LazyBatchNorm2d", "LazyBatchNorm3d"]


class LazyModuleMixin:
    """Mixin of the lazy modules: infers the parameters' shapes at the first call."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(LazyModuleMixin._infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self):
        """Whether a parameter or buffer of this module (not its children) is still uninitialized."""
        for t in list(self._parameters.values()) + list(self._buffers.values()):
            if is_lazy(t):
                return True
        return False

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or is_lazy(param) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars or is_lazy(buf) else buf.detach()

    @staticmethod
    def _infer_parameters(module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is the last dimension of its first input.

    >>> import tensorgrad as torch
    >>> m = torch.nn.LazyLinear(2)
    >>> m
    LazyLinear(in_features=0, out_features=2, bias=True)
    >>> m(torch.ones(1, 3)).shape, m
    (torch.Size([1, 2]), Linear(in_features=3, out_features=2, bias=True))
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConv(LazyModuleMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _in_channels(self, input):
        unbatched = self._nd + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                self.weight.materialize((self.out_channels, self.in_channels // self.groups) + self.kernel_size)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


class LazyConv1d(_LazyConv, Conv1d):
    """``Conv1d`` whose ``in_channels`` is read from its first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """``Conv2d`` whose ``in_channels`` is read from its first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """``Conv3d`` whose ``in_channels`` is read from its first input."""

    cls_to_become = Conv3d


class _LazyNorm(LazyModuleMixin):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _tensor(0, dtype=_dtype.int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    if self.bias is not None:
                        self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()


class LazyBatchNorm1d(_LazyNorm, BatchNorm1d):
    """``BatchNorm1d`` whose ``num_features`` is read from its first input."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNorm, BatchNorm2d):
    """``BatchNorm2d`` whose ``num_features`` is read from its first input."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNorm, BatchNorm3d):
    """``BatchNorm3d`` whose ``num_features`` is read from its first input."""

    cls_to_become = BatchNorm3d
