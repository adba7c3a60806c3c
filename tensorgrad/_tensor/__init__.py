"""The tensor layer: the Tensor facade and the paths an op call and a backward take.

Its seams, bottom to top (each module imports only those before it):

* ``tensor.py``: the Tensor's state: the class, its attributes and properties, conversions,
  ``Size``, and ``_wrap`` (a plain tensor over an array).
* ``dispatch.py``: ``apply``, the path of every op call: unwrapping, the cached scalar operands,
  recording the node, wrapping the outputs (views share their input's storage).
* ``inplace.py``: in-place writes: ``check_inplace``, ``commit_inplace``, ``CopySlices`` and the
  rebase of a view's history (``Tensor._sync_view``).
* ``backward.py``: the backward entry: roots, version errors, the create_graph replay,
  ``run_backward`` (``Tensor.backward``), and the ``GraphOps`` the engine is given.

The names below are what the rest of the package imports from ``tensorgrad._tensor``. The
layers above set ``REPR`` (the printer) and ``LEGACY_CONSTRUCTOR`` (``torch.Tensor(...)``) here.
"""

from .tensor import (
    Tensor as Tensor, Size as Size, _wrap as _wrap, _wrap_on_edge as _wrap_on_edge, _wrap_dim as _wrap_dim,
    _rebuild as _rebuild, _C_TYPE as _C_TYPE, BACKWARD_IN_TRANSFORM as BACKWARD_IN_TRANSFORM,
    VMAP_ITEM as VMAP_ITEM, NON_LEAF_GRAD_WARNING as NON_LEAF_GRAD_WARNING,
    FLOAT_OF_GRAD_WARNING as FLOAT_OF_GRAD_WARNING, NON_LEAF_REQUIRES_GRAD_OFF as NON_LEAF_REQUIRES_GRAD_OFF,
)
from .dispatch import (
    apply as apply, _record as _record, _make_output as _make_output, _saved_entries as _saved_entries,
    _scalar_array as _scalar_array, _broadcast_error as _broadcast_error, broadcast_mismatch as broadcast_mismatch,
    _kind as _kind, _stopped as _stopped, deferred_view as deferred_view, deferred_row as deferred_row,
    stacked_rows as stacked_rows,
    _NUMBER as _NUMBER, _SCALAR_ARRAY_TYPES as _SCALAR_ARRAY_TYPES, _FLOAT_KIND as _FLOAT_KIND,
)
from .inplace import (
    check_inplace as check_inplace, commit_inplace as commit_inplace, cast_result as cast_result,
    sync_view as _sync_view,
    _check_rebase as _check_rebase, LEAF_INPLACE as LEAF_INPLACE, VIEW_LEAF_INPLACE as VIEW_LEAF_INPLACE,
    NO_GRAD_VIEW as NO_GRAD_VIEW, MULTI_VIEW_SUFFIX as MULTI_VIEW_SUFFIX, NO_GRAD_VIEW_SUFFIX as NO_GRAD_VIEW_SUFFIX,
)
from .backward import (
    run_backward as run_backward, make_roots as make_roots, GRAPH_OPS as GRAPH_OPS,
    tensor_backward as _tensor_backward, _version_error as _version_error, _replay as _replay,
)
from .._autograd.node import short_name as _short_name  # noqa: F401

# Set by the layers above (tensorgrad/_api/methods.py); tensor.py reads them from here.
REPR = None
LEGACY_CONSTRUCTOR = None

# The two methods whose bodies need the modules above tensor.py.
Tensor._sync_view = _sync_view
Tensor.backward = _tensor_backward
_sync_view.__name__, _sync_view.__qualname__ = "_sync_view", "Tensor._sync_view"
_tensor_backward.__name__, _tensor_backward.__qualname__ = "backward", "Tensor.backward"
