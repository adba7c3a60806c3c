"""``torch.nn.modules.batchnorm``: the batch-norm classes (defined in ``normalization``) and
``SyncBatchNorm``.

``SyncBatchNorm`` is PyTorch's: it takes inputs of any rank from 2 up, and synchronizes the
batch statistics across the processes of its group only while training with an initialized
process group of more than one process. Otherwise (no process group, eval mode, or world size
1 on a GPU input) it is the plain batch norm, as PyTorch's falls back to ``F.batch_norm``. With
an initialized process group, a training forward of an input on the CPU raises PyTorch's
``ValueError`` (its synchronizing kernel is GPU-only). A world of more than one process is not
synchronized here: that raises ``NotImplementedError`` (tensorgrad's data parallelism is XLA's:
a batch sharded over one process's devices is normalized over the whole batch already).
"""

from ... import distributed as _dist
from ..._autograd.grad_mode import no_grad
from .. import functional as F
from .lazy import (
    LazyBatchNorm1d as LazyBatchNorm1d, LazyBatchNorm2d as LazyBatchNorm2d, LazyBatchNorm3d as LazyBatchNorm3d,
)
# as in PyTorch, ``isinstance(m, nn.modules.batchnorm._BatchNorm)`` finds every batch norm
from .normalization import (
    _BatchNorm as _BatchNorm, BatchNorm1d as BatchNorm1d, BatchNorm2d as BatchNorm2d,
    BatchNorm3d as BatchNorm3d,
)

__all__ = ["BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d", "LazyBatchNorm3d",
           "SyncBatchNorm"]

_SYNC_DEVICES = ("cuda", "hpu", "xpu", "privateuseone")


class SyncBatchNorm(_BatchNorm):
    """Batch normalization over ``(N, C, +)`` whose statistics, while training, would be
    computed over every process of ``process_group`` (see the module docstring)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is None:
                raise AssertionError("num_batches_tracked must not be None")
            self.num_batches_tracked.add_(1)
            factor = 1.0 / self.num_batches_tracked.item() if self.momentum is None else self.momentum
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        keep_buffers = not self.training or self.track_running_stats
        running_mean = self.running_mean if keep_buffers else None
        running_var = self.running_var if keep_buffers else None
        need_sync = bn_training and self.training and _dist.is_available() and _dist.is_initialized()
        if need_sync:
            if input.device.type not in _SYNC_DEVICES:
                raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone")
            process_group = self.process_group if self.process_group else _dist.group.WORLD
            world_size = _dist.get_world_size(process_group)
            need_sync = world_size > 1
        if need_sync:
            raise NotImplementedError(
                f"SyncBatchNorm across {world_size} processes is not supported by tensorgrad: shard the batch over "
                "one process's devices (DistributedDataParallel), whose batch norm already sees the whole batch")
        return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, bn_training, factor, self.eps)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replace every ``BatchNorm*d`` in ``module`` (or ``module`` itself, then returned anew) by a
        ``SyncBatchNorm`` sharing its parameters and buffers; returns the converted module."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                          module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    module_output.weight = module.weight
                    module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output
