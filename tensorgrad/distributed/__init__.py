"""``torch.distributed`` on JAX: the process group, collectives, and (in the submodules) device
meshes, DTensor, DDP and FSDP over JAX's sharding (GSPMD).

How PyTorch's notions map onto JAX's (JAX is single-controller per process: one Python process
drives all of its local devices):

* a **rank** is a process: ``get_rank()`` is ``jax.process_index()`` and ``get_world_size()`` is
  ``jax.process_count()``, as torchrun's ranks are processes. One process on a machine with 8
  devices (or 8 simulated CPU devices, ``XLA_FLAGS=--xla_force_host_platform_device_count=8``)
  has world size 1 and drives all 8.
* ``init_process_group`` reads the rendezvous as torchrun sets it (``env://``: ``MASTER_ADDR``,
  ``MASTER_PORT``, ``RANK``, ``WORLD_SIZE``; or ``tcp://host:port``) and, for a world of more
  than one process, calls ``jax.distributed.initialize(MASTER_ADDR:MASTER_PORT, WORLD_SIZE,
  RANK)`` (with gloo CPU collectives on CPU). JAX must connect before its backend starts, and
  importing tensorgrad starts it (the default generator's key is an array), so the backend is
  restarted there: call ``init_process_group`` before making tensors, as torchrun scripts do (a
  tensor made before it lives on the old backend and raises when used).
* the **collectives** (``all_reduce``, ``all_gather``, ``all_gather_into_tensor``,
  ``reduce_scatter``, ``reduce_scatter_tensor``, ``broadcast``, ``barrier``) run across
  processes on JAX: each process's tensor becomes its row of a global array sharded over one
  device per process, and a jitted reduction (XLA's collective) makes the result. No sockets
  of our own. With one process they are the identity, as PyTorch's are with world size 1.
* a ``DeviceMesh`` (``device_mesh.py``) is a ``jax.sharding.Mesh`` over ``jax.devices()``, every
  process's devices; a ``DTensor`` (``tensor/``) is a Tensor whose array carries a
  ``NamedSharding`` over it; ``fully_shard`` (``fsdp.py``) and ``DistributedDataParallel``
  (``tensorgrad.nn.parallel``) place parameters and inputs on a mesh and let XLA insert the
  collectives.

Groups other than the default one (``new_group``) are not supported: every ``group=`` must be
None.
"""

import datetime
import enum
import os

import jax
import numpy as np

from .._api.random import default_generator
from .._tensor import dispatch


NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."

_GROUP = {"on": False, "backend": None, "name": ""}


class RedOpType(enum.Enum):
    """PyTorch's reduction kinds (``ReduceOp.SUM`` prints as ``<RedOpType.SUM: 0>``)."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __repr__(self):
        return f"<RedOpType.{self.name}: {self.value}>"

    def __str__(self):
        return f"RedOpType.{self.name}"


class ReduceOp:
    """``ReduceOp.SUM``, ``AVG``, ``PRODUCT``, ``MIN``, ``MAX``, ``BAND``, ``BOR``, ``BXOR``."""
    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


class Work:
    """What a collective called with ``async_op=True`` returns: it has already finished."""

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True


def is_available():
    return True


def is_initialized():
    return _GROUP["on"]


def is_gloo_available():
    return True


def is_nccl_available():
    return _has_gpu()


def is_mpi_available():
    return False


def _env(name):
    value = os.environ.get(name)
    if value is None:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable {name} "
                         "expected, but not set")
    return value


def _check_backend(backend):
    if backend is None:
        return "gloo"
    if not isinstance(backend, str):
        raise TypeError(f"backend must be a string, got {type(backend).__name__}")
    names = [part.split(":")[-1].strip().lower() for part in backend.split(",")]
    for name in names:
        if name == "mpi":
            raise RuntimeError("Distributed package doesn't have MPI built in. MPI is only included if you build "
                               "PyTorch from source on a host that has MPI installed.")
        if name not in ("gloo", "nccl"):
            raise AssertionError(f"Unknown backend type {name}")
    if names == ["nccl"] and not _has_gpu():
        raise RuntimeError("ProcessGroupNCCL is only supported with GPUs, no GPUs found! (tensorgrad runs on the "
                           "devices JAX sees; use backend='gloo' on CPU)")
    return backend.lower()


def _has_gpu():
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Join the default process group: torchrun's environment (``env://``) or ``tcp://host:port``
    with ``rank`` and ``world_size``; a world of more than one process connects JAX's distributed
    runtime (``jax.distributed.initialize``) with the coordinator at ``MASTER_ADDR:MASTER_PORT``.

    ``backend`` is ``"gloo"`` (the default, JAX's gloo CPU collectives) or ``"nccl"`` (JAX's GPU
    collectives, where JAX has GPUs). ``store``, ``pg_options`` and ``device_id`` raise: the
    rendezvous is JAX's coordinator, not a Store.
    """
    if _GROUP["on"]:
        raise ValueError("trying to initialize the default process group twice!")
    backend = _check_backend(backend)
    for name, value in (("store", store), ("pg_options", pg_options), ("device_id", device_id)):
        if value is not None:
            raise NotImplementedError(f"init_process_group({name}=...) is not supported by tensorgrad: the rendezvous "
                                      "is JAX's coordinator (MASTER_ADDR:MASTER_PORT), which needs no Store")
    if timeout is not None and not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of typedatetime.timedelta, got {type(timeout)}")
    if not isinstance(group_name, str):
        raise TypeError(f"group_name must be a string, got {type(group_name).__name__}")
    method = "env://" if init_method is None else init_method
    if method.startswith("env://"):
        rank = int(_env("RANK")) if rank == -1 else rank
        world_size = int(_env("WORLD_SIZE")) if world_size == -1 else world_size
        address = f"{_env('MASTER_ADDR')}:{int(_env('MASTER_PORT'))}"
    elif method.startswith("tcp://"):
        address = method[len("tcp://"):].split("?")[0]
        if rank == -1 or world_size == -1:
            raise ValueError("rank parameter missing" if rank == -1 else "world size parameter missing")
    elif method.startswith("file://"):
        raise NotImplementedError("init_method='file://...' is not supported by tensorgrad: use env:// (torchrun) or "
                                  "tcp://host:port, JAX's coordinator")
    else:
        raise RuntimeError(f"No rendezvous handler for {method.split('://')[0]}://")
    rank, world_size = int(rank), int(world_size)
    if not 0 <= rank < world_size:
        raise RuntimeError(f"rank < size. {rank} vs {world_size}")
    if world_size > 1:
        _connect(address, world_size, rank, backend, timeout)
    elif jax.process_count() != 1:
        raise RuntimeError(f"WORLD_SIZE is 1 but JAX's distributed runtime has {jax.process_count()} processes")
    _GROUP.update(on=True, backend="nccl" if backend == "nccl" else "gloo", name=group_name)


def _connect(address, world_size, rank, backend, timeout):
    """``jax.distributed.initialize``, restarting JAX's backend (started at tensorgrad's import)."""
    from jax._src import distributed as jd, xla_bridge
    if jd.global_state.client is not None:      # connected already (by jax.distributed.initialize)
        if (jax.process_count(), jax.process_index()) != (world_size, rank):
            raise RuntimeError(f"JAX's distributed runtime is already connected as process {jax.process_index()} of "
                               f"{jax.process_count()}, not rank {rank} of {world_size}")
        return
    key = np.asarray(default_generator._state._data) if xla_bridge.backends_are_initialized() else None
    if key is not None:
        import jax.extend.backend
        jax.extend.backend.clear_backends()
    if backend != "nccl":
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    kwargs = {} if timeout is None else {"initialization_timeout": max(1, int(timeout.total_seconds()))}
    local = os.environ.get("LOCAL_RANK")
    if backend == "nccl" and local is not None:
        kwargs["local_device_ids"] = [int(local)]
    jax.distributed.initialize(address, world_size, rank, **kwargs)
    dispatch._SCALAR_ARRAYS.clear()
    if key is not None:
        default_generator._state._cell.value = jax.device_put(key)


def destroy_process_group(group=None):
    """Leave the default process group (and JAX's distributed runtime, for a world over one)."""
    _check_group(group)
    if not _GROUP["on"]:
        raise AssertionError("Process group cannot be None")
    if jax.process_count() > 1:
        jax.distributed.shutdown()
    _GROUP.update(on=False, backend=None, name="")


class group:
    """``dist.group.WORLD``: the default group, which tensorgrad's functions name as None."""
    WORLD = None


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """Not supported: tensorgrad has only the default process group (XLA's collectives over a
    mesh take the place of subgroups: see ``device_mesh``)."""
    raise NotImplementedError("tensorgrad.distributed has only the default process group: new_group is not "
                              "supported (shard over a DeviceMesh dimension instead)")


def _check_group(group):
    if group is not None:
        raise NotImplementedError("tensorgrad.distributed supports only the default process group (group=None)")


def _require(group=None):
    _check_group(group)
    if not _GROUP["on"]:
        raise ValueError(NOT_INITIALIZED)


def get_rank(group=None):
    _require(group)
    return jax.process_index()


def get_world_size(group=None):
    _require(group)
    return jax.process_count()


def get_backend(group=None):
    _require(group)
    return _GROUP["backend"]


def get_node_local_rank(fallback_rank=None):
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


# ---------------------------------------------------------------------- collectives

from ._collectives import (  # noqa: E402
    all_reduce as all_reduce, all_gather as all_gather, all_gather_into_tensor as all_gather_into_tensor,
    reduce_scatter as reduce_scatter, reduce_scatter_tensor as reduce_scatter_tensor, broadcast as broadcast,
    barrier as barrier,
)

__all__ = [
    "ReduceOp", "Work", "is_available", "is_initialized", "init_process_group", "destroy_process_group", "get_rank",
    "get_world_size", "get_backend", "get_node_local_rank", "all_reduce", "all_gather", "all_gather_into_tensor",
    "reduce_scatter", "reduce_scatter_tensor", "broadcast", "barrier", "is_gloo_available", "is_nccl_available",
    "is_mpi_available", "group", "new_group",
]
