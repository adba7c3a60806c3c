"""The compiled callable: its cache of programs per signature, the eager first call, tracing
(with retraces to lift more tensors), running a program and writing its results back, and the
differentiable programs of compiled forwards. What it does as the user sees it is the package's
docstring (``tensorgrad/_compile/__init__.py``).
"""

import collections
import functools
import gc
import os
import traceback
import warnings
import weakref

import jax
import jax.numpy as jnp

from .._cache import Cache, limits, value_key
from .._autograd import engine
from .._autograd.grad_mode import STATE
from .._autograd.node import CompiledFunctionBackward, node_class
from .._bridge import functional_scope, is_tensor
from .._tensor import Tensor, _wrap
from .recorder import _ACTIVE, _CELL, _FIXED, _GRAD, _Recorder
from .program import _OUT, _Lifted, _Program, _Runner, _hyperparameters, _layout, _optimizer_guard, _owner, _resolve

__all__ = ["CompiledFunction", "UnsupportedStep", "reset_all"]

_CONCRETIZATION = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                   jax.errors.TracerIntegerConversionError)
_MAX_RETRACES = 3
_LOG_LINES = 1000
_SHAPES_WARN = 4        # distinct shapes of one argument before the warning (and dynamic=True's eager runs)


class UnsupportedStep(Exception):
    """A step this module cannot compile; it runs eagerly (``fullgraph=True``: raises)."""


_Unsupported = UnsupportedStep
_ALL = weakref.WeakSet()        # every CompiledFunction, for ``reset_all``


def reset_all():
    """Drop the signatures and programs of every compiled function (``tensorgrad.compiler.reset``)."""
    for compiled in list(_ALL):
        compiled._signatures.clear()
        compiled._families.clear()
        compiled._log.append("reset: every program dropped")


class _Retrace(Exception):
    def __init__(self, entries):
        super().__init__(f"{len(entries)} more tensors to lift")
        self.entries = entries


# ---------------------------------------------------------------------- the compiled callable

class _Signature:
    """What a compiled function keeps for one call signature: the state it lifts, its programs
    (one per set of guards) and, once it cannot be compiled, why its calls run eagerly."""

    __slots__ = ("state", "programs", "eager")

    def __init__(self, state):
        self.state = state          # [(owner, kind)]
        self.programs = []          # [_Program]
        self.eager = None


class CompiledFunction:
    """``tensorgrad.compile(fn)``: ``fn`` run as cached XLA programs (see the module's docs).

    Its signatures and their programs live in its own ``compiled`` cache (``tensorgrad._cache``):
    beyond the limit the least recently used signature goes with its programs, and a later call
    with it starts again from an eager first call.
    """

    def __init__(self, fn, *, fullgraph=False, dynamic=None, state=None):
        self.fn = fn
        self._signatures = Cache("compiled", on_evict=self._evicted)
        self._families = {}     # a signature less its shapes -> _Family: new shapes trace at once
        self._log = collections.deque(maxlen=_LOG_LINES)
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self._state = state     # () -> the tensors known to be state before any call (a module's)
        self._traces = 0
        functools.update_wrapper(self, fn)
        _ALL.add(self)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def explain(self):
        """Why each program was traced, and why calls ran eagerly, one line each (the latest
        lines, at most 1000)."""
        return "\n".join(self._log)

    def __call__(self, *args, **kwargs):
        if _ACTIVE.recorders or STATE.functional:
            return self.fn(*args, **kwargs)
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=is_tensor)
        tensors = [x for x in leaves if isinstance(x, Tensor)]
        if any(isinstance(t._cell.value, jax.core.Tracer) for t in tensors):
            return self.fn(*args, **kwargs)     # inside the user's own jax transform: trace through
        copies = _copy_sliced(leaves)
        if copies:
            args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
            tensors = [x for x in leaves if isinstance(x, Tensor)]
            try:
                return self._call(treedef, leaves, args, kwargs, tensors)
            finally:
                _write_sliced_back(copies)
        return self._call(treedef, leaves, args, kwargs, tensors)

    def _call(self, treedef, leaves, args, kwargs, tensors):
        key, family_key = _signature(treedef, leaves)
        sig = self._signatures.get(key)
        if sig is None:
            family = self._families.get(family_key)
            if family is not None and family.sig.eager is None:
                return self._new_shape(key, family, args, kwargs, tensors)
            if self._state is not None:
                sig = self._keep(key, family_key, _Signature([(t, _CELL) for t in self._state()]))
                return self._trace(key, sig, args, kwargs, tensors, "first call (a module: its parameters "
                                   "and buffers are the state)")
            return self._first_call(key, family_key, args, kwargs, tensors)
        if sig.eager is not None:
            return self.fn(*args, **kwargs)
        for program in sig.programs:
            cells = program.cells(tensors)
            if cells is not None:
                return _execute(program, cells, tensors)
        why = sig.programs[-1].why_not(tensors) or "a guard failed" if sig.programs else "second call"
        return self._trace(key, sig, args, kwargs, tensors, why)

    def _keep(self, key, family_key, sig):
        self._signatures.put(key, sig, 0)
        self._families[family_key] = _Family(key, sig)
        return sig

    def _new_shape(self, key, family, args, kwargs, tensors):
        """A call whose arguments differ from a traced signature's only in shapes: traced at once
        with that signature's state (no eager call), warning when an argument keeps changing."""
        changes = _shape_changes(family.key, key)
        for k, old, new in changes:
            family.shapes.setdefault(k, {old}).add(new)
        many = [(k, family.shapes[k]) for k, _, _ in changes if len(family.shapes[k]) >= _SHAPES_WARN]
        if many and self.dynamic is True:
            self._log.append(f"running eagerly: argument {many[0][0]} has had {len(many[0][1])} shapes (dynamic=True)")
            return self.fn(*args, **kwargs)
        if many and self.dynamic is None and not family.warned:
            family.warned = True
            k, shapes = many[0]
            warnings.warn(f"tensorgrad.compile: argument {k} of {getattr(self.fn, '__name__', 'the step')} has had "
                          f"{len(shapes)} shapes ({', '.join(map(str, sorted(shapes)))}); each new shape traces "
                          "and compiles the step again. Pad it to a few sizes (buckets), or pass dynamic=True to "
                          "run calls with further new shapes eagerly", UserWarning, stacklevel=3)
        sig = _Signature(list(family.sig.state))
        self._signatures.put(key, sig, 0)
        family.key, family.sig = key, sig
        reason = "; ".join(f"argument {k} shape: {old} -> {new}" for k, old, new in changes) or "a new signature"
        return self._trace(key, sig, args, kwargs, tensors, reason)

    def _first_call(self, key, family_key, args, kwargs, tensors):
        """Run eagerly, watching which tensors outlive the call: the state to lift next time."""
        with _Recorder(tracing=False) as rec:
            result = self.fn(*args, **kwargs)
        skip = {id(t) for t in tensors}
        skip.update(id(t) for t in jax.tree_util.tree_leaves(result, is_leaf=is_tensor))
        state = {}
        for i, ref in rec.touched.items():
            t = ref()
            owner = rec.grad_of.get(i)
            # tensors with a history are this call's intermediates, kept alive by the result's graph
            if t is None or i in skip or id(owner) in skip or t._grad_fn is not None:
                continue
            entry = (owner, _GRAD) if owner is not None else (t, _CELL)
            state.setdefault(id(t._cell), entry)
        self._keep(key, family_key, _Signature(list(state.values())))
        self._log.append(f"call 1 ran eagerly and found {len(state)} tensors of state")
        return result

    def _trace(self, key, sig, args, kwargs, tensors, reason):
        entries = sig.state
        for attempt in range(_MAX_RETRACES + 1):
            entries = _dedupe(entries)
            try:
                program, cells = _build(self.fn, entries, args, kwargs, tensors, reason)
                break
            except _Retrace as more:
                if attempt == _MAX_RETRACES:
                    return self._fall_back(sig, args, kwargs, "the step keeps reading new tensors from outside")
                entries = entries + more.entries
                reason = f"traced again to lift {len(more.entries)} more tensors"
            except _Unsupported as error:
                return self._fall_back(sig, args, kwargs, str(error))
            except _CONCRETIZATION as error:
                return self._fall_back(sig, args, kwargs, _describe(error))
        sig.state = entries
        self._traces += 1
        self._log.append(f"traced program {self._traces}: {reason}")
        result = _execute(program, cells, tensors)
        if program.escaped:
            # the trace created tensors that outlive it (new optimizer state, ...); the next
            # call must lift them, so this program served this call only
            self._log.append(f"  it created {len(program.escaped)} lasting tensors, so the next call traces again")
            sig.state = entries + [(c, _FIXED) for c in program.escaped]
        else:
            sig.programs.append(program)
            self._signatures.grow(key, sig)
        return result

    def _fall_back(self, sig, args, kwargs, why):
        if self.fullgraph:
            raise RuntimeError(f"tensorgrad.compile(fullgraph=True): {why}")
        sig.eager = why
        self._log.append(f"running eagerly: {why}")
        warnings.warn(f"tensorgrad.compile: {why}; running {getattr(self.fn, '__name__', 'the step')} eagerly",
                      UserWarning, stacklevel=3)
        return self.fn(*args, **kwargs)

    def _evicted(self, key, sig):
        self._log.append(f"dropped a signature and its {len(sig.programs)} programs, the least recently used "
                         f"beyond the cache's limit ({limits()['compiled']})")


def _dedupe(entries):
    seen = {}
    for e in entries:
        cell = _resolve(*e)
        if cell is not None:
            seen.setdefault(id(cell), e)
    return list(seen.values())


def _copy_sliced(leaves):
    """Replace (in ``leaves``) each argument that is a view with tensor offsets (``X[i:i + 64]``,
    whose offset is an array so that slicing compiles once) and has no autograd history by a
    plain tensor of its value, so that every batch of an epoch shares one signature (a view is
    otherwise keyed by its identity). Returns ``[(view, copy, copy's version)]``."""
    copies = []
    for i, x in enumerate(leaves):
        if isinstance(x, Tensor) and x._view is not None and any(x._view[1]) and not x._rg:
            copy = leaves[i] = _wrap(x._data)
            copies.append((x, copy, copy._version))
    return copies


def _write_sliced_back(copies):
    """What the step wrote into a copied argument goes to the view, with the version counter
    moved as many times as the step wrote."""
    for view, copy, version in copies:
        writes = copy._version - version
        if writes:
            view._write(copy._data)
            for _ in range(writes):
                view._bump()


class _Family:
    """The signatures of a compiled function that differ only in shapes: the latest one (whose
    state a new shape starts from) and each argument's shapes so far."""

    __slots__ = ("key", "sig", "shapes", "warned")

    def __init__(self, key, sig):
        self.key = key
        self.sig = sig
        self.shapes = {}        # tensor argument position -> {shape}
        self.warned = False


def _tensor_shapes(key):
    return [part[1] for part in key[1] if type(part) is tuple and part and part[0] is _TENSOR]


def _shape_changes(old, new):
    """``[(tensor argument position, old shape, new shape)]`` between two signatures of a family."""
    return [(k, a, b) for k, (a, b) in enumerate(zip(_tensor_shapes(old), _tensor_shapes(new))) if a != b]


def _signature(treedef, leaves):
    """The call's signature, and its family's (the signature with each tensor's shape left out)."""
    parts = []
    for x in leaves:
        if isinstance(x, Tensor):
            view = x._view
            if view is not None and any(view[1]):
                view = id(x)        # a view with tensor arguments: its own program
            elif view is not None:
                view = view[0]
            d = x._cell.value
            parts.append((_TENSOR, d.shape, d.dtype, view, x._rg, x._grad_fn is None))
        else:
            try:
                hash(x)
            except TypeError:
                parts.append((type(x), id(x)))
            else:
                parts.append(value_key(x))      # 0.0 and -0.0, 1 and True differ; NaN equals NaN
    key = (treedef, tuple(parts), STATE.grad, STATE.inference)
    family = (treedef, tuple((_TENSOR, len(p[1])) + p[2:] if type(p) is tuple and p and p[0] is _TENSOR else p
                             for p in parts), STATE.grad, STATE.inference)
    return key, family


_TENSOR = object()      # marks a tensor argument's part of a signature


def _describe(error):
    """The user's line where a traced value was needed as a Python value."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # the tensorgrad package
    frames = traceback.extract_tb(error.__traceback__)
    user = [f for f in frames if not os.path.abspath(f.filename).startswith(here)
            and f"{os.sep}jax{os.sep}" not in f.filename]
    where = f" at {user[-1].filename}:{user[-1].lineno} ({user[-1].line})" if user else ""
    lines = str(error).strip().splitlines()
    return f"a traced value was needed as a Python value{where}: {type(error).__name__}: {lines[0] if lines else ''}"


# ---------------------------------------------------------------------- tracing

def _build(fn, entries, args, kwargs, tensors, reason):
    """Trace ``fn`` with the entries' and arguments' cells lifted; returns the program and cells."""
    state_cells = [_resolve(*e) for e in entries]
    cells, slots = _layout(state_cells, tensors)
    program = _Program(entries, slots, [(c.value.shape, c.value.dtype) for c in cells], reason)
    found = []

    def traced(values):
        lifted = _Lifted(cells)
        lifted.put(values)
        runs = engine.backward_runs()
        rec = _Recorder(tracing=True)
        try:
            with rec:
                box = [fn(*args, **kwargs)]
            program.backward_ran = engine.backward_runs() != runs
            found[:] = [e for e in rec.found.values() if id(_resolve(*e)) not in {id(c) for c in cells}]
            return _collect(program, rec, lifted, values, box, tensors)
        finally:
            for owner, before in rec.grad_writes.values():
                owner._grad_value = before
            rec.outside.close()
            lifted.restore()

    values = [c.value for c in cells]
    jitted = jax.jit(traced)
    trace = jitted.trace(values)
    if found:
        raise _Retrace(found)
    if STATE.grad and not program.backward_ran and any(program.requires_grad):
        if program.escaped or program.grad_sets:
            raise _Unsupported("a compiled forward that creates lasting tensors or sets .grad")
        program.run = _differentiable(fn, program, cells, args, kwargs)
    else:
        program.run = _Runner(jitted, trace, [k for k, _ in program.written], _dropped_grads(program))
    return program, cells


def _dropped_grads(program):
    """``(position, owner)`` of each lifted ``.grad`` of a tensor from outside that the step
    replaces with one it computes (``zero_grad()``, then a backward)."""
    replaced = {id(who) for who, what in program.grad_sets if what == "new" and type(who) is not tuple}
    return [(k, owner) for k, (owner, kind) in enumerate(program.entries) if kind is _GRAD and id(owner) in replaced]


def _collect(program, rec, lifted, values, box, tensors):
    """After the step ran on tracers: what it wrote, what it set, what it returned.

    Returns the program's outputs: ``(results, written cell values, new .grad values, values of
    created cells that outlive the trace)``.
    """
    cells = lifted.cells
    cell_ids = {id(c) for c in cells}
    program.optimizers = [(opt, _optimizer_guard(opt), _hyperparameters(opt)) for opt in rec.optimizers.values()]
    program.modules = [(m, m.training) for m in rec.modules.values()]
    args = {id(t): ("arg", k) for k, t in enumerate(tensors)}
    program.written = []
    written = []
    for k, (c, v) in enumerate(zip(cells, values)):
        if c.value is not v:
            program.written.append((k, lifted.version_delta(k)))
            written.append(c.value)
    # .grad of the tensors from outside: read (a guard) or set (replayed after each call)
    program.grad_guards = [(args.get(id(o), o), none) for o, none in rec.grad_reads.values() if id(o._cell) in cell_ids]
    program.grad_sets = []
    grads = []
    new_grads = set()
    for owner, before in rec.grad_writes.values():
        now = owner._grad_value
        if id(owner._cell) not in cell_ids or now is before:
            continue
        if now is None:
            program.grad_sets.append((args.get(id(owner), owner), "none"))
        elif id(now._cell) not in cell_ids and isinstance(now._cell.value, jax.core.Tracer):
            program.grad_sets.append((args.get(id(owner), owner), "new"))
            grads.append(now._data)
            new_grads.add(id(now._cell))
        else:
            program.grad_sets.append((args.get(id(owner), owner), now))
    # the result: tensors and arrays become outputs; anything else is returned as it was traced
    leaves, treedef = jax.tree_util.tree_flatten(box.pop(), is_leaf=is_tensor)
    statics, results, requires_grad, keep = [], [], [], set()
    for x in leaves:
        if isinstance(x, Tensor):
            statics.append(_OUT)
            results.append(x._data)
            requires_grad.append(x.requires_grad)
            keep.add(id(x._cell))
        elif isinstance(x, jax.core.Tracer):
            statics.append(_OUT)
            results.append(x)
            requires_grad.append(None)      # a jax array, returned as one
        else:
            statics.append(x)
    program.result = (treedef, statics)
    program.requires_grad = requires_grad
    # cells the trace created that something outside still holds (new optimizer state, ...)
    leaves = x = None
    rec.touched.clear()
    rec.grad_reads.clear()
    gc.collect()
    program.escaped = []
    for ref in rec.created:
        c = ref()
        if c is not None and id(c) not in keep and id(c) not in new_grads and isinstance(c.value, jax.core.Tracer):
            program.escaped.append(c)
    return results, written, grads, [c.value for c in program.escaped]


def _execute(program, cells, tensors):
    """Run a program on the cells' arrays and write its results back, as the eager step would
    have left every tensor."""
    if program.diff is not None:
        return _execute_differentiable(program, cells, tensors)
    results, written, grads, escaped = program.run([c.value for c in cells], cells)
    return _write_back(program, cells, tensors, results, written, grads, escaped)


def _write_back(program, cells, tensors, results, written, grads, escaped):
    for (k, delta), value in zip(program.written, written):
        cell = cells[k]
        cell.value = value
        cell.gen += 1
        cell.version += delta
    grads = iter(grads)
    for owner, what in program.grad_sets:
        owner = _owner(owner, tensors)
        if what == "none":
            owner._grad = None
        elif what == "new":
            owner._grad = _wrap(next(grads))
        else:
            owner._grad = what
    for cell, value in zip(program.escaped, escaped):
        cell.value = value
        cell.gen += 1
    treedef, statics = program.result
    wrapped = []
    node = None
    avals = [(v.shape, v.dtype) for v, rg in zip(results, program.requires_grad) if rg]
    for value, rg in zip(results, program.requires_grad):
        if rg:
            # it required grad in the step, whose backward already ran there: as in PyTorch, it
            # says so, and backpropagating through it again is an error
            if node is None:
                node = node_class("CompiledFunctionBackward", CompiledFunctionBackward)((), None, avals)
            t = _wrap(value)
            t._grad_fn = node
            t._output_nr = sum(1 for w in wrapped if isinstance(w, Tensor) and w._grad_fn is node)
            t._rg = True
            wrapped.append(t)
        else:
            wrapped.append(value if rg is None else _wrap(value))
    wrapped = iter(wrapped)
    return jax.tree_util.tree_unflatten(treedef, [next(wrapped) if s is _OUT else s for s in statics])


# ---------------------------------------------------------------------- compiled forwards

def _differentiable(fn, program, cells, args, kwargs):
    """The program of a compiled forward whose results require grad: ``jax.vjp`` of the step
    over the lifted tensors that require grad, run in a functional scope (``detach``, ``.data``
    and ``no_grad`` stop gradients), returning the VJP for the call's node."""
    tensors = [t for t in jax.tree_util.tree_leaves((args, kwargs), is_leaf=is_tensor) if isinstance(t, Tensor)]
    candidates = [o for o, kind in program.entries if kind is _CELL] + [("arg", k) for k in range(len(tensors))]
    positions = {}
    for who in candidates:
        o = _owner(who, tensors)
        if o.requires_grad and jnp.issubdtype(o._cell.value.dtype, jnp.inexact):
            positions.setdefault(id(o._cell), who)
    diff = [k for k, c in enumerate(cells) if id(c) in positions]
    flags = program.requires_grad

    def forward(diff_values, values):
        values = list(values)
        for k, v in zip(diff, diff_values):
            values[k] = v
        lifted = _Lifted(cells)
        lifted.put(values)
        try:
            with functional_scope():
                out = fn(*args, **kwargs)
            leaves = [x for x in jax.tree_util.tree_leaves(out, is_leaf=is_tensor)
                      if isinstance(x, (Tensor, jax.core.Tracer))]
            arrays = [x._data if isinstance(x, Tensor) else x for x in leaves]
            diff_out = [a for a, f in zip(arrays, flags) if f]
            rest = [a for a, f in zip(arrays, flags) if not f]
            written = [cells[k].value for k, _ in program.written]
            return diff_out, (rest, written)
        finally:
            lifted.restore()

    run = jax.jit(lambda diff_values, values: jax.vjp(lambda d: forward(d, values), diff_values, has_aux=True))
    program.diff = (diff, [positions[id(cells[k])] for k in diff])
    return run


def _execute_differentiable(program, cells, tensors):
    values = [c.value for c in cells]
    diff, owners = program.diff
    owners = [_owner(who, tensors) for who in owners]
    diff_out, vjp_fn, (rest, written) = program.run([values[k] for k in diff], values)
    grad_on = STATE.grad and any(o.requires_grad for o in owners)
    node = None
    if grad_on:
        avals = [(a.shape, a.dtype) for a in diff_out]
        node = node_class("CompiledFunctionBackward", CompiledFunctionBackward)(
            tuple(o._edge() for o in owners), vjp_fn, avals)
    results = []
    diff_out, rest = iter(diff_out), iter(rest)
    k = 0
    for flag in program.requires_grad:
        if flag:
            t = _wrap(next(diff_out))
            if node is not None:
                t._grad_fn = node
                t._output_nr = k
                t._rg = True
            k += 1
            results.append(t)
        else:
            value = next(rest)
            results.append(value if flag is None else _wrap(value))
    for (k, delta), value in zip(program.written, written):
        cells[k].value = value
        cells[k].gen += 1
        cells[k].version += delta
    treedef, statics = program.result
    it = iter(results)
    return jax.tree_util.tree_unflatten(treedef, [next(it) if s is _OUT else s for s in statics])
