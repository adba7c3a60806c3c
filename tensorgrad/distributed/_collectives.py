"""The collectives of ``tensorgrad.distributed`` with PyTorch's signatures, across processes on
JAX.

Each process's tensor becomes its row of a global array over one device per process
(``jax.make_array_from_single_device_arrays``); a jitted reduction or gather, whose result is
replicated on those devices, is XLA's collective (gloo on CPU, NCCL on GPU). With one process
(world size 1) every collective is the identity, as PyTorch's are. Results are written in
place (the tensor's version moves), outside autograd, as ``torch.distributed``'s are;
``async_op=True`` returns a finished ``Work``.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .._api.joining import stack
from .._cache import bounded_jit
from .._tensor import Tensor
from . import RedOpType, Work, _require

_INTEGRAL_ONLY = (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR)


def _check_tensor(t, name="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")


def _check_op(op, t):
    if not isinstance(op, RedOpType):
        raise TypeError(f"all_reduce(): op must be a ReduceOp (tensorgrad.distributed.ReduceOp.SUM, ...), got {op!r}")
    if op is RedOpType.PREMUL_SUM:
        raise NotImplementedError("ReduceOp.PREMUL_SUM is not supported by tensorgrad")
    if op in _INTEGRAL_ONLY and (t.dtype.is_floating_point or t.dtype.is_complex):
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")


def _done(async_op):
    return Work() if async_op else None


@functools.lru_cache(maxsize=None)
def _process_mesh(count):
    """A 1-d mesh ``("rank",)`` of each process's first device, in process order."""
    first = {}
    for d in jax.devices():
        first.setdefault(d.process_index, d)
    return Mesh(np.array([first[p] for p in range(count)]), ("rank",))


def _rows(t):
    """A global ``(world, *shape)`` array whose row ``rank`` is this process's tensor."""
    mesh = _process_mesh(jax.process_count())
    mine = mesh.devices[jax.process_index()]
    host = np.asarray(t.detach()._data)[None]
    sharding = NamedSharding(mesh, PartitionSpec("rank"))
    return jax.make_array_from_single_device_arrays((mesh.size,) + host.shape[1:], sharding,
                                                    [jax.device_put(host, mine)])


@bounded_jit(static_argnums=(1, 2))
def _collect(rows, how, replicated):
    if how == "gather":
        out = rows
    elif how == RedOpType.SUM:
        out = jnp.sum(rows, axis=0, dtype=rows.dtype)
    elif how == RedOpType.AVG:
        out = (jnp.mean(rows, axis=0) if jnp.issubdtype(rows.dtype, jnp.inexact)
               else jnp.sum(rows, axis=0) // rows.shape[0]).astype(rows.dtype)
    elif how == RedOpType.PRODUCT:
        out = jnp.prod(rows, axis=0, dtype=rows.dtype)
    elif how == RedOpType.MIN:
        out = jnp.min(rows, axis=0)
    elif how == RedOpType.MAX:
        out = jnp.max(rows, axis=0)
    else:
        fn = {RedOpType.BAND: jnp.bitwise_and, RedOpType.BOR: jnp.bitwise_or, RedOpType.BXOR: jnp.bitwise_xor}[how]
        out = functools.reduce(fn, [rows[i] for i in range(rows.shape[0])])
    return jax.lax.with_sharding_constraint(out, replicated)


def _across(t, how):
    """``t`` reduced (or, for ``how="gather"``, stacked) over the processes: a host array (with
    one process, ``t``'s own value, under a new leading axis for a gather)."""
    if jax.process_count() == 1:
        local = np.asarray(t.detach()._data)
        return local[None] if how == "gather" else local
    mesh = _process_mesh(jax.process_count())
    out = _collect(_rows(t), how, NamedSharding(mesh, PartitionSpec()))
    return np.asarray(out.addressable_data(0))


def _store(t, host):
    """Write ``host`` into ``t`` in place, outside autograd (its version moves)."""
    value = jax.device_put(np.ascontiguousarray(host).astype(t._data.dtype), t._data.sharding)
    t._write(value)
    t._bump()


def all_reduce(tensor, op=RedOpType.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over every process, in place (``op``: a ``ReduceOp``)."""
    _check_tensor(tensor)
    _require(group)
    _check_op(op, tensor)
    if jax.process_count() > 1:
        _store(tensor, _across(tensor, op))
    return _done(async_op)


def _check_list(tensor_list, name):
    if not isinstance(tensor_list, (list, tuple)) or not all(isinstance(t, Tensor) for t in tensor_list):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(tensor_list)} instead.")


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fill ``tensor_list`` (one tensor per rank) with every process's ``tensor``."""
    _check_list(tensor_list, "tensor_list")
    _check_tensor(tensor)
    _require(group)
    world = jax.process_count()
    if len(tensor_list) != world:
        raise RuntimeError(f"ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected length "
                           f"{world}, got {len(tensor_list)})")
    for i, out in enumerate(tensor_list):
        if tuple(out.shape) != tuple(tensor.shape):
            raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor size at index {i} (expected "
                               f"({', '.join(map(str, tensor.shape))}), got ({', '.join(map(str, out.shape))}))")
    rows = _across(tensor, "gather")
    for out, row in zip(tensor_list, rows):
        _store(out, row)
    return _done(async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every process's ``input_tensor``, concatenated along dim 0 (or stacked: an output of shape
    ``(world, *input.shape)``), into ``output_tensor``."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    _require(group)
    world = jax.process_count()
    shape = tuple(input_tensor.shape)
    stacked = (world,) + shape
    cat = (world * shape[0],) + shape[1:] if shape else stacked
    if tuple(output_tensor.shape) not in (stacked, cat):
        raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected "
                           f"({', '.join(map(str, cat))}), got ({', '.join(map(str, output_tensor.shape))}))")
    rows = _across(input_tensor, "gather")
    _store(output_tensor, rows.reshape(tuple(output_tensor.shape)))
    return _done(async_op)


def reduce_scatter_tensor(output, input, op=RedOpType.SUM, group=None, async_op=False):
    """``input`` reduced over the processes, then split along dim 0: this rank's chunk into ``output``."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _require(group)
    _check_op(op, input)
    world = jax.process_count()
    if output.dim() == 0 or input.dim() == 0 or input.shape[0] != world * output.shape[0]:
        raise RuntimeError(f"reduce_scatter_tensor: the input's dim 0 ({tuple(input.shape)}) must be world size "
                           f"({world}) times the output's ({tuple(output.shape)})")
    n, rank = output.shape[0], jax.process_index()
    _store(output, _across(input, op)[rank * n:(rank + 1) * n].reshape(tuple(output.shape)))
    return _done(async_op)


def reduce_scatter(output, input_list, op=RedOpType.SUM, group=None, async_op=False):
    """``input_list[r]`` reduced over the processes, into rank ``r``'s ``output``."""
    _check_tensor(output, "output")
    _check_list(input_list, "input_list")
    _require(group)
    _check_op(op, output)
    world = jax.process_count()
    if len(input_list) != world:
        raise RuntimeError("invalid input tensor list size, must be world size")
    _store(output, _across(stack(list(input_list)), op)[jax.process_index()].reshape(tuple(output.shape)))
    return _done(async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Rank ``src``'s ``tensor`` into every process's ``tensor``."""
    _check_tensor(tensor)
    _require(group)
    if src is None and group_src is None:
        raise ValueError("Either src or group_src must be set")
    root = src if src is not None else group_src
    world = jax.process_count()
    if not 0 <= root < world:
        raise RuntimeError(f"ProcessGroupGloo::broadcast: invalid root rank: {root}")
    if world > 1:
        _store(tensor, _across(tensor, "gather")[root])
    return _done(async_op)


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Wait until every process has reached this barrier."""
    _require(group)
    if device_ids is not None:
        raise NotImplementedError("barrier(device_ids=...) is for NCCL process groups; tensorgrad's barrier takes none")
    if jax.process_count() > 1:
        from jax.experimental import multihost_utils
        multihost_utils.sync_global_devices("tensorgrad.distributed.barrier")
    return _done(async_op)
