"""Dispatch: the path every op call takes (``apply``).

``apply(op, args, cfg)`` unwraps the Tensor arguments to jax arrays (a Python number becomes a
cached 0-d array), calls the op's cached, jitted forward and wraps the result. When grad mode
is on and an input requires grad, ``_record`` calls the forward too and attaches one node
(``OpNode``) that keeps the op, its configuration and its primals, with version-check entries
for the inputs (or outputs) its backward needs. A view op's result shares its input's storage
(``_make_output``).
"""

import traceback

import jax
import numpy as np

from .._cache import _SWEEP, SWEEP_EVERY, _top_level, sweep_if_due
from .._meta import abstract, has_meta, on_live
from .. import _device, _dtype
from .. import _autocast
from .._autograd.grad_mode import STATE
from .._autograd.node import node_class
from .._storage.cell import Cell, LazyCell
from .._storage.lazy import SWITCH as _DEFER, Pending, record as _deferred
from .recording import (_FLOAT_KIND, _NUMBER, _SCALAR_ARRAY_TYPES, _SCALAR_ARRAYS, _apply_deferred,  # noqa: F401
                        _join, _kind, _saved_by_spec, _saved_entries, _scalar_array, _INFERENCE_SAVED)
from .._storage.host import HostCell, live_array, sync_view
from .._storage.watch import note_read, on_watching
from .tensor import Tensor, _wrap

_WATCHING = False       # a storage watch is open in some thread (kept by watch.py)


def _set_watching(flag):
    global _WATCHING
    _WATCHING = flag


on_watching(_set_watching)

_META = False           # a meta array exists in this process (kept by _meta.py)


def _set_meta():
    global _META
    _META = True


on_live(_set_meta)


_AUTOCASTING = False    # some thread has an autocast region enabled (kept by _autocast.py)


def _set_autocasting(flag):
    global _AUTOCASTING
    _AUTOCASTING = flag


_autocast.on_autocast(_set_autocasting)

# Set by tensorgrad.distributed.tensor once a DTensor exists: ``hook(op, args, cfg, view_result)``
# runs an op with a DTensor argument (its results are DTensors) or returns NotImplemented.
_DISTRIBUTED = None
_DISTRIBUTED_TYPE = None    # the DTensor class, set with the hook


def broadcast_mismatch(shapes):
    """PyTorch's RuntimeError for the first pair of ``shapes`` (broadcast left to right) that
    does not broadcast, or None when they all do."""
    acc = shapes[0]
    for other in shapes[1:]:
        ndim = max(len(acc), len(other))
        a = (1,) * (ndim - len(acc)) + acc
        b = (1,) * (ndim - len(other)) + other
        for i in reversed(range(ndim)):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                return RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                                    f"non-singleton dimension {i}")
        acc = tuple(max(x, y) for x, y in zip(a, b))
    return None


def _broadcast_error(arrays, error):
    """PyTorch's RuntimeError for operands whose shapes do not broadcast, or that live on
    different devices (JAX raises a TypeError or ValueError); any other error is returned
    unchanged."""
    if "Received incompatible devices" in str(error):
        return _device_mismatch(arrays) or error
    if "incompatible shapes for broadcasting" not in str(error).lower():
        return error
    return broadcast_mismatch([tuple(a.shape) for a in arrays if hasattr(a, "shape")]) or error


def _device_mismatch(arrays):
    """PyTorch's error for an op given tensors on two devices (JAX refuses arrays committed to
    different devices; arrays never placed explicitly follow the others, as PyTorch's CPU scalars do)."""
    first = None
    for a in arrays:
        if isinstance(a, jax.Array) and getattr(a, "committed", True):
            dev = _device.of_array(a)
            if first is None:
                first = dev
            elif dev != first:
                return RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                                    f"{first} and {dev}!")
    return None


def _refuse_complex(op, arrays):
    """PyTorch's error for an op without a complex kernel given a complex array."""
    for a in arrays:
        kind = getattr(a, "dtype", None)
        if kind is not None and np.issubdtype(kind, np.complexfloating):
            error, message = op.real_only
            raise error(message.format(c=_dtype.FROM_NP[kind].c_name))


def apply(op, args, cfg=(), *, _view_result=True, _defer=False):
    """Run ``op`` on ``args`` (Tensors, Python numbers, jax arrays) and wrap the result.

    Records a node when grad mode is on and a Tensor argument requires grad; a view op's
    result shares its input's storage. A layout view whose value was not computed
    (``deferred_view``) is computed inside the kernel of an op that ``folds_views``.
    """
    if _SWEEP["traced"] >= SWEEP_EVERY:      # JAX's tracing caches are due to be emptied
        sweep_if_due()
    if _DISTRIBUTED is not None:
        out = _DISTRIBUTED(op, args, cfg, _view_result)
        if out is not NotImplemented:
            return out
    if _AUTOCASTING:
        args = _autocast.cast_args(op.name, args, Tensor)
    elif op.lazy and _DEFER.on and not (_WATCHING or STATE.functional or STATE.anomaly or STATE.inference
                                        or STATE.immediate):
        out = _apply_deferred(op, args, cfg)
        if out is not None:
            return out
    arrays = []
    record = False
    views = None
    scalars_as_arrays = op.scalar_slots
    # a view's source is read as ``meta``: a host cell's array is not compared whole for it, the
    # view compares the bytes it covers (``_make_output``)
    source = args[0] if op.is_view and _view_result else None
    for a in args:
        if isinstance(a, Tensor):
            if a._base is not None and STATE.grad:
                a._sync_view()
                if a._base._rg:
                    record = True       # a view requires grad when its base does
            # ``a._data``, inlined where it is cheap (the hottest read there is): a plain tensor's
            # cell value, or a view's cached value while its storage was not written
            if a._view is None:
                if _WATCHING:
                    note_read(a)
                cell = a._cell
                if type(cell) is LazyCell and op.lazy:
                    arrays.append(cell.host)    # a deferred result, read by a deferred op
                else:
                    arrays.append(cell.meta if a is source else cell.value)
            elif a._vgen == a._cell.gen and not isinstance(a._cell, HostCell):
                if _WATCHING:
                    note_read(a)
                arrays.append(a._vcache)
            elif op.folds_views and len(a._view[0]) == 1 and a._view[0][0][0].layout_view:
                if _WATCHING:
                    note_read(a)
                step = a._view[0][0]
                views = (views or ()) + ((len(arrays), step[0], step[1]),)
                arrays.append(a._cell.value)    # the view's source: the kernel computes the view
            else:
                arrays.append(a._data)
            if a._rg:
                record = True
        elif scalars_as_arrays and type(a) in _SCALAR_ARRAY_TYPES:
            arrays.append(_scalar_array(a))
        else:
            arrays.append(a)
    if op.real_only is not None:
        _refuse_complex(op, arrays)
    if record and STATE.grad and op.differentiable and not STATE.inference:
        return _record(op, args, arrays, cfg, _view_result, views, _defer)
    out = _forward(op, cfg, arrays, views, _defer)
    if STATE.functional and not STATE.grad:
        return _stopped(out)
    if type(out) is not tuple and not op.is_view:
        t = object.__new__(Tensor)
        t._cell = out.new_cell() if type(out) is Pending else Cell(out)
        t._view = None
        if STATE.inference:
            t._inference = True
        return t
    if type(out) is tuple:
        return tuple(_make_output(op, args, arrays, cfg, o, k, None, _view_result) for k, o in enumerate(out))
    return _make_output(op, args, arrays, cfg, out, None, None, _view_result)


def _stopped(out):
    """Results computed under no_grad inside a tensorgrad.func transform: gradients stop here."""
    if type(out) is tuple:
        return tuple(_wrap(jax.lax.stop_gradient(o)) for o in out)
    return _wrap(jax.lax.stop_gradient(out))


def _make_output(op, args, arrays, cfg, out, k, node, view_result):
    t = object.__new__(Tensor)
    if op.is_view and view_result:
        src = args[0]
        t._cell = cell = src._cell
        if src._vc is not None:
            t._vc = src._vc
        step = ((op, cfg, k),)
        dyn = (tuple(arrays[1:]),)
        if src._view is None:
            t._view = (step, dyn)
        else:
            t._view = (src._view[0] + step, src._view[1] + dyn)
        t._vcache = out
        t._vgen = cell.gen
        if isinstance(cell, HostCell):
            sync_view(t)
        base = src._base
        if base is None:
            t._base = base = src
            t._rel = (step, dyn)
        else:
            t._base = base
            t._rel = (src._rel[0] + step, src._rel[1] + dyn)
            t._creation = src._creation
        t._attr_version = (src._vc or cell).version
        if not STATE.grad:
            t._creation = "no_grad"
        elif k is not None:
            t._creation = "multi"
    else:
        t._cell = Cell(out)
        t._view = None
    if node is not None and _kind(out):
        t._grad_fn = node
        t._rg = True
        if k is not None:
            t._output_nr = k
    if STATE.inference:
        t._inference = True
    return t


def _forward(op, cfg, arrays, views, defer, mask=None):
    """The op's result on ``arrays``: computed by its kernel, as shapes only (the meta device),
    for a deferred view its shape and dtype alone, or, for an op that may be deferred, a
    placeholder (``mask``: which arrays its node differentiates, None without a node)."""
    if op.lazy:
        if (_DEFER.on and views is None and not defer and not _WATCHING and not STATE.functional
                and not STATE.anomaly and not STATE.immediate):     # (a meta array is never deferred)
            out = _deferred(op, cfg, arrays, mask)
            if out is not None:
                return out
        for i, a in enumerate(arrays):
            if type(a) is Pending:
                arrays[i] = a.resolve()
    try:
        if defer:
            return _view_aval(op, cfg, arrays[0])
        fn = op.forward(cfg) if views is None else op.composed_forward(cfg, views)
        if _META and has_meta(arrays):
            return abstract(fn, arrays)     # the meta device: shapes only
        return fn(*arrays)
    except (TypeError, ValueError) as error:
        raise _broadcast_error(arrays, error) from None


_VIEW_AVALS = {}


def _view_aval(op, cfg, source):
    key = (op, cfg, source.shape, source.dtype)
    aval = _VIEW_AVALS.get(key)
    if aval is None:
        if len(_VIEW_AVALS) > 4096:
            _VIEW_AVALS.clear()
        aval = _VIEW_AVALS[key] = jax.eval_shape(op.bind(cfg), jax.ShapeDtypeStruct(source.shape, source.dtype))
    return aval


def deferred_view(op, src, cfg=()):
    """``apply(op, (src,), cfg)`` for a layout view (``op.layout_view``) of a tensor, without
    computing the view's value now: an op that ``folds_views`` (the matrix products) computes it
    inside its own kernel, which reads the source in place; any other read computes it then
    (a view reads its storage as it is when read). ``linear`` reads its weight so."""
    value = src._cell.value if isinstance(src, Tensor) and src._view is None else None
    if (not isinstance(value, jax.Array) or isinstance(value, jax.core.Tracer) or STATE.functional or _WATCHING
            or (_DISTRIBUTED_TYPE is not None and isinstance(src, _DISTRIBUTED_TYPE))):
        return apply(op, (src,), cfg)
    view = apply(op, (src,), cfg, _defer=True)
    view._vcache = None
    view._vgen = -1
    if view._grad_fn is not None:
        # Its backward needs no value, so the node could keep its source for a second backward;
        # but the view's one consumer (the op that reads it) saves what it needs and is freed by
        # a backward first, so a second backward fails there. Freed with it, the node stops
        # holding the source array (a parameter's, which the optimizer then writes in place).
        view._grad_fn.holds = True
    return view


def _plain(t):
    """Whether ``t`` is a plain tensor (not a view) in an ordinary cell or one shared with numpy,
    outside every trace and watch, with nothing to record."""
    cell = t._cell
    if t._view is not None or STATE.functional or _WATCHING or (STATE.grad and t._rg) or (
            type(cell) is not Cell and type(cell) is not HostCell):
        return False
    meta = cell.meta            # no compare of memory shared with numpy
    return isinstance(meta, jax.Array) and not isinstance(meta, jax.core.Tracer) and not (
        _DISTRIBUTED_TYPE is not None and isinstance(t, _DISTRIBUTED_TYPE))


def deferred_row(src, index, select):
    """``src[index]`` (``select`` along dim 0, ``index`` in range) of a plain tensor, a view whose
    value is computed when first read (a view reads its storage as it is when read): a dataset's
    ``x[i]`` costs no kernel, and ``stack`` of such rows is one gather (``stacked_rows``). None
    where it does not apply (a view, a trace, a graph to record). The view is ``_make_output``'s
    of the select."""
    if not _plain(src):
        return None
    cell = src._cell
    meta = cell.meta
    key = (meta.shape, meta.dtype)
    aval = _ROW_AVALS.get(key)
    if aval is None:
        if len(_ROW_AVALS) > 4096:
            _ROW_AVALS.clear()
        aval = _ROW_AVALS[key] = jax.ShapeDtypeStruct(meta.shape[1:], meta.dtype)
    t = object.__new__(Tensor)
    t._cell = cell
    if src._vc is not None:
        t._vc = src._vc
    step = ((select, (0,), None),)
    dyn = ((index,),)
    t._view = t._rel = (step, dyn)
    t._vcache = aval            # the shape and dtype; the value is computed when first read
    t._vgen = -1
    t._base = src
    t._attr_version = (src._vc or cell).version
    if not STATE.grad:
        t._creation = "no_grad"
    if STATE.inference:
        t._inference = True
    return t


_ROW_AVALS = {}


def stacked_rows(tensors, select, gather):
    """``stack(tensors)`` of rows ``x[i]`` (``deferred_row``, or any one-step dim-0 select) of
    one plain tensor, as one ``gather`` of its rows, read now as each row would be (from the
    numpy memory of a tensor that shares it); else None."""
    first = tensors[0]
    base = first._base
    cell = first._cell
    if base is None or base._cell is not cell or not _plain(base) or (STATE.grad and any(t._rg for t in tensors)):
        return None
    index = []
    for t in tensors:
        view = t._view
        if t._cell is not cell or view is None or len(view[0]) != 1:
            return None
        op, cfg, _ = view[0][0]
        if op is not select or cfg != (0,):
            return None
        index.append(view[1][0][0])
    rows = np.fromiter((int(i) for i in index), np.int64, len(index))
    if rows.min() < 0 or rows.max() >= cell.meta.shape[0]:
        return None
    if type(cell) is not HostCell:
        return apply(gather, (cell.value, _device.put(rows)), (0,))
    array = live_array(base)
    if array is None or array.dtype != cell.meta.dtype:
        return None
    t = _wrap(_device.put(np.take(array, rows, axis=0)))
    if STATE.inference:
        t._inference = True
    return t


def _record(op, args, arrays, cfg, view_result, views=None, defer=False):
    edges = []
    mask = []
    edge_pos = []
    spec = op.saved_inputs
    saved = [] if spec is None else None
    no_slot = op.no_slot
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            if i in no_slot:
                mask.append(False)
                continue
            if a._inference and spec is None and op.saves != "none":
                raise RuntimeError(_INFERENCE_SAVED)
            if a._rg:
                edge_pos.append(len(edges))
                fn = a._grad_fn
                # ``a._edge()``, inlined for a non-view result of an op (the common operand)
                edges.append((fn, a._output_nr) if fn is not None and a._base is None else a._edge())
                mask.append(True)
            else:
                edges.append((None, 0))
                mask.append(False)
            if saved is not None:
                saved.append(a)
        else:
            mask.append(False)
            if op.scalar_slots and i not in no_slot and (type(a) in _SCALAR_ARRAY_TYPES or isinstance(a, _NUMBER)):
                edges.append((None, 0))
                if saved is not None and len(args) == 2:
                    # ``x * 2``, ``x / 2``: as PyTorch, only the number is kept, not x
                    saved = None
    holds = op.saves != "none"
    if spec is not None:
        saved, holds = _saved_by_spec(spec, args, mask)
        holds = holds or bool(op.saved_outputs) or op.saves == "unchecked"
    residuals = None
    if op.saves_residuals and views is None and _top_level() and not (_META and has_meta(arrays)):
        try:
            out, residuals = op.forward_saving(cfg, tuple(mask))(*arrays)
        except (TypeError, ValueError) as error:
            raise _broadcast_error(arrays, error) from None
    else:
        mask = tuple(mask)
        out = _forward(op, cfg, arrays, views, defer, mask)
    multi = type(out) is tuple
    avals = tuple((o.shape, o.dtype) for o in out) if multi else None
    cls = op.node_cls
    if cls is None:
        cls = op.node_cls = node_class(op.grad_fn)
    node = cls(tuple(edges), op, cfg, arrays, tuple(mask), tuple(edge_pos), avals)
    if views is not None:
        node.views = views
    if residuals is not None:
        node.res = residuals
    if not holds:
        node.holds = False
    if saved:
        node.saved = _saved_entries(saved) if spec is None else saved
    if STATE.anomaly:
        node._trace = traceback.format_stack()[:-3]
    if type(out) is Pending:
        j = iter(edge_pos)
        _join(node, out, [(k, edges[next(j)][0]) for k, m in enumerate(mask) if m])
    if not multi and not op.is_view:
        t = object.__new__(Tensor)
        t._cell = out.new_cell() if type(out) is Pending else Cell(out)
        t._view = None
        if _FLOAT_KIND.get(out.dtype):
            t._grad_fn = node
            t._rg = True
            if op.saved_outputs:
                node.out_checks = ((0, t._cell, 0, out.shape, out.dtype),)
        if STATE.inference:
            t._inference = True
        return t
    if multi:
        result = tuple(_make_output(op, args, arrays, cfg, o, k, node, view_result) for k, o in enumerate(out))
        outs = result
    else:
        result = _make_output(op, args, arrays, cfg, out, None, node, view_result)
        outs = (result,)
    kept = op.saved_outputs
    if kept == "all":
        node.out_checks = tuple((k, o._cell, 0, o._data.shape, o._data.dtype) for k, o in enumerate(outs) if o._rg)
    elif kept:
        node.out_checks = tuple((k, outs[k]._cell, 0, outs[k]._data.shape, outs[k]._data.dtype) for k in kept)
    return result
