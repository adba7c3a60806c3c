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
0-d parameter is replicated. One process only: with several, use ``DistributedDataParallel``.
"""

import jax
from jax.sharding import NamedSharding

from .device_mesh import DeviceMesh, init_device_mesh
from .tensor import DTensor, Replicate, Shard, _check_placements, _as_dtensor, pin, plain_compute, spec_of
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


_CLASSES = {}


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
    params = [p for p in module.parameters() if not isinstance(p, DTensor)]
    plans = []
    for p in params:        # every check before any parameter is sharded
        placements = (Shard(0),) * mesh.ndim if p.dim() > 0 else (Replicate(),) * mesh.ndim
        plans.append((p, _check_placements(tuple(p.shape), mesh, placements)))
    for p, placements in plans:
        sharding = NamedSharding(mesh.jax_mesh, spec_of(tuple(p.shape), mesh, placements))
        p._cell.value = jax.device_put(p._cell.value, sharding)
        pin(p, sharding)
        cls = type(p)
        if not isinstance(p, DTensor):
            sharded = _CLASSES.get(cls)
            if sharded is None:
                sharded = _CLASSES[cls] = type(cls.__name__, (DTensor, cls), {"__repr__": cls.__repr__})
            _as_dtensor(p, mesh)
            p.__class__ = sharded
    cls = type(module)
    if not isinstance(module, FSDPModule):
        wrapped = _CLASSES.get(cls)
        if wrapped is None:
            wrapped = _CLASSES[cls] = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {})
        module.__class__ = wrapped
    module._fsdp_mesh = mesh
    return module


__all__ = ["fully_shard", "FSDPModule"]
