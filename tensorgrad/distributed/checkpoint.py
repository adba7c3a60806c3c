"""``torch.distributed.checkpoint`` (DCP): ``save`` writes one file per process, ``load`` reads
them back in place, onto any mesh.

``save(state_dict, checkpoint_id=folder)``: each process writes ``__<rank>_0.distcp`` (a
``tensorgrad.save`` file) holding the shards of every tensor that it holds (one replica of each:
a replicated tensor is written once), each with its place in the whole tensor; rank 0 writes
``.metadata`` (every tensor's shape and dtype, and the values that are not tensors). Nothing is
gathered; with several processes ``save`` returns when every process has written. ``load(state_dict, checkpoint_id=folder)`` reads every process's file (the folder is
shared, as with PyTorch's file system storage), assembles each tensor, and writes it in place
into ``state_dict``'s tensors: a DTensor keeps its own placements and mesh, so a checkpoint of
one mesh shape loads onto another. The format is tensorgrad's, not PyTorch's ``.distcp``.
"""

import os

import jax
import numpy as np

from .._api.creation import tensor as _tensor
from .._tensor import Tensor
from ..serialization import load as _load, save as _save
from . import _check_group, barrier

_META = ".metadata"


def _file(folder, rank):
    return os.path.join(folder, f"__{rank}_0.distcp")


def _check(checkpoint_id, storage, planner, process_group):
    if checkpoint_id is None:
        raise NotImplementedError("tensorgrad's distributed.checkpoint needs checkpoint_id= (a folder)")
    if storage is not None or planner is not None:
        raise NotImplementedError("storage_writer/storage_reader and planner are not supported by tensorgrad: "
                                  "checkpoints are files in the checkpoint_id folder")
    _check_group(process_group)
    return os.fspath(checkpoint_id)


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None, no_dist=False,
         use_collectives=True):
    """Write this process's shards of ``state_dict`` into the folder ``checkpoint_id``."""
    folder = _check(checkpoint_id, storage_writer, planner, process_group)
    os.makedirs(folder, exist_ok=True)
    shards, meta = {}, {"tensors": {}, "values": {}}
    for key, value in state_dict.items():
        if not isinstance(value, Tensor):
            meta["values"][key] = value
            continue
        data = value.detach()._data
        meta["tensors"][key] = (list(data.shape), str(value.dtype).replace("torch.", ""))
        pieces = []
        for shard in getattr(data, "addressable_shards", ()):
            if shard.replica_id == 0:
                index = [[s.start or 0, data.shape[d] if s.stop is None else s.stop]
                         for d, s in enumerate(shard.index)]
                pieces.append((index, _tensor(np.asarray(shard.data))))
        shards[key] = pieces
    _save(shards, _file(folder, jax.process_index()))
    if jax.process_index() == 0:
        meta["world"] = jax.process_count()
        _save(meta, os.path.join(folder, _META))
    if jax.process_count() > 1:
        barrier()           # every file is written when save returns, on every process
    return None


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None, process_group=None, no_dist=False):
    """Read the checkpoint in ``checkpoint_id`` into ``state_dict`` in place (its tensors keep
    their placements; its other values are replaced)."""
    folder = _check(checkpoint_id, storage_reader, planner, process_group)
    meta = _load(os.path.join(folder, _META), weights_only=False)
    files = [_load(_file(folder, r), weights_only=False) for r in range(meta["world"])]
    for key, target in state_dict.items():
        if key in meta["values"]:
            state_dict[key] = meta["values"][key]
            continue
        if key not in meta["tensors"]:
            raise RuntimeError(f"Missing key in checkpoint state_dict: {key}.")
        shape, _ = meta["tensors"][key]
        if not isinstance(target, Tensor):
            raise RuntimeError(f"distributed.checkpoint.load: {key!r} of the state_dict is not a tensor")
        if list(target.shape) != shape:
            raise RuntimeError(f"Size mismatch between saved {tuple(shape)} and current: {tuple(target.shape)} for "
                               f"{key}")
        whole = np.zeros(shape, np.asarray(files[0][key][0][1]._data).dtype if files[0][key] else np.float32)
        for pieces in files:
            for index, piece in pieces.get(key, ()):
                whole[tuple(slice(a, b) for a, b in index)] = np.asarray(piece._data)
        _write(target, whole)
    return None


def _write(target, whole):
    """``whole`` (host values) into ``target`` in place, on ``target``'s own sharding."""
    data = target._data
    value = whole.astype(np.asarray(data.addressable_shards[0].data).dtype, copy=False)
    array = jax.make_array_from_callback(value.shape, data.sharding, lambda index: value[index])
    target._write(array)
    target._bump()


__all__ = ["save", "load"]
