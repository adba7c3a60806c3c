"""``torch.nn.parallel.DistributedDataParallel`` on JAX's sharding.

``DistributedDataParallel(module)`` replicates the module's parameters and buffers over a 1-d
mesh of this process's devices and shards each forward's tensor inputs along the batch (dim 0)
over it (when it divides evenly): XLA runs the batch data parallel and, since a parameter's
gradient sums over the whole batch, reduces the gradients across the devices itself. With more
than one process (``init_process_group`` under torchrun) each process computes on its own batch
and the gradients are averaged across processes after the backward (``all_reduce``, as PyTorch's
DDP does), and the parameters are broadcast from rank 0 at construction (``init_sync``).

As in PyTorch, it needs the default process group. The knobs of PyTorch's gradient bucketing
(``bucket_cap_mb``, ``gradient_as_bucket_view``, ``static_graph``, ``find_unused_parameters``)
change nothing here: XLA schedules the reductions. Arguments that would change the results
(``output_device``, ``dim``, ``process_group``, ``mixed_precision``, ...) raise. With more than
one process the step cannot run inside ``tensorgrad.compile`` (the gradient all-reduce is eager).
"""

import contextlib

import jax
from jax.sharding import NamedSharding, PartitionSpec

from .. import distributed as _dist
from ..distributed.device_mesh import DeviceMesh
from ..distributed.tensor import _resharded_input, pin
from .modules import Module


class DistributedDataParallel(Module):
    """Data parallelism over this process's devices (and across processes); see the module
    docstring."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False):
        super().__init__()
        for name, value in (("output_device", output_device), ("process_group", process_group),
                            ("delay_all_reduce_named_params", delay_all_reduce_named_params),
                            ("param_to_hook_all_reduce", param_to_hook_all_reduce),
                            ("mixed_precision", mixed_precision)):
            if value is not None:
                raise NotImplementedError(f"DistributedDataParallel({name}=...) is not supported by tensorgrad")
        if dim != 0:
            raise NotImplementedError("DistributedDataParallel(dim=...): tensorgrad shards inputs along dim 0 only")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        if not _dist.is_initialized():
            raise ValueError(_dist.NOT_INITIALIZED)
        if device_mesh is None:
            local = jax.local_devices()
            jax_mesh = jax.sharding.Mesh(local, ("dp",))
            device_mesh = DeviceMesh(local[0].platform, _jax_mesh=jax_mesh, _dims=("dp",))
        elif not isinstance(device_mesh, DeviceMesh) or device_mesh.ndim != 1:
            raise ValueError("DistributedDataParallel(device_mesh=...) expects a 1-d DeviceMesh")
        elif not set(device_mesh.jax_mesh.devices.flat) <= set(jax.local_devices()):
            raise NotImplementedError("DistributedDataParallel(device_mesh=...): tensorgrad's DDP mesh spans this "
                                      "process's devices (processes are joined by the gradient all-reduce)")
        self.module = module
        self.device_mesh = device_mesh
        self.broadcast_buffers = broadcast_buffers
        self._sync = True
        replicated = NamedSharding(device_mesh.jax_mesh, PartitionSpec())
        world = jax.process_count()
        for t in list(module.parameters()) + list(module.buffers()):
            if world > 1 and init_sync:
                _dist.broadcast(t.data, 0)
            t._cell.value = jax.device_put(t._cell.value, replicated)
            pin(t, replicated)
            if world > 1 and t.requires_grad:
                t.register_post_accumulate_grad_hook(self._average_grad)

    def forward(self, *inputs, **kwargs):
        mesh = self.device_mesh
        inputs = tuple(_resharded_input(a, mesh) for a in inputs)
        kwargs = {k: _resharded_input(v, mesh) for k, v in kwargs.items()}
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Backwards inside accumulate gradients without averaging them across processes; the
        first backward after it averages the accumulated ones (as PyTorch's). Within one process
        XLA's gradients are whole already, so there it changes nothing."""
        was = self._sync
        self._sync = False
        try:
            yield
        finally:
            self._sync = was

    def _average_grad(self, param):
        """Average ``param.grad`` over the processes (PyTorch's reducer, one tensor at a time)."""
        if self._sync:
            _dist.all_reduce(param.grad, op=_dist.ReduceOp.AVG)




__all__ = ["DistributedDataParallel"]
