"""``torch.distributed.tensor.parallel``: tensor parallelism (``parallelize_module`` with
``ColwiseParallel`` / ``RowwiseParallel``) on JAX's sharding.

``ColwiseParallel`` places an ``nn.Linear``'s weight and bias as ``Shard(0)`` on a 1-d mesh (an
``nn.Embedding``'s weight as ``Shard(1)``), ``RowwiseParallel`` its weight as ``Shard(1)`` and
bias as ``Replicate()`` (an Embedding's weight as ``Shard(0)``). The module's forward computes on
those sharded parameters as on plain tensors, its input and output constrained to the style's
layouts (``Replicate`` -> ``Shard(-1)`` for colwise, ``Shard(-1)`` -> ``Replicate`` for rowwise)
along the mesh's axis, keeping the axes of other mesh dimensions (a batch sharded over
``mesh["dp"]`` stays so); XLA inserts the all-reduce of a rowwise output. Inside
``tensorgrad.compile`` the layouts are left to XLA (the parameters' shardings decide). As with
PyTorch's default ``use_local_output=True`` the output is a plain tensor: here the whole
(global) value, sharded. ``use_local_output=False`` raises.
"""

import fnmatch
import warnings

import jax
from jax.sharding import NamedSharding, PartitionSpec

from ..._bridge import call_jax
from ..._tensor import Tensor, _wrap
from ...nn.modules.linear import Linear
from ...nn.modules.sparse import Embedding
from ..device_mesh import DeviceMesh
from . import DTensor, Replicate, Shard, _check_placements, place_parameter, plain_compute


class ParallelStyle:
    """The base of the parallel styles."""

    src_data_rank = 0


class _Linearwise(ParallelStyle):
    _kind = None

    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        if not use_local_output:
            raise NotImplementedError(f"{type(self).__name__}(use_local_output=False) is not supported by tensorgrad")
        self.input_layouts = (input_layouts or self._defaults[0],)
        self.output_layouts = (output_layouts or self._defaults[1],)
        self.use_local_output = use_local_output

    def __repr__(self):
        return (f"{type(self).__name__}(input_layouts={self.input_layouts}, output_layouts={self.output_layouts}, "
                f"use_local_output={self.use_local_output})")

    def _apply(self, module, mesh):
        if isinstance(module, Linear):
            plan = self._linear
        elif isinstance(module, Embedding):
            plan = self._embedding
        else:
            raise NotImplementedError(f"{type(self).__name__} currently only support nn.Linear and nn.Embedding!")
        placed = []
        for name, placement in plan.items():
            p = getattr(module, name, None)
            if p is not None:
                placed.append((p, _check_placements(tuple(p.shape), mesh, (placement,))))
        for p, placements in placed:
            place_parameter(p, mesh, placements)
        cls = type(module)
        wrapped = _CLASSES.get(cls)
        if wrapped is None:
            wrapped = _CLASSES[cls] = type(cls.__name__, (_TensorParallel, cls), {"__qualname__": cls.__qualname__})
        module.__class__ = wrapped
        module._tp = (mesh, self)
        return module


class ColwiseParallel(_Linearwise):
    """Shard a Linear's output features (weight and bias ``Shard(0)``) over a 1-d mesh."""
    _defaults = (Replicate(), Shard(-1))
    _linear = {"weight": Shard(0), "bias": Shard(0)}
    _embedding = {"weight": Shard(1)}


class RowwiseParallel(_Linearwise):
    """Shard a Linear's input features (weight ``Shard(1)``, bias ``Replicate()``) over a 1-d mesh."""
    _defaults = (Shard(-1), Replicate())
    _linear = {"weight": Shard(1), "bias": Replicate()}
    _embedding = {"weight": Shard(0)}


_CLASSES = {}


class _TensorParallel:
    """The mixin of a parallelized module's class: it computes on its DTensor parameters as on
    plain tensors, its input and output constrained to the style's layouts."""

    def forward(self, input, *args, **kwargs):
        mesh, style = self._tp
        with plain_compute():
            if not args and not kwargs and not isinstance(self, Embedding):
                input = _laid_out(input, mesh, style.input_layouts[0])
            out = super().forward(input, *args, **kwargs)
            return _laid_out(out, mesh, style.output_layouts[0])


def _laid_out(x, mesh, placement):
    """``x`` (a plain tensor) constrained to ``placement`` along ``mesh``'s one axis, its other
    axes kept; differentiable (the gradient takes the way back). Inside a trace: unchanged."""
    if not isinstance(x, Tensor) or x.dim() == 0 or isinstance(x._data, jax.core.Tracer):
        return x
    axis = mesh.dims[0]
    sharding = x._data.sharding
    spec = list(sharding.spec) if isinstance(sharding, NamedSharding) and sharding.mesh == mesh.jax_mesh else []
    spec += [None] * (x.dim() - len(spec))
    spec = [_without(e, axis) for e in spec]
    if placement.is_shard():
        d = placement.dim % x.dim()
        if x.shape[d] % mesh.size():
            return x
        spec[d] = axis if spec[d] is None else tuple(spec[d] if isinstance(spec[d], tuple) else (spec[d],)) + (axis,)
    dst = NamedSharding(mesh.jax_mesh, PartitionSpec(*spec))
    if sharding == dst:
        return x
    if not x.requires_grad:
        return _wrap(jax.device_put(x._data, dst))

    @jax.custom_vjp
    def move(a):
        return jax.device_put(a, dst)

    move.defvjp(lambda a: (jax.device_put(a, dst), None), lambda _, g: (jax.device_put(g, sharding),))
    return call_jax(move, x)


def _without(entry, axis):
    if entry == axis:
        return None
    if isinstance(entry, tuple):
        kept = tuple(e for e in entry if e != axis)
        return None if not kept else kept[0] if len(kept) == 1 else kept
    return entry


def parallelize_module(module, device_mesh=None, parallelize_plan=None, *, src_data_rank=0):
    """Apply ``parallelize_plan`` (a style, or ``{submodule name or fnmatch pattern: style}``)
    over the 1-d ``device_mesh``; returns ``module``."""
    if not isinstance(device_mesh, DeviceMesh):
        raise NotImplementedError("parallelize_module needs device_mesh= in tensorgrad (there is no current mesh)")
    if device_mesh.ndim != 1:
        raise ValueError(f"Tensor Parallel only accepts a 1D DeviceMesh, but found {device_mesh.ndim}D!If you have a "
                         "2-D or N-D device_mesh, consider passing in device_mesh[\"tp\"]")
    if src_data_rank not in (0, None):
        raise NotImplementedError("parallelize_module(src_data_rank=...): pass 0 or None")
    if parallelize_plan is None:
        warnings.warn("No parallelize_plan is provided and auto-parallel is not supported at the moment, so this "
                      "parallelize_module call will do nothing.")
        return module
    if isinstance(parallelize_plan, ParallelStyle):
        return parallelize_plan._apply(module, device_mesh)
    if not isinstance(parallelize_plan, dict):
        raise TypeError(f"Expect Union[ParallelStyle, Dict] for parallelize_plan, {type(parallelize_plan)} found!")
    for key, style in parallelize_plan.items():
        matched = [m for name, m in module.named_modules() if name and fnmatch.fnmatchcase(name, key)]
        if not matched:
            warnings.warn(f"Parallelize plan key '{key}' could not be resolved: no submodule matching token '{key}' in "
                          f"module {module}, skipping this plan entry.")
        for sub in matched:
            if any(isinstance(p, DTensor) for p in sub.parameters(recurse=False)):
                raise ValueError(f"parallelize_module: submodule {key!r} is parallelized already")
            style._apply(sub, device_mesh)
    return module


__all__ = ["parallelize_module", "ParallelStyle", "ColwiseParallel", "RowwiseParallel"]
