"""In-place writes: the checks before one, the commit, and the rebase of views' history.

``check_inplace(target, *others)`` raises PyTorch's error before anything changes (a leaf that
requires grad, a view of one, an inference tensor outside inference mode, a view made in no_grad
mode or by a multi-output function). ``commit_inplace(target, new)`` makes ``new`` the value of
``target``: it writes the storage, bumps the version and rebases the history; a view's base takes
a ``CopySlices`` node (wrapping the in-place op's own node where PyTorch does) and the view is
rebuilt from it (``sync_view``, ``AsStridedBackward0``).
"""

import weakref

from .._autograd.grad_mode import STATE
from .._autograd.node import OpNode, node_class, short_name
from .._ops.elementwise import to_copy
from .._ops.registry import OpDef
from .._ops import views as _views
from .._ops.views import compose_view as _compose, scatter_view as _scatter
from .._storage.cell import Cell
from .._storage.layout import OVERLAP, has_internal_overlap
from .tensor import Tensor
from .dispatch import apply

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
    "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
    "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
    "inplace to be tracked) or both outside (if you want the inplace to be tracked).")


MULTI_VIEW_SUFFIX = (
    " This view is the output of a function that returns multiple views. Such functions do not allow the "
    "output views to be modified inplace. You should replace the inplace operation by an out-of-place one.")
NO_GRAD_VIEW_SUFFIX = NO_GRAD_VIEW[NO_GRAD_VIEW.index(" Given"):]


def _check_rebase(view, indirect):
    """PyTorch's ``handle_view_on_rebase``: views made in no_grad mode or by multi-output
    functions (unbind, split, chunk) and views of them can't take part in an in-place write."""
    meta = view._creation
    if meta is None:
        return
    fn = view._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if meta == "no_grad" or fn is None:
        prefix = ("A view was created in" if fn is None else
                  f"Output {view._output_nr} of {short_name(fn)} is a view of a view which was created in")
        msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {view._output_nr} of {short_name(fn)} is a view and {modified} modified inplace."
    raise RuntimeError(msg + (MULTI_VIEW_SUFFIX if meta == "multi" else NO_GRAD_VIEW_SUFFIX))


def check_inplace(target, *others):
    """Raise PyTorch's error if writing ``target`` in place (with the Tensors ``others`` as
    the op's other inputs) is not allowed; runs before any change."""
    if target._inference and not STATE.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
            "to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 "
            "for more details.")
    if not STATE.grad:
        return
    base = target._base
    if base is None:
        if target._rg and target._grad_fn is None:
            raise RuntimeError(LEAF_INPLACE)
        return
    if not (target._rg or base._rg or any(isinstance(o, Tensor) and o._rg for o in others)):
        return
    _check_rebase(target, False)
    if base._rg and base._grad_fn is None:
        raise RuntimeError(VIEW_LEAF_INPLACE)


def _forget_old_self(node, target):
    """The in-place op's own node keeps target's old value as an immutable array (PyTorch
    keeps a clone of the original self), so it never checks target's version as its first
    argument. Where target is also another argument the node saves (``t.mul_(t)``,
    ``t.addcmul_(t, t)``), that entry stays: its backward fails as PyTorch's does, since the op
    itself modified it."""
    if isinstance(node, OpNode) and node.saved:
        holder = target._vc or target._cell
        node.saved = tuple(entry for entry in node.saved
                           if entry[1] is not holder or (len(entry) > 3 and entry[3] != 0)) or None


def commit_inplace(target, new):
    """Make ``new`` (a Tensor of target's shape and dtype) the value of ``target``.

    Writes the storage, bumps the version and rebases the history: the written tensor takes
    ``new``'s node; a view's base takes a CopySlices node and the view is rebuilt from it.
    """
    base = target._base
    if not STATE.grad or not (new._rg or target._rg or (base is not None and base._rg)):
        target._write(new._data)
        target._bump()
        return target
    if base is None:
        target._write(new._data)
        target._bump()
        _forget_old_self(new._grad_fn, target)
        _move_out_checks(new, target)
        old_fn, old_nr = target._grad_fn, target._output_nr
        target._grad_fn = new._grad_fn
        target._output_nr = new._output_nr
        target._rg = new._rg
        if new._grad_fn is None and new._rg:
            # writing a leaf's value into a plain tensor: connect through an identity node
            ident = apply(_views.alias_copy, (new,))
            target._grad_fn = ident._grad_fn
        _move_retained(target, old_fn, old_nr)
        return target
    steps, dyns = target._rel
    fn = new._grad_fn
    if (isinstance(fn, OpNode) and fn.avals is None and not fn.op.is_view and 0 not in fn.op.no_slot
            and fn.primals and fn.primals[0] is target._data):
        # ``new`` is an op applied to the view's current value (``v.mul_(2)``): as PyTorch,
        # CopySlices wraps that op, with next_functions (base's edge, the op's other edges).
        _forget_old_self(fn, target)
        node = _copy_slices_node(base, fn, steps, dyns)
        target._write(new._data)
    else:
        new_base = apply(_views.copy_slices, (base, new, dyns), (steps,))
        node = new_base._grad_fn
        base._write(new_base._data)
    if has_internal_overlap(target):
        node.__class__ = node_class("CopySlices", _OverlappingCopySlices)
    base._bump()
    old_fn, old_nr = base._grad_fn, base._output_nr
    base._grad_fn = node
    base._output_nr = 0
    base._rg = True
    _move_retained(base, old_fn, old_nr)
    if not _views.repeats(target._view[0]):
        target._vcache = new._data
        target._vgen = target._cell.gen
    target._rg = True
    target._sync_view()
    if isinstance(node, OpNode) and node.op is not _views.copy_slices and fn.out_checks:
        # CopySlices checks the output its wrapped node saved, the view. As PyTorch, the message
        # names the view's grad_fn after this write (AsStridedBackward0) while that node is
        # alive (held by the view), and else the node that saved it (``Exp``).
        _move_out_checks(new, target)
        node.out_checks = tuple(e[:5] + (weakref.ref(target._grad_fn), fn) for e in fn.out_checks)
    return target


def _move_retained(t, old_fn, old_nr):
    """As PyTorch's ``update_tensor_hooks_on_new_gradfn``: once ``t``'s grad_fn moved on (an in-place
    write), its ``retain_grad`` follows it to the new node; the hooks registered before stay on the
    old node, where they see the gradient of the old value."""
    if not t._retains or t._grad_fn is old_fn or t._grad_fn is None:
        return
    retained = old_fn._retain if old_fn is not None else None
    if retained and old_nr in retained and retained[old_nr]() is t:
        del retained[old_nr]
    t._grad_fn._register_retain(t._output_nr, weakref.ref(t))


def _move_out_checks(new, target):
    """A node that saved its output ``new`` now checks ``target``, which holds that value."""
    fn = new._grad_fn
    if isinstance(fn, OpNode) and fn.out_checks:
        holder = target._vc or target._cell
        fn.out_checks = tuple((e[0], holder, holder.version) + tuple(e[3:]) if e[1] is new._cell else e
                              for e in fn.out_checks)


class _OverlappingCopySlices(OpNode):
    """The CopySlices of a write into an expanded view: as PyTorch's, its backward cannot give the
    base its gradient (it would write the view's gradient into memory that repeats)."""

    def _check_versions(self, gops):
        if self.mask[0]:
            raise RuntimeError(OVERLAP)
        OpNode._check_versions(self, gops)


_CAST_OPS = {}


def _cast_op(inner, dtype):
    """``inner`` with its result cast to ``dtype`` (the in-place write of a promoted result)."""
    op = _CAST_OPS.get((inner, dtype))
    if op is None:
        def cast(*primals, cfg):
            return inner.bind(cfg)(*primals).astype(dtype)

        op = OpDef(inner.name + "_as_" + dtype.name, cast, inner.grad_fn, saves=inner.saves,
                   scalar_slots=inner.scalar_slots, no_slot=inner.no_slot)
        op.node_cls = inner.node_cls
        _CAST_OPS[(inner, dtype)] = op
    return op


def cast_result(new, target):
    """``new``, the result of an op on ``target``, cast to target's dtype for an in-place write.

    As PyTorch's in-place kernels cast while writing (``x.mul_(w)`` with a float64 ``w`` keeps
    ``MulBackward0``, whose backward casts the gradient back), the op's own node computes the
    cast; its other inputs keep their gradients' dtypes.
    """
    fn = new._grad_fn
    if not (isinstance(fn, OpNode) and fn.avals is None and not fn.op.is_view and not fn.out_checks):
        return apply(to_copy, (new,), (target._data.dtype,))
    dtype = target._data.dtype
    node = type(fn)(fn._next, _cast_op(fn.op, dtype), (fn.cfg,), fn.primals, fn.mask, fn.edge_pos, None)
    node.saved = fn.saved
    out = object.__new__(Tensor)
    out._cell = Cell(new._data.astype(dtype))
    out._view = None
    out._grad_fn = node
    out._rg = True
    return out


_COPY_SLICES_OPS = {}


def _copy_slices_op(inner):
    """The op of a CopySlices node wrapping ``inner``: write ``inner(view, *rest)`` into the base."""
    op = _COPY_SLICES_OPS.get(inner)
    if op is None:
        def copy_slices(base, dyns, *rest, steps, cfg):
            return _scatter(steps, base, dyns, inner.bind(cfg)(_compose(steps, base, dyns), *rest))

        op = OpDef("copy_slices_" + inner.name, copy_slices, "CopySlices", saves="unchecked", scalar_slots=False)
        _COPY_SLICES_OPS[inner] = op
    return op


def _copy_slices_node(base, fn, steps, dyns):
    """PyTorch's CopySlices around the in-place op's node ``fn`` (whose input 0 is the view)."""
    op = _copy_slices_op(fn.op)
    base_edge = base._edge()
    masked = [i for i, m in enumerate(fn.mask) if m]
    edge_pos = ((0,) if base._rg else ()) + tuple(pos for i, pos in zip(masked, fn.edge_pos) if i >= 1)
    cls = op.node_cls
    if cls is None:
        cls = op.node_cls = node_class("CopySlices")
    node = cls((base_edge,) + tuple(fn._next[1:]), op, (steps, fn.cfg), (base._data, dyns) + tuple(fn.primals[1:]),
               (base._rg, False) + tuple(fn.mask[1:]), edge_pos, None)
    node.saved = fn.saved
    return node


def sync_view(self):
    """Rebuild a view's history (AsStridedBackward0) once its storage was written in place,
    as PyTorch does whenever a view's grad_fn is read after the version moved.

    ``Tensor._sync_view``.
    """
    holder = self._vc or self._cell
    if self._attr_version == holder.version:
        return
    base = self._base
    if self._grad_fn is None and not base._rg:
        return
    _check_rebase(self, True)
    steps, dyns = self._rel
    prev = STATE.grad
    STATE.grad = True
    try:
        out = apply(_views.as_strided_view, (base, dyns), (steps,), _view_result=False)
    finally:
        STATE.grad = prev
    old_fn, old_nr = self._grad_fn, self._output_nr
    self._grad_fn = out._grad_fn
    self._output_nr = 0
    self._rg = out._rg
    self._attr_version = holder.version
    _move_retained(self, old_fn, old_nr)
