"""Deferred results: elementwise ops, whole reductions, convolutions and the classification loss
recorded when called, computed together, as one compiled program, when something first reads one
of them.

An eager op pays a compiled call (about 5 us on a CPU, where PyTorch's whole op takes 2-3 us);
a chain of small ops is dominated by it. So an op marked ``lazy`` (``DEFERRED`` below) whose
inputs are concrete arrays, Python numbers or results deferred in the same thread does not run:
its result is a ``Pending`` placeholder in a ``cell.LazyCell``, and the op is appended as an
equation to the segment of its deferred inputs (several of the thread's segments read together
become one, ``_absorb``; an op reading none starts one). Reading any value of a segment
(``cell.value``, hence ``t._data``, printing, ``.item()``, another op that is not deferred, a
backward) computes the whole segment with one call and puts every result into its cell; the
graph nodes recorded on placeholders get the arrays in their place (``_flush``). A backward
program of the segment (``_autograd/deferred.py``) may compute only the results still held; the
segment is then ``partial`` and computes the rest if a kept node or a cell reads it.

Shapes and dtypes are known without computing: a segment is a path in a trie of equations
(``_Step``), each step keyed by the op, its configuration, where its inputs come from, the mask
of its node and the types of the new inputs, and holding its result's shape and dtype
(``jax.eval_shape``, cached by op and input types); the path's last step keys the segment's
compiled program in the ``kernels`` cache. A training loop
builds the same path every step: its segments find their steps and programs. An op whose
shapes do not work together is never deferred (``eval_shape`` fails, and the eager op raises
PyTorch's error where it is called); an op with a complex operand is never deferred either.

A segment holds at most ``MAX_EQS`` equations (a longer loop of ops is cut into segments of
that length, whose programs repeat). ``TENSORGRAD_DEFER=0`` in the environment (or
``set_enabled(False)``) runs every op eagerly.
"""

import contextlib
import os
import sys
import threading

import jax
import numpy as np
from jax._src.array import ArrayImpl

from .._cache import _SWEEP, KERNELS, NUMBER_FREE, _top_level, config_key, jit
from .._ops import elementwise as _elementwise, nn_activation as _nn_activation, nn_conv as _nn_conv  # noqa: F401
from .._ops import nn_loss as _nn_loss, reduction as _reduction  # noqa: F401  (they register DEFERRED)
from .._ops.registry import OPS
from .cell import Cell, LazyCell, set_flush

MAX_EQS = 256
_MAX_STEPS = 200_000        # the trie is dropped (and grows again) beyond this many steps

# The ops deferred: elementwise arithmetic and math, casts, and whole sums and means; and
# convolutions and the log-softmax and NLL loss of ``cross_entropy``, so that a convolution and the
# activation after it, and a classifier's loss, are one program each (compiled once, called once)
DEFERRED = (
    "add", "sub", "rsub", "mul", "div", "neg", "abs", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "sigmoid", "relu", "reciprocal", "square", "pow", "pow_tensor", "sum", "mean",
    "convolution", "log_softmax", "nll_loss",
)


class _Switch:
    on = os.environ.get("TENSORGRAD_DEFER", "1") not in ("0", "false", "False", "off")


SWITCH = _Switch()


def set_enabled(flag):
    """Defer the ops of ``DEFERRED`` (True) or run every op at once (False); returns the old
    setting. Results deferred before are computed when read, as always."""
    old = SWITCH.on
    SWITCH.on = bool(flag)
    return old


def _mark(names):
    for name in names:
        OPS[name].lazy = True


_mark(DEFERRED)


class Pending:
    """The placeholder of a deferred result: its shape and dtype (as an array's, for what reads
    no element) and, once its segment is flushed, its ``value``."""

    __slots__ = ("seg", "idx", "shape", "dtype", "weak_type", "ndim", "size", "value", "cell", "__weakref__")

    def __init__(self, seg, idx, aval):
        self.seg = seg
        self.idx = idx
        self.shape, self.dtype, self.weak_type, self.ndim, self.size = aval
        self.value = None
        self.cell = None

    def new_cell(self):
        """The cell of the tensor this result becomes."""
        cell = object.__new__(LazyCell)
        cell.gen = 0
        cell.version = 0
        cell.host = self
        self.cell = cell
        return cell

    def resolve(self):
        """The value (its segment computed now if it was not)."""
        if self.value is None:
            if self.seg.done:
                return _complete(self)
            _flush(self.seg)
        return self.value

    def read(self):
        """Whether something may still read this result: its tensor's cell is alive (held by
        more than this placeholder)."""
        return self.cell is not None and self._holders() > _CELL_HELD

    def _holders(self):
        cell = self.cell
        return sys.getrefcount(cell)


def _held_alone():
    """``sys.getrefcount`` of a cell that only its placeholder holds (measured, as it depends on
    the interpreter)."""
    p = Pending(None, 0, ((), np.dtype(np.float32), False, 0, 1))
    p.new_cell()
    return p._holders()


class _Step:
    """A step of the trie of equation sequences: its equation ``(op, cfg, refs, mask)``, its
    result's ``(shape, dtype, weak_type, ndim, size)``, and the steps that follow it."""

    __slots__ = ("parent", "eq", "aval", "children", "depth", "__weakref__")

    def __init__(self, parent, eq, aval):
        self.parent = parent
        self.eq = eq
        self.aval = aval
        self.children = {}
        self.depth = 0 if parent is None else parent.depth + 1

    def equations(self):
        eqs = []
        step = self
        while step.parent is not None:
            eqs.append(step.eq)
            step = step.parent
        eqs.reverse()
        return eqs


class _Trie:
    root = _Step(None, None, None)
    steps = 0


_TRIE = _Trie()
_CELL_HELD = _held_alone()
_REFUSED = object()         # a child key whose op cannot be deferred with these inputs


class Segment:
    """The deferred equations of one thread since its last flush."""

    __slots__ = ("step", "leaves", "leaf_of", "pendings", "nodes", "done", "device", "closed", "ident", "uses",
                 "hooked", "partial", "values", "__weakref__")

    def __init__(self, ident):
        self.ident = ident      # the thread that records into it
        self.step = _TRIE.root
        self.leaves = []        # concrete inputs: arrays and Python numbers
        self.leaf_of = {}       # id(leaf) -> its index
        self.pendings = []      # one per equation
        self.nodes = []         # graph nodes whose primals hold placeholders
        self.done = False
        self.device = None      # the sharding of the committed arrays among the leaves
        # every edge of its nodes leads to a node of its own, a leaf's AccumulateGrad or nowhere
        # (the autograd layer keeps it): its backward can be one program of the leaves
        self.closed = True
        self.uses = []          # (equation, input position, AccumulateGrad) of each leaf its nodes differentiate
        self.hooked = False     # a hook or retain_grad was registered on one of its nodes
        self.partial = False    # computed in part (by a backward): the rest is computed when read
        self.values = None      # every result, once a partial segment computed them


class _Local(threading.local):
    def __init__(self):
        self.ident = threading.get_ident()


_LOCAL = _Local()
_LOCK = threading.RLock()
_NUMBERS = {float: float, int: int, bool: bool}


def record(op, cfg, arrays, mask=None):
    """Defer ``op`` on ``arrays`` (arrays, numbers, None and placeholders): its placeholder, or
    None where it cannot be deferred (the caller then computes it; placeholders among ``arrays``
    that it cannot read deferred are resolved in place).

    The equation joins the segment of its deferred inputs (several of this thread's segments
    read together become one); an op that reads none starts a segment of its own, so that what
    a segment holds does not depend on what else ran before it, and its program repeats."""
    seg = None
    ident = _LOCAL.ident
    for a in arrays:
        if type(a) is Pending:
            s = a.seg
            if s is not seg and not s.done and s.ident == ident:
                if seg is None:
                    seg = s
                else:
                    _absorb(seg, s)
    if seg is None or len(seg.pendings) >= MAX_EQS:
        seg = Segment(ident)
    step = _extend(seg, op, cfg, arrays, mask)
    if step is None:
        return None
    p = Pending(seg, len(seg.pendings), step.aval)
    seg.pendings.append(p)
    return p


def _extend(seg, op, cfg, arrays, mask):
    """Append the equation of ``op`` on ``arrays`` to ``seg`` (its step, and its new leaves):
    the step, or None where it cannot be deferred there (nothing is appended then). ``mask``
    (which arrays the node differentiates; None: no node) is part of the equation."""
    refs = []
    new = None
    leaf_of = seg.leaf_of
    device = seg.device
    i = -1
    for a in arrays:
        i += 1
        t = type(a)
        if t is Pending:
            if a.seg is seg:
                refs.append(a.idx)
                continue
            a = arrays[i] = a.resolve()
            t = type(a)
        if t is ArrayImpl or t in _NUMBERS:
            j = leaf_of.get(id(a))
            if j is not None:
                refs.append(-1 - j)
                continue
            if new is not None:
                for k, (b, _) in enumerate(new):
                    if b is a:
                        j = len(seg.leaves) + k
                        break
            if j is None:
                if t is ArrayImpl:
                    if a.dtype.kind == "c":
                        return None
                    placed = None
                    if a.committed:     # one program runs where its committed arrays are
                        placed = a.sharding
                        if device is None:
                            device = placed
                        elif placed != device:
                            return None     # the eager op raises PyTorch's error for two devices
                    aval = (a.shape, a.dtype, a.weak_type, placed)
                else:
                    aval = t
                j = len(seg.leaves) + (0 if new is None else len(new))
                new = [(a, aval)] if new is None else new + [(a, aval)]
            refs.append(-1 - j)
        elif a is None:
            refs.append(None)
        else:
            return None         # a tracer, a meta array, a host value: computed now
    try:
        ck = (cfg if cfg in NUMBER_FREE else config_key(cfg)) if cfg else cfg
        key = (op, ck, tuple(refs), mask, None if new is None else tuple(v for _, v in new))
        step = seg.step.children.get(key)
    except TypeError:           # an unhashable configuration
        return None
    if step is None:
        step = _new_step(seg, op, cfg, key, arrays, refs, mask)
    if step is _REFUSED:
        return None
    if new is not None:
        for a, _ in new:
            leaf_of[id(a)] = len(seg.leaves)
            seg.leaves.append(a)
        seg.device = device
    seg.step = step
    return step


def _absorb(dst, src):
    """Move the equations, placeholders and nodes of ``src`` (a segment of this thread) to the
    end of ``dst``; where they cannot join it (too many, another device), ``src`` is computed."""
    if len(dst.pendings) + len(src.pendings) > MAX_EQS or (
            dst.device is not None and src.device is not None and dst.device != src.device):
        _flush(src)
        return
    leaves = src.leaves
    offset = len(dst.pendings)
    for p, (op, cfg, refs, mask) in zip(src.pendings, src.step.equations()):
        args = [None if r is None else src.pendings[r] if r >= 0 else leaves[-1 - r] for r in refs]
        if _extend(dst, op, cfg, args, mask) is None:   # not expected: it was deferred before
            raise RuntimeError(f"a deferred {op.name} could not join another segment")
        p.seg = dst
        p.idx = len(dst.pendings)
        dst.pendings.append(p)
    for n in src.nodes:
        n.seg = dst
        n.eq += offset
        n.reach <<= offset
    dst.nodes.extend(src.nodes)
    dst.uses.extend((eq + offset, k, acc) for eq, k, acc in src.uses)
    dst.closed = dst.closed and src.closed
    dst.hooked = dst.hooked or src.hooked
    with _LOCK:
        src.done = True
    src.nodes = src.leaves = src.leaf_of = src.pendings = src.uses = None


_AVALS = {}                 # (op, configuration key, input types) -> result (shape, dtype, weak_type) or None


def _new_step(seg, op, cfg, key, arrays, refs, mask):
    """The step after ``seg.step`` for this equation, with its result's shape and dtype; or
    ``_REFUSED`` where the op cannot be deferred on such inputs (several results, a complex one,
    shapes that do not work together: the eager op then raises PyTorch's error)."""
    args = []
    types = []
    for a in arrays:
        if type(a) is Pending:
            args.append(jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type))
            types.append((a.shape, a.dtype, a.weak_type))
        else:
            args.append(a)
            types.append((a.shape, a.dtype, a.weak_type) if type(a) is ArrayImpl else type(a))
    signature = (op, key[1], tuple(types))
    if signature in _AVALS:
        aval = _AVALS[signature]
    else:
        _SWEEP["traced"] += 1   # a trace, as a program's: JAX's tracing caches grow with it
        try:
            out = jax.eval_shape(op.bind(cfg), *args)
        except Exception:       # noqa: BLE001  (the eager op raises it where it is called)
            out = None
        if not isinstance(out, jax.ShapeDtypeStruct) or out.dtype.kind == "c":
            aval = None
        else:
            shape = tuple(out.shape)
            aval = (shape, np.dtype(out.dtype), bool(out.weak_type), len(shape), int(np.prod(shape, dtype=np.int64)))
        if len(_AVALS) > 65536:
            _AVALS.clear()
        _AVALS[signature] = aval
    parent = seg.step
    if _TRIE.steps > _MAX_STEPS:
        with _LOCK:
            _TRIE.root = _Step(None, None, None)
            _TRIE.steps = 0
    if aval is None:
        parent.children[key] = _REFUSED
        return _REFUSED
    step = _Step(parent, (op, cfg, tuple(refs), mask), aval)
    parent.children[key] = step
    _TRIE.steps += 1
    return step


def _program(step):
    """The compiled program of the path ending at ``step``: leaves -> every equation's result
    (in the ``kernels`` cache)."""
    key = ("deferred", step)
    f = KERNELS.get(key)
    if f is None:
        eqs = [(op.bind(cfg), refs) for op, cfg, refs, _ in step.equations()]

        def segment(*leaves):
            values = []
            for fn, refs in eqs:
                values.append(fn(*[None if r is None else values[r] if r >= 0 else leaves[-1 - r] for r in refs]))
            return values
        f = jit(KERNELS, key, segment)
    return f


def _flush(seg, values=None, outputs=None):
    """Compute ``seg``'s results, put each into its cell and its placeholders' place.

    ``values`` (with ``outputs``, the equations they are the results of) are results its caller
    computed: a segment's backward program returns those of the cells still held. The segment
    is then ``partial``: it keeps its leaves, and the results a kept node or a cell reads later
    are computed then (``Pending.resolve``)."""
    with _LOCK:
        if seg.done:
            return
        seg.done = True
        pendings = seg.pendings
        if values is None:
            outputs = None
            values = _compute(seg) if pendings else ()
        for i, v in zip(range(len(pendings)) if outputs is None else outputs, values):
            p = pendings[i]
            p.value = v
            _settle_cell(p)
        partial = outputs is not None and len(outputs) < len(pendings)
        for node in seg.nodes:
            primals = node._primals
            waits = False
            if primals is not None:
                for i, a in enumerate(primals):
                    if type(a) is Pending:
                        if a.value is None:
                            waits = True
                        else:
                            primals[i] = a.value
            if not waits:
                node.seg = None
        seg.partial = partial
        if not partial:
            seg.leaves = seg.step = None
        seg.nodes = seg.leaf_of = seg.pendings = seg.uses = None


def _settle_cell(p):
    """Give ``p``'s cell, if it is still the placeholder's, the value and its ordinary class."""
    cell = p.cell
    if cell is not None and type(cell) is LazyCell and cell.host is p:
        del cell.host
        cell.__class__ = Cell       # (never overlaid: a trace computes it before it lifts it)
        cell.value = p.value
    p.cell = None


def _compute(seg):
    """Every result of ``seg``, by its program (by its ops one by one where that fails: the
    failing op's error is raised here, at the read). A segment of one equation (an activation
    between two products) runs the op's own kernel, the one an eager call compiles."""
    if seg.step.depth == 1:
        return _one_by_one(seg)
    try:
        program = _program(seg.step)
        if _top_level():
            return program(*seg.leaves)
        with jax.ensure_compile_time_eval():    # inside a trace: concrete, as they were recorded
            return program(*seg.leaves)
    except Exception:
        return _one_by_one(seg)


def _complete(p):
    """The value of ``p``, a result of a partial segment, computed now with the rest of it."""
    seg = p.seg
    with _LOCK:
        if p.value is None:
            if seg.values is None:
                seg.values = _compute(seg)
            p.value = seg.values[p.idx]
    return p.value


def settle(node):
    """Give ``node``'s primals the values of the deferred results among them."""
    seg = node.seg
    if seg is None:
        return
    if not seg.done:
        _flush(seg)
    if node.seg is not None:
        primals = node._primals
        if primals is not None:
            for i, a in enumerate(primals):
                if type(a) is Pending:
                    primals[i] = a.resolve()
        node.seg = None


def _one_by_one(seg):
    """The segment's results computed op by op (where its program failed: the failing op's
    error is raised here, at the read)."""
    values = []
    leaves = seg.leaves
    with contextlib.nullcontext() if _top_level() else jax.ensure_compile_time_eval():
        for op, cfg, refs, _ in seg.step.equations():
            args = [None if r is None else values[r] if r >= 0 else leaves[-1 - r] for r in refs]
            values.append(op.forward(cfg)(*args))
    return values


def flush(seg, values=None, outputs=None):
    """Compute ``seg`` if it was not (``values``: the results of the equations ``outputs``,
    computed by its caller)."""
    if seg is not None and not seg.done:
        _flush(seg, values, outputs)


def _flush_cell(pending):
    pending.resolve()
    _settle_cell(pending)


set_flush(_flush_cell)
