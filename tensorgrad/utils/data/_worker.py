"""DataLoader workers run in the calling process: what PyTorch's worker processes see, without
the processes.

Each worker has what a PyTorch worker has: its id and ``get_worker_info()`` while it runs, its
``worker_init_fn`` call, its own random streams (tensorgrad's global generator, ``random`` and
``numpy.random``, seeded from ``base_seed + id`` and swapped in only while it runs, so the
caller's streams are untouched as they are by worker processes) and, for an
``IterableDataset``, its own copy of the dataset, so that each worker yields the whole stream
unless it shards it by ``get_worker_info()``, exactly as with PyTorch's workers.
"""

import copy
import random
import traceback
from dataclasses import dataclass

import numpy as np

from ..._api.random import default_generator

_current = None


@dataclass(frozen=True)
class WorkerInfo:
    """The worker that is fetching: ``id`` (0 to ``num_workers - 1``), ``num_workers``, its
    ``seed`` and its ``dataset`` (its own copy for an IterableDataset)."""

    id: int
    num_workers: int
    seed: int
    dataset: object


def get_worker_info():
    """The WorkerInfo of the DataLoader worker running now, or None outside one.

    >>> from tensorgrad.utils.data import get_worker_info
    >>> get_worker_info() is None
    True
    """
    return _current


def _streams():
    return default_generator.initial_seed(), default_generator.get_state(), random.getstate(), np.random.get_state()


def _restore(streams):
    seed, state, py_state, np_state = streams
    default_generator.manual_seed(seed)
    default_generator.set_state(state)
    random.setstate(py_state)
    np.random.set_state(np_state)


class _KeyErrorMessage(str):
    """A KeyError's message shown as it is (a KeyError prints its argument's repr)."""

    def __repr__(self):
        return self


def _wrapped(error, worker_id):
    """``error`` as PyTorch re-raises a worker's exception: the same type, the message naming the
    worker and carrying the original traceback."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    message = f"Caught {type(error).__name__} in DataLoader worker process {worker_id}.\nOriginal {text}"
    if isinstance(error, KeyError):
        return KeyError(_KeyErrorMessage(message))
    try:
        return type(error)(message)
    except Exception:  # noqa: BLE001 - an exception type whose constructor wants other arguments
        return RuntimeError(message)


class Worker:
    """One in-process worker. ``run(fn, *args)`` calls ``fn`` as this worker: with its info and
    random streams in place, and its exceptions re-raised as PyTorch re-raises a worker's."""

    def __init__(self, worker_id, num_workers, base_seed, dataset, init_fn, iterable):
        self.id = worker_id
        seed = base_seed + worker_id
        if iterable:
            dataset = copy.deepcopy(dataset)
        self.info = WorkerInfo(worker_id, num_workers, seed, dataset)
        saved = _streams()
        default_generator.manual_seed(seed)
        random.seed(seed)
        np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
        self._streams = _streams()
        _restore(saved)
        self._init_error = None
        if init_fn is not None:
            try:
                self.run(init_fn, worker_id)
            except Exception as e:  # noqa: BLE001 - PyTorch reports it at the worker's first fetch
                self._init_error = e

    def run(self, fn, *args):
        global _current
        if self._init_error is not None:
            error, self._init_error = self._init_error, None
            raise _wrapped(error, self.id) from error
        saved, previous = _streams(), _current
        _restore(self._streams)
        _current = self.info
        try:
            return fn(*args)
        except StopIteration:
            raise
        except Exception as e:  # noqa: BLE001 - re-raised as PyTorch re-raises a worker's exception
            raise _wrapped(e, self.id) from e
        finally:
            _current = previous
            self._streams = _streams()
            _restore(saved)
