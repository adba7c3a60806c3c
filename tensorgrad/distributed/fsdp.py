"""``torch.distributed.fsdp.fully_shard`` (FSDP2) on JAX's sharding.

``fully_shard(module, mesh=mesh)`` stores every parameter of ``module`` sharded along dim 0 over
the mesh (a DTensor with ``Shard(0)`` on each mesh dimension, in an ``nn.Parameter``): each
device holds ``1/mesh.size()`` of it. Where PyTorch all-gathers the parameters before the
forward and reduce-scatters the gradients after the backward, here the module's forward
computes on the sharded arrays as on plain tensors and XLA inserts the gathers and the
reductions; the optimizer's updates write the shards in place (a parameter's storage keeps its
sharding). The forward's tensor inputs are sharded along their batch dimension (dim 0) over the
mesh when it divides evenly, so the batch is data parallel, as FSDP's is.

The module's class becomes ``FSDP<Class>`` (a subclass, as PyTorch's ``FSDPModule``). A dim 0
not divisible by the mesh size is refused before any parameter is touched (PyTorch pads it); a
0-d parameter is replicated. A parameter that ``parallelize_module`` placed on another dimension
of the same mesh (``mesh["tp"]`` beside ``mesh["dp"]``) is sharded over both (2-d parallelism).
One process only: with several, use ``DistributedDataParallel``.
"""

import jax

from .device_mesh import DeviceMesh, init_device_mesh
from .tensor import DTensor, Replicate, Shard, _check_placements, place_parameter, plain_compute
from .tensor import _resharded_input as _shard_batch


class FSDPModule:
    """The mixin of a ``fully_shard``-ed module's class: its forward runs on the sharded
    parameters as on plain ones, its inputs sharded along the batch."""

    def forward(self, *args, **kwargs):
        mesh = self._fsdp_mesh
        args = tuple(_shard_batch(a, mesh) for a in args)
        kwargs = {k: _shard_batch(v, mesh) for k, v in kwargs.items()}
        with plain_compute():
            return super().forward(*args, **kwargs)

    def reshard(self):
        """Nothing to do: the parameters are never gathered outside XLA's programs."""

    def unshard(self, async_op=False):
        """Nothing to do: XLA gathers the parameters inside each program."""


_MODULE_CLASSES = {}


def fully_shard(module, *, mesh=None, reshard_after_forward=None, shard_placement_fn=None, mp_policy=None,
                offload_policy=None, ignored_params=None):
    """Shard ``module``'s parameters along dim 0 over ``mesh`` (default: a 1-d mesh of every
    device JAX sees); returns ``module``, whose class becomes ``FSDP<Class>``."""
    for name, value in (("shard_placement_fn", shard_placement_fn), ("mp_policy", mp_policy),
                        ("offload_policy", offload_policy), ("ignored_params", ignored_params)):
        if value is not None:
            raise NotImplementedError(f"fully_shard({name}=...) is not supported by tensorgrad")
    if reshard_after_forward not in (None, True, False):
        raise NotImplementedError("fully_shard(reshard_after_forward=<int>) is not supported by tensorgrad")
    if jax.process_count() > 1:
        raise NotImplementedError("fully_shard with more than one process is not supported by tensorgrad: use "
                                  "DistributedDataParallel")
    if mesh is None:
        mesh = init_device_mesh(jax.devices()[0].platform.replace("gpu", "cuda"), (len(jax.devices()),))
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"fully_shard(mesh=...) expects a DeviceMesh, got {type(mesh).__name__}")
    plans = []
    for p in module.parameters():       # every check before any parameter is sharded
        if isinstance(p, DTensor):      # placed by parallelize_module on a sub-mesh of the same JAX mesh
            inner = p.device_mesh
            if inner.jax_mesh == mesh.jax_mesh and set(mesh.dims) <= set(inner.dims):
                continue                # sharded already (by a fully_shard of a submodule)
            if inner.jax_mesh != mesh.jax_mesh or set(inner.dims) & set(mesh.dims):
                raise ValueError(f"fully_shard: a parameter is already a DTensor on {inner!r}, which is not another "
                                 f"dimension of {mesh!r}")
            target = DeviceMesh(mesh.device_type, _jax_mesh=mesh.jax_mesh, _dims=mesh.dims + inner.dims)
            placements = (Shard(0),) * mesh.ndim + tuple(p.placements)
        else:
            target = mesh
            placements = (Shard(0),) * mesh.ndim
        if p.dim() == 0:
            placements = (Replicate(),) * target.ndim
        plans.append((p, target, _check_placements(tuple(p.shape), target, placements)))
    for p, target, placements in plans:
        place_parameter(p, target, placements)
    cls = type(module)
    if not isinstance(module, FSDPModule):
        wrapped = _MODULE_CLASSES.get(cls)
        if wrapped is None:
            wrapped = _MODULE_CLASSES[cls] = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {})
        module.__class__ = wrapped
    module._fsdp_mesh = mesh
    return module


__all__ = ["fully_shard", "FSDPModule"]
