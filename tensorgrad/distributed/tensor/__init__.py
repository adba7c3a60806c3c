"""``torch.distributed.tensor``: ``DTensor``, ``distribute_tensor`` and the placements, over JAX's
sharding.

A ``DTensor`` is a tensorgrad Tensor (a subclass) whose jax array carries a ``NamedSharding``
over its mesh's JAX mesh: ``Shard(d)`` on mesh dimension ``m`` is ``m``'s axis in entry ``d`` of
the ``PartitionSpec``, ``Replicate()`` is no entry. Ops on DTensors run the ordinary compiled
kernels on the sharded arrays: XLA (GSPMD) propagates the sharding and inserts the collectives,
and the result is a DTensor whose placements are read off its array's sharding. So they run
eagerly, under autograd (the gradients are sharded arrays too) and inside
``tensorgrad.compile``. An op given DTensors on different meshes, or a DTensor and a plain
tensor of more than 0 dimensions that is not on the mesh, raises PyTorch's errors (under
``no_grad`` such a plain tensor is let through, so that an optimizer's plain state tensors
update sharded parameters; XLA places it).

How this single-controller world reads PyTorch's per-rank notions (one process drives all of
its devices):

* ``to_local()`` is the shard held by the mesh's first device of this process (for one
  process over 8 devices: device 0's shard), a plain tensor on that device.
* ``DTensor.from_local(local, mesh, placements)`` takes ``local`` as the shard of every device
  of this process (as if every rank passed the same tensor): ``Shard(d)`` over 8 devices makes a
  tensor 8 times as long along ``d``; ``Partial("sum")`` one 8 times as large. With more than
  one process it raises (``distribute_tensor`` works there).
* ``Partial`` has no JAX sharding. A Partial DTensor holds its reduced value, replicated (that
  is what ops on it compute with, so their results are Replicate or Shard); its placements say
  Partial until it is redistributed, and ``to_local()`` gives the partial value of one device
  (the value divided by the mesh size for ``sum``, the value for ``avg``/``max``/``min``).
  As in PyTorch, redistributing to Partial is refused.
* An op's result is never Partial: where PyTorch leaves a reduction over a sharded dimension
  pending (``d.sum()`` of a ``Shard(0)`` tensor is ``Partial(sum)``), XLA reduces it and the
  result reads as Replicate.
* ``.grad`` of a DTensor is a DTensor on its mesh, whose placements are its array's (XLA's
  choice for the gradient, usually the parameter's).
* A dimension not divisible by the mesh size is refused (``ValueError`` naming the dimension
  and the sizes) where PyTorch pads the last shards unevenly (``torch.chunk``): JAX's sharded
  arrays are even. Nothing is placed when a placement is refused.

Leaves made by ``distribute_tensor`` (parameters of ``fully_shard``) keep their sharding: a
write that brings another one (``copy_`` of a whole tensor, ``load_state_dict``) is resharded
back to the leaf's placements.
"""

import threading

import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec

from ..._autograd.grad_mode import STATE
from ..._bridge import call_jax
from ..._storage.cell import Cell
from ..._storage.overlay import set_class
from ..._tensor import Tensor, _wrap
from ..._tensor import dispatch as _dispatch
from ..device_mesh import DeviceMesh
from .placement_types import Placement, Shard, Replicate, Partial

_GUARD = threading.local()     # .on: inside a DTensor op's own apply, or a module computing on plain tensors


class ShardedCell(Cell):
    """A storage cell that keeps its array on one sharding (held in the ``host`` slot): a write
    of an array sharded otherwise is resharded."""

    __slots__ = ()

    @property
    def value(self):
        return _VALUE.__get__(self)

    @value.setter
    def value(self, new):
        target = getattr(self, "host", None)
        if target is not None and isinstance(new, jax.Array) and not isinstance(new, jax.core.Tracer) \
                and new.sharding != target:
            new = jax.device_put(new, target)
        _VALUE.__set__(self, new)


_VALUE = Cell.value


class DTensor(Tensor):
    """A Tensor placed on a DeviceMesh: ``placements`` (one per mesh dimension), ``device_mesh``,
    ``to_local()``, ``full_tensor()``, ``redistribute(...)``. Made by ``distribute_tensor`` or
    ``DTensor.from_local``, and by ops on DTensors."""

    _mesh = None
    _placements = None      # pinned placements (a Partial one); None: read off the array's sharding

    def __new__(cls, *args, **kwargs):
        raise TypeError("DTensor is made by distribute_tensor(...) or DTensor.from_local(...)")

    @property
    def grad(self):
        """The gradient, a DTensor on this mesh (its placements are its array's)."""
        g = Tensor.grad.fget(self)
        return _as_dtensor(g, self._mesh) if g is not None and not isinstance(g, DTensor) else g

    @grad.setter
    def grad(self, value):
        Tensor.grad.fset(self, value)

    @grad.deleter
    def grad(self):
        Tensor.grad.fdel(self)

    @property
    def device_mesh(self):
        return self._mesh

    @property
    def placements(self):
        if self._placements is not None:
            return self._placements
        return placements_of(self._data, self._mesh)

    def to_local(self, *, grad_placements=None):
        """This process's shard (see the module docstring): a plain tensor on the mesh's first
        device of this process; differentiable."""
        if grad_placements is not None:
            raise NotImplementedError("to_local(grad_placements=...) is not supported by tensorgrad")
        mesh = self._mesh
        device = _first_local(mesh)
        placements = self.placements
        shape = tuple(self.shape)
        index = _shard_index(shape, mesh, placements, _coordinate(mesh, device))
        scale = _partial_scale(mesh, placements)

        def local(a):
            return jax.device_put(a[index] * scale if scale != 1 else a[index], device)

        with _plain():
            return _plain_tensor(call_jax(local, self))

    def full_tensor(self, *, grad_placements=None):
        """The whole tensor, replicated on the mesh, as a plain tensor; differentiable."""
        if grad_placements is not None:
            raise NotImplementedError("full_tensor(grad_placements=...) is not supported by tensorgrad")
        out = self.redistribute(self._mesh, [Replicate()] * self._mesh.ndim)
        return _plain_tensor(out)

    def redistribute(self, device_mesh=None, placements=None, *, async_op=False, forward_dtype=None,
                     backward_dtype=None):
        """This tensor with ``placements`` on ``device_mesh`` (its own mesh); differentiable: the
        gradient takes the way back."""
        mesh = self._mesh if device_mesh is None else device_mesh
        if mesh != self._mesh:
            raise NotImplementedError("Cross device mesh comm not supported yet!")
        if forward_dtype is not None or backward_dtype is not None:
            raise NotImplementedError("redistribute(forward_dtype=..., backward_dtype=...) is not supported by "
                                      "tensorgrad")
        current = self.placements
        target = tuple(current if placements is None else _check_placements(tuple(self.shape), mesh, placements))
        for src, dst in zip(current, target):
            if dst.is_partial() and src != dst:
                raise RuntimeError(f"Can not redistribute from {src} to {dst}, redistributing to Partial is for "
                                   "internal use only!")
        return _resharded(self, mesh, target)

    @staticmethod
    def from_local(local_tensor, device_mesh=None, placements=None, *, run_check=False, shape=None, stride=None):
        """A DTensor whose every device of this process holds ``local_tensor`` as its shard (see
        the module docstring); differentiable."""
        if device_mesh is None:
            raise NotImplementedError("DTensor.from_local needs device_mesh= in tensorgrad (there is no current mesh)")
        if shape is not None or stride is not None:
            raise NotImplementedError("DTensor.from_local(shape=..., stride=...): tensorgrad's shards are even; "
                                      "pass neither")
        if jax.process_count() > 1:
            raise NotImplementedError("DTensor.from_local with more than one process: use distribute_tensor")
        placements = _check_placements(tuple(local_tensor.shape), device_mesh, placements, local=True)
        reps = [1] * local_tensor.dim()
        scale = 1
        for m, p in enumerate(placements):
            if p.is_shard():
                reps[p.dim] *= device_mesh.shape[m]
            elif p.is_partial("sum"):
                scale *= device_mesh.shape[m]
        global_shape = tuple(s * r for s, r in zip(local_tensor.shape, reps))
        sharding = NamedSharding(device_mesh.jax_mesh, spec_of(global_shape, device_mesh, placements))

        def tile(a):
            import jax.numpy as jnp
            return jax.device_put(jnp.tile(a, reps) * scale if scale != 1 else jnp.tile(a, reps), sharding)

        out = call_jax(tile, local_tensor)
        return _as_dtensor(out, device_mesh, placements)

    def detach(self):
        """A DTensor sharing storage, cut from the graph (PyTorch's detach of a DTensor is one)."""
        return _as_dtensor(Tensor.detach(self), self._mesh, self._placements)

    def __deepcopy__(self, memo):
        """A copy of the same class, placements and (for a leaf of ``distribute_tensor``) pinned
        sharding; as Tensor's deepcopy, a leaf copy keeps requires_grad and ``.grad``."""
        if id(self) in memo:
            return memo[id(self)]
        t = _wrap(self._data, self._rg and self.is_leaf)
        t.__class__ = type(self)
        t._mesh = self._mesh
        if self._placements is not None:
            t._placements = self._placements
        if type(self._cell) is ShardedCell:
            pin(t, self._cell.host)
        if self._grad is not None:
            t._grad = _wrap(self._grad._data)
        memo[id(self)] = t
        return t

    def __repr__(self):
        return (f"DTensor(local_tensor={self.to_local().detach()!r}, device_mesh={self._mesh!r}, "
                f"placements={self.placements!r})")


# ---------------------------------------------------------------------- placements and shardings

def _check_placements(shape, mesh, placements, local=False):
    """PyTorch's checks of ``placements`` for a tensor of ``shape`` on ``mesh``, normalized (a
    negative Shard dim made positive); raises before anything is placed."""
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"device_mesh must be a DeviceMesh, got {type(mesh).__name__}")
    if placements is None:
        return (Replicate(),) * mesh.ndim
    placements = tuple(placements)
    if len(placements) != mesh.ndim:
        raise ValueError(f"`placements` must have the same length as `device_mesh.ndim`! Found placements length: "
                         f"{len(placements)}, and device_mesh.ndim: {mesh.ndim}.")
    out = []
    for m, p in enumerate(placements):
        if not isinstance(p, Placement):
            raise TypeError(f"placements must be Shard, Replicate or Partial, got {p!r}")
        if p.is_shard():
            ndim = len(shape)
            if not -ndim <= p.dim < ndim:
                raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got "
                                 f"{p.dim})")
            dim = p.dim % ndim
            if not local:
                split = mesh.shape[m] * np.prod([mesh.shape[k] for k, q in enumerate(out) if q == Shard(dim)],
                                                dtype=np.int64)
                if shape[dim] % split:
                    raise ValueError(f"Shard({p.dim}) over mesh dimension {m} ({mesh.dims[m]!r}, size "
                                     f"{mesh.shape[m]}): tensor dimension {dim} has size {shape[dim]}, not divisible "
                                     f"by {int(split)}; tensorgrad's shards are even (PyTorch pads the last shards "
                                     "unevenly)")
            p = Shard(dim)
        out.append(p)
    return tuple(out)


def spec_of(shape, mesh, placements):
    """The PartitionSpec of ``placements`` (Partial and Replicate name no axis)."""
    entries = [[] for _ in shape]
    for m, p in enumerate(placements):
        if p.is_shard():
            entries[p.dim].append(mesh.dims[m])
    return PartitionSpec(*[None if not e else e[0] if len(e) == 1 else tuple(e) for e in entries])


def placements_of(array, mesh):
    """The placements an array's NamedSharding gives on ``mesh`` (Replicate where it names no
    axis of it, or inside a trace, where the sharding is XLA's to choose)."""
    sharding = getattr(array, "sharding", None) if not isinstance(array, jax.core.Tracer) else None
    out = [Replicate()] * mesh.ndim
    if isinstance(sharding, NamedSharding):
        for d, entry in enumerate(sharding.spec):
            names = entry if isinstance(entry, tuple) else (entry,)
            for name in names:
                if name in mesh.dims:
                    out[mesh.dims.index(name)] = Shard(d)
    return tuple(out)


def _first_local(mesh):
    mine = set(jax.local_devices())
    for d in mesh.jax_mesh.devices.flat:
        if d in mine:
            return d
    raise RuntimeError("this process holds no device of the mesh")


def _coordinate(mesh, device):
    where = np.argwhere(mesh.jax_mesh.devices == device)[0]
    axes = list(mesh.jax_mesh.axis_names)
    return [int(where[axes.index(d)]) for d in mesh.dims]


def _shard_index(shape, mesh, placements, coord):
    """The slices of the shard at mesh coordinate ``coord`` (mesh dimensions sharding one tensor
    dimension split it major to minor, as JAX's tuple entries do)."""
    index = [slice(None)] * len(shape)
    for d in range(len(shape)):
        dims = [m for m, p in enumerate(placements) if p.is_shard(d)]
        if dims:
            size = shape[d] // int(np.prod([mesh.shape[m] for m in dims]))
            k = 0
            for m in dims:
                k = k * mesh.shape[m] + coord[m]
            index[d] = slice(k * size, (k + 1) * size)
    return tuple(index)


def _partial_scale(mesh, placements):
    scale = 1.0
    for m, p in enumerate(placements):
        if p.is_partial("sum"):
            scale /= mesh.shape[m]
    return scale


# ---------------------------------------------------------------------- making DTensors

def _as_dtensor(t, mesh, placements=None):
    if not isinstance(t, DTensor):
        t.__class__ = DTensor
    t._mesh = mesh
    if placements is not None and any(p.is_partial() for p in placements):
        t._placements = tuple(placements)
    _dispatch._DISTRIBUTED = _hook
    _dispatch._DISTRIBUTED_TYPE = DTensor
    return t


def _plain_tensor(t):
    t.__class__ = Tensor
    t.__dict__.pop("_mesh", None)
    t.__dict__.pop("_placements", None)
    return t


class _plain:
    """Run ops on DTensors as on plain tensors (no DTensor results, no mixing checks)."""

    def __enter__(self):
        self.was = getattr(_GUARD, "on", False)
        _GUARD.on = True

    def __exit__(self, *exc):
        _GUARD.on = self.was


def _resharded(t, mesh, placements):
    """``t`` resharded to ``placements`` (a DTensor); the gradient is resharded back."""
    shape = tuple(t.shape)
    dst = NamedSharding(mesh.jax_mesh, spec_of(shape, mesh, placements))
    src = NamedSharding(mesh.jax_mesh, spec_of(shape, mesh, [Replicate() if p.is_partial() else p
                                                            for p in t.placements]))

    @jax.custom_vjp
    def move(a):
        return jax.device_put(a, dst)

    move.defvjp(lambda a: (jax.device_put(a, dst), None), lambda _, g: (jax.device_put(g, src),))
    with _plain():
        out = call_jax(move, t)
    return _as_dtensor(out, mesh, placements)


def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    """``tensor`` placed on ``device_mesh`` by ``placements``: a new leaf DTensor (requires grad
    when ``tensor`` does) whose sharding its later writes keep."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"distribute_tensor expects a Tensor, got {type(tensor).__name__}")
    if device_mesh is None:
        raise NotImplementedError("distribute_tensor needs device_mesh= in tensorgrad (there is no current mesh)")
    if src_data_rank not in (0, None):
        raise NotImplementedError("distribute_tensor(src_data_rank=...): tensorgrad places the data of every process "
                                  "as one global array; pass 0 or None")
    if isinstance(tensor, DTensor):
        raise ValueError("distribute_tensor expects a torch.Tensor, but got a DTensor (use redistribute)")
    shape = tuple(tensor.shape)
    placements = _check_placements(shape, device_mesh, placements)
    sharding = NamedSharding(device_mesh.jax_mesh, spec_of(shape, device_mesh, placements))
    value = tensor.detach()._data
    if jax.process_count() > 1:
        value = np.asarray(value)       # every process holds the whole tensor (as every rank does)
        array = jax.make_array_from_callback(shape, sharding, lambda index: value[index])
    else:
        array = jax.device_put(value, sharding)
    out = _wrap(array, requires_grad=tensor.requires_grad)
    pin(out, sharding)
    return _as_dtensor(out, device_mesh, placements)


_PARAM_CLASSES = {}


def place_parameter(p, mesh, placements):
    """Make the parameter ``p`` (in place) a DTensor on ``mesh`` with ``placements`` (checked):
    its storage is resharded and pinned, its class a DTensor subclass of its own class."""
    sharding = NamedSharding(mesh.jax_mesh, spec_of(tuple(p.shape), mesh, placements))
    pin(p, sharding)
    p._cell.value = jax.device_put(p._cell.value, sharding)
    cls = type(p)
    if not isinstance(p, DTensor):
        sharded = _PARAM_CLASSES.get(cls)
        if sharded is None:
            sharded = _PARAM_CLASSES[cls] = type(cls.__name__, (DTensor, cls), {"__repr__": cls.__repr__})
        p.__class__ = sharded
    _as_dtensor(p, mesh)
    return p


def pin(t, sharding):
    """Keep ``t``'s storage on ``sharding`` (a write bringing another one is resharded)."""
    cell = t._cell
    cell.host = sharding
    set_class(cell, ShardedCell)


# ---------------------------------------------------------------------- ops on DTensors

def _hook(op, args, cfg, view_result):
    """Dispatch's distributed hook: an op with a DTensor argument runs as usual and its outputs
    are DTensors on that mesh; NotImplemented lets dispatch go on as for plain tensors."""
    if getattr(_GUARD, "on", False):
        return NotImplemented
    mesh = None
    for a in args:
        if isinstance(a, DTensor):
            if mesh is None:
                mesh = a._mesh
            elif a._mesh.jax_mesh != mesh.jax_mesh:
                raise NotImplementedError(f"aten.{op.name}: DTensor does not support cross-mesh operation yet! Got "
                                          f"meshes: {mesh!r} {a._mesh!r}")
    if mesh is None:
        return NotImplemented
    strict = STATE.grad      # under no_grad (an optimizer's step over its plain state) plain tensors mix in
    for a in args:
        if strict and isinstance(a, Tensor) and not isinstance(a, DTensor) and a.dim() > 0 and not _on_mesh(a, mesh):
            raise RuntimeError(f"aten.{op.name} got mixed torch.Tensor and DTensor, need to convert all torch.Tensor "
                               "to DTensor before calling distributed operators!")
    with _plain():
        out = _dispatch.apply(op, args, cfg, _view_result=view_result)
    if isinstance(out, tuple):
        return tuple(_as_dtensor(o, mesh) if isinstance(o, Tensor) else o for o in out)
    return _as_dtensor(out, mesh) if isinstance(out, Tensor) else out


def _on_mesh(t, mesh):
    data = t._data
    if isinstance(data, jax.core.Tracer):
        return True
    sharding = getattr(data, "sharding", None)
    return isinstance(sharding, NamedSharding) and sharding.mesh == mesh.jax_mesh


def plain_compute():
    """A context in which ops on DTensors run as on plain tensors (FSDP's and DDP's forward,
    where PyTorch computes with gathered, plain parameters)."""
    return _plain()


__all__ = ["DTensor", "distribute_tensor", "Placement", "Shard", "Replicate", "Partial", "DeviceMesh"]


def _resharded_input(x, mesh):
    """A plain tensor input sharded along dim 0 over ``mesh`` (all of its dimensions) when that
    divides evenly, differentiably; anything else unchanged."""
    if not isinstance(x, Tensor) or isinstance(x, DTensor) or x.dim() == 0 or x.shape[0] % mesh.size():
        return x
    spec = PartitionSpec(mesh.dims if len(mesh.dims) > 1 else mesh.dims[0])
    dst = NamedSharding(mesh.jax_mesh, spec)
    if isinstance(x._data, jax.core.Tracer):     # inside tensorgrad.compile: a sharding constraint
        return x if x.requires_grad else _wrap(jax.lax.with_sharding_constraint(x._data, dst))
    if x._data.sharding == dst:
        return x
    if not x.requires_grad:
        return _wrap(jax.device_put(x._data, dst))
    src = x._data.sharding

    @jax.custom_vjp
    def move(a):
        return jax.device_put(a, dst)

    move.defvjp(lambda a: (jax.device_put(a, dst), None), lambda _, g: (jax.device_put(g, src),))
    return call_jax(move, x)
