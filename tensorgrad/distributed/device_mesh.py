"""``torch.distributed.device_mesh``: a ``DeviceMesh`` over a ``jax.sharding.Mesh``.

The mesh spans ``jax.devices()``, every process's devices (JAX is single-controller per process):
on one process with 8 simulated CPU devices ``init_device_mesh("cpu", (8,))`` has 8 devices
while the world size is 1. Its axes are named by ``mesh_dim_names`` (``dim_0``, ``dim_1``, ...
when none are given). ``mesh["dp"]`` is the sub-mesh of one named dimension: the same JAX mesh,
of which it spans the named axes (a placement on it shards over those axes only).
"""

import math

import jax
import numpy as np
from jax.sharding import Mesh

from .._api.creation import tensor
from .._device import device as _device_class


class DeviceMesh:
    """An n-dimensional array of devices with named dimensions (PyTorch's DeviceMesh), over the
    JAX mesh ``jax_mesh``; ``dims`` are the mesh axes this (sub-)mesh spans."""

    def __init__(self, device_type, mesh=None, *, mesh_dim_names=None, _jax_mesh=None, _dims=None):
        if _jax_mesh is None:
            devices = _devices_of(device_type)
            ids = np.asarray(mesh.tolist() if hasattr(mesh, "tolist") else mesh, dtype=np.int64)
            names = tuple(mesh_dim_names) if mesh_dim_names is not None else tuple(f"dim_{i}" for i in range(ids.ndim))
            if len(names) != ids.ndim:
                raise RuntimeError(f"mesh_dim_names must have same length as mesh, got {len(names)} names for a "
                                   f"{ids.ndim}-d mesh")
            if ids.size and (ids.min() < 0 or ids.max() >= len(devices)):
                raise RuntimeError(f"DeviceMesh names device {int(ids.max())}, but JAX sees {len(devices)} "
                                   f"{device_type} devices")
            _jax_mesh = Mesh(np.array([devices[i] for i in ids.reshape(-1)], dtype=object).reshape(ids.shape), names)
            _dims = names
            self._named = mesh_dim_names is not None
        else:
            self._named = True
        self.device_type = device_type
        self.jax_mesh = _jax_mesh
        self.dims = tuple(_dims)

    @property
    def mesh_dim_names(self):
        return self.dims if self._named else None

    @property
    def ndim(self):
        return len(self.dims)

    @property
    def shape(self):
        return tuple(self.jax_mesh.shape[d] for d in self.dims)

    def size(self, mesh_dim=None):
        if mesh_dim is None:
            return math.prod(self.shape)
        return self.shape[mesh_dim]

    @property
    def mesh(self):
        """The devices' indices in ``jax.devices()`` (PyTorch's tensor of ranks), as a tensor."""
        index = {d: i for i, d in enumerate(jax.devices())}
        ids = np.vectorize(lambda d: index[d], otypes=[np.int64])(self.jax_mesh.devices)
        axes = list(self.jax_mesh.axis_names)
        others = tuple(axes.index(a) for a in axes if a not in self.dims)
        ids = ids[tuple(0 if i in others else slice(None) for i in range(ids.ndim))] if others else ids
        kept = [a for a in axes if a in self.dims]
        return tensor(np.transpose(ids, [kept.index(d) for d in self.dims]) if len(kept) > 1 else ids)

    def __getitem__(self, names):
        names = (names,) if isinstance(names, str) else tuple(names)
        if self.mesh_dim_names is None:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        for n in names:
            if n not in self.dims:
                raise KeyError(f"Invalid mesh_dim_name {n!r} specified. Valid mesh_dim_names are {list(self.dims)}.")
        return DeviceMesh(self.device_type, _jax_mesh=self.jax_mesh, _dims=names)

    def get_coordinate(self):
        """The coordinate of this process's first device in the mesh (None if it has none here)."""
        mine = jax.local_devices()[0]
        where = np.argwhere(self.jax_mesh.devices == mine)
        if not len(where):
            return None
        axes = list(self.jax_mesh.axis_names)
        return [int(where[0][axes.index(d)]) for d in self.dims]

    def get_local_rank(self, mesh_dim=None):
        if mesh_dim is None:
            if self.ndim != 1:
                raise RuntimeError("Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.")
            mesh_dim = 0
        if isinstance(mesh_dim, str):
            mesh_dim = self.dims.index(mesh_dim)
        return self.get_coordinate()[mesh_dim]

    def get_group(self, mesh_dim=None):
        raise NotImplementedError("DeviceMesh.get_group: tensorgrad has no process groups per mesh dimension "
                                  "(XLA inserts the collectives over the JAX mesh)")

    def __eq__(self, other):
        return isinstance(other, DeviceMesh) and self.jax_mesh == other.jax_mesh and self.dims == other.dims

    def __hash__(self):
        return hash((self.jax_mesh, self.dims))

    def __repr__(self):
        inner = ", ".join(f"{d}={s}" for d, s in zip(self.dims, self.shape)) if self._named else \
            ", ".join(str(s) for s in self.shape)
        strides = tuple(math.prod(self.shape[i + 1:]) for i in range(self.ndim))
        return f"DeviceMesh(({inner}), '{self.device_type}', stride={strides})"


def _devices_of(device_type):
    device_type = _device_class(device_type).type if not isinstance(device_type, str) or ":" in device_type \
        else device_type
    platform = {"cuda": "gpu"}.get(device_type, device_type)
    try:
        return jax.devices(platform)
    except RuntimeError:
        raise RuntimeError(f"Found no {device_type} devices: a DeviceMesh spans the devices JAX sees "
                           f"({jax.devices()})") from None


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """A DeviceMesh of ``mesh_shape`` over the first ``prod(mesh_shape)`` devices JAX sees of
    ``device_type`` (``"cpu"`` or ``"cuda"``), in ``jax.devices()`` order."""
    if backend_override is not None:
        raise NotImplementedError("init_device_mesh(backend_override=...) is not supported by tensorgrad")
    if isinstance(mesh_shape, int):
        mesh_shape = (mesh_shape,)
    mesh_shape = tuple(int(s) for s in mesh_shape)
    if mesh_dim_names is not None:
        mesh_dim_names = tuple(mesh_dim_names)
        if len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise RuntimeError(f"Each mesh_dim_name must be unique. Found repeated mesh_dim_name in mesh_dim_names "
                               f"{mesh_dim_names}")
        if len(mesh_dim_names) != len(mesh_shape):
            raise RuntimeError("mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                               f"{len(mesh_dim_names)} and len(mesh_shape):{len(mesh_shape)}.")
    devices = _devices_of(device_type)
    size = math.prod(mesh_shape)
    if size > len(devices):
        raise RuntimeError(f"Mesh should not be bigger than the {len(devices)} {device_type} devices JAX sees "
                           f"(PyTorch's default world size; tensorgrad's meshes span devices), but found {size} ranks!")
    return DeviceMesh(device_type, np.arange(size).reshape(mesh_shape), mesh_dim_names=mesh_dim_names)


__all__ = ["DeviceMesh", "init_device_mesh"]
