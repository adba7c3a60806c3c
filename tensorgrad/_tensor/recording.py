"""What a recorded op keeps, and the one-pass apply of ops that may be deferred.

``dispatch.apply`` records a node per op call; this module holds what that record is made of:
Python numbers as cached 0-d arrays (``_scalar_array``), the version-check entries of the
tensors a node saves (``_saved_entries``, ``_saved_by_spec``), and, for an op that may be
deferred (``_storage/lazy.py``), ``_apply_deferred``: ``apply`` and ``_record`` in one pass with
the forward deferred, and ``_join``, which registers the node with its segment for the segment's
one-program backward (``_autograd/deferred.py``).
"""

import math

import jax
import numpy as np

from .. import _dtype
from .._autograd.grad_mode import STATE
from .._autograd.node import AccumulateGrad, node_class
from .._storage.cell import Cell, LazyCell
from .._storage.lazy import record as _deferred
from .tensor import Tensor

_NUMBER = (int, float, complex, np.number, np.bool_)


_SCALAR_ARRAY_TYPES = {float: np.float64, int: np.int64, bool: np.bool_}
_SCALAR_ARRAYS = {}


def _scalar_array(value):
    """A cached 0-d device array for a Python number.

    Ops that take numbers as operands cast them to the promoted dtype inside the kernel, so a
    0-d array of the number's own type carries the exact value; passing a cached array to a
    compiled call is cheaper than converting the number on every call.
    """
    key = (value, type(value), value == 0 and math.copysign(1.0, value) < 0)
    arr = _SCALAR_ARRAYS.get(key)
    if arr is None:
        try:
            with jax.ensure_compile_time_eval():    # a concrete array even while jax traces
                arr = jax.device_put(np.asarray(value, _SCALAR_ARRAY_TYPES[type(value)]))
        except OverflowError:
            return value
        if len(_SCALAR_ARRAYS) > 4096:
            _SCALAR_ARRAYS.clear()
        _SCALAR_ARRAYS[key] = arr
    return arr


_FLOAT_KIND = {d.np: d.kind >= _dtype.FLOAT for d in _dtype.ALL}


def _kind(arr):
    return _FLOAT_KIND[arr.dtype]


def _apply_deferred(op, args, cfg):
    """``apply`` of an op that may be deferred, on its common arguments (tensors that are no
    views, in ordinary or deferred cells, outside inference mode; numbers; None), in one pass:
    what ``apply`` and ``_record`` do, with the forward deferred (``_storage/lazy.py``). None
    where the arguments or the op need the general path (which then does all of it)."""
    if op.real_only is not None:
        return None
    arrays = []
    edges = []
    mask = []
    edge_pos = []
    spec = op.saved_inputs
    saved = [] if spec is None else None
    record = False
    grad = STATE.grad and op.differentiable
    scalar_slots = op.scalar_slots
    no_slot = op.no_slot
    i = -1
    for a in args:
        i += 1
        t = type(a)
        if t is Tensor or isinstance(a, Tensor):
            if a._view is not None or a._base is not None or a._inference:
                return None
            cell = a._cell
            tc = type(cell)
            if tc is LazyCell:
                arrays.append(cell.host)
            elif tc is Cell:
                arrays.append(cell.value)
            else:
                return None
            if i in no_slot:
                mask.append(False)
                continue
            if a._rg:
                edge_pos.append(len(edges))
                fn = a._grad_fn
                edge = (fn, a._output_nr) if fn is not None else a._edge()
                edges.append(edge)
                mask.append(True)
                if record:
                    record.append((i, edge[0]))
                else:
                    record = [(i, edge[0])]
            else:
                edges.append((None, 0))
                mask.append(False)
            if saved is not None:
                saved.append(a)
        elif t is float or t is int or t is bool:
            mask.append(False)
            if scalar_slots:
                arrays.append(_scalar_array(a))
                if i not in no_slot:
                    edges.append((None, 0))
                    if saved is not None and len(args) == 2:
                        saved = None    # ``x * 2``: as PyTorch, only the number is kept, not x
            else:
                arrays.append(a)
        elif a is None:
            arrays.append(None)
            mask.append(False)
        else:
            return None
    if not (record and grad):
        out = _deferred(op, cfg, arrays, None)
        return None if out is None else _tensor_of(out)
    mask = tuple(mask)
    out = _deferred(op, cfg, arrays, mask)
    if out is None:
        return None
    cls = op.node_cls
    if cls is None:
        cls = op.node_cls = node_class(op.grad_fn)
    node = cls(tuple(edges), op, cfg, arrays, mask, tuple(edge_pos), None)
    if spec is not None:
        entries, holds = _saved_by_spec(spec, args, mask)
        if entries:
            node.saved = entries
        if not (holds or op.saved_outputs or op.saves == "unchecked"):
            node.holds = False
    else:
        if op.saves == "none":
            node.holds = False
        if saved:
            node.saved = _saved_entries(saved)
    _join(node, out, record)
    t = _tensor_of(out)
    cell = t._cell
    if _FLOAT_KIND.get(out.dtype):
        t._grad_fn = node
        t._rg = True
        if op.saved_outputs:
            node.out_checks = ((0, cell, 0, out.shape, out.dtype),)
    return t


def _tensor_of(out):
    """The tensor of the placeholder ``out``, in a new ``LazyCell`` (``out.new_cell()``, inlined)."""
    t = object.__new__(Tensor)
    t._cell = cell = object.__new__(LazyCell)
    cell.gen = cell.version = 0
    cell.host = out
    out.cell = cell
    t._view = None
    return t


def _join(node, out, inputs):
    """Register the node of a deferred result with its segment: its primals may hold placeholders
    (given arrays when the segment is computed), and the segment's one-program backward
    (``_autograd/deferred.py``) reads the equations it reaches (``reach``, bits by equation) and
    the leaves its gradient reaches (``uses``). ``inputs``: ``(position, node)`` of each input
    the node differentiates."""
    seg = node.seg = out.seg
    eq = node.eq = out.idx
    seg.nodes.append(node)
    reach = 1 << eq
    for k, fn in inputs:
        if fn is None:
            continue
        if fn.seg is seg:
            reach |= fn.reach
        else:
            ref = seg.step.eq[2][k]
            if type(fn) is AccumulateGrad and ref is not None and ref < 0:
                seg.uses.append((eq, k, fn))
            else:
                seg.closed = False      # the graph goes on outside the segment
    node.reach = reach


_INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
    "in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")


def _saved_by_spec(spec, args, mask):
    """The version-check entries of the tensors an op's node saves (``op.saved_inputs``), and
    whether it saves anything (a saved number, ``x * 2``'s 2, is freed after backward too)."""
    entries = []
    holds = False
    for pos, guard in spec:
        if pos >= len(args) or (guard is not None and not mask[guard]):
            continue
        holds = True
        t = args[pos]
        if isinstance(t, Tensor):
            if t._inference:
                raise RuntimeError(_INFERENCE_SAVED)
            holder = t._vc or t._cell
            entries.append((t, holder, holder.version, pos))
    return tuple(entries), holds


def _saved_entries(tensors):
    """Version-check entries ``(tensor, version holder, version, position)`` for the inputs a
    backward needs (the first tensor is the op's first argument).

    As in PyTorch's binary formulas, an input is needed when another input requires grad
    (``x * c`` keeps ``c`` for x's gradient, and keeps ``x`` only if ``c`` requires grad);
    a lone input is needed for its own gradient.
    """
    if len(tensors) == 1:
        t = tensors[0]
        holder = t._vc or t._cell
        return ((t, holder, holder.version, 0),)
    entries = []
    for i, t in enumerate(tensors):
        for j, other in enumerate(tensors):
            if j != i and other._rg:
                holder = t._vc or t._cell
                entries.append((t, holder, holder.version, i))
                break
    return tuple(entries)
