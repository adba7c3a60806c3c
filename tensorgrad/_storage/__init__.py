"""Storage: the cells that hold tensors' arrays, views over them, and the watch.

* ``cell``: ``Cell`` (a storage's current array, write generation and version counter),
  ``VersionCounter`` (the own counter of ``.data`` aliases), and compiled readers and writers
  of view chains (a view's value from its cell's array, and the functional write-back).
* ``layout``: a view's shape, strides and storage offset as PyTorch lays it out, derived from
  its chain of view steps (``geometry``), and whether its elements repeat.
* ``watch``: ``Watch``, the one way to observe what the current thread reads, writes and
  creates (used by ``tensorgrad.compile`` and the ``tensorgrad.func`` closure capture).
* ``overlay``: ``Overlay``, a thread's own values of some cells while it traces (the tracers of
  the tensors a trace lifts), which other threads do not see.
* ``host``: ``HostCell``, a storage shared with a numpy array both ways (``from_numpy``,
  ``as_tensor`` of an array, ``Tensor.numpy()``).
"""

from .cell import Cell as Cell, VersionCounter as VersionCounter, reader as reader, writer as writer
from .watch import Watch as Watch
from .overlay import Overlay as Overlay
from .host import HostCell as HostCell
