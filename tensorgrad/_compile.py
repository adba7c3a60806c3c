"""``tensorgrad.compile``: run an imperative step as one XLA program.

``compile(step)`` returns a callable that runs ``step`` (a forward pass, ``loss.backward()``,
``optimizer.step()``, ``zero_grad()``, dropout, ...) as one ``jax.jit`` program:

* The first call for a given argument signature runs eagerly and watches which tensors the step
  reads and writes that outlive the call: parameters, their ``.grad``, optimizer state, module
  buffers, the random generator's key. Those are the program's *state*.
* The next call traces the step with JAX tracers swapped into the state and the arguments (the
  tensors keep their identity; only the arrays inside them change), compiles it, and runs it.
  Every state tensor the step wrote gets its new value back after the call, its version counter
  moves as the eager step would move it, and ``.grad`` attributes the step set or cleared are set
  again. If the trace meets a tensor from outside that it did not lift, it lifts it and traces
  again; if tracing fails, every tensor is restored.
* Later calls check the program's guards (argument structure, shapes, dtypes and Python values,
  grad mode, which ``.grad`` attributes are set, optimizer hyperparameters) and run the compiled
  program; a failed guard traces a new program and keeps the old ones. ``explain()`` lists why
  each program was traced.
* A value Python needs inside the step (``loss.item()``, ``if x > 0``, printing a tensor) cannot
  be traced: the step then runs eagerly, with a warning naming the line, as PyTorch's compiler
  breaks its graph there. Return tensors and call ``.item()`` outside the step.
* When the step does not call ``backward()`` and returns tensors that require grad (a compiled
  forward, ``compile(model)``), the whole call is recorded as one ``CompiledFunctionBackward``
  node whose backward is the compiled program's ``jax.vjp``; ``detach()``, ``.data`` and
  ``no_grad`` inside stop gradients.

As with ``jax.jit``, Python side effects of the step (printing, appending to a list) happen while
tracing, not on every call.

>>> import tensorgrad as torch
>>> w = torch.tensor([1., 2.], requires_grad=True)
>>> opt = torch.optim.SGD([w], lr=0.1)
>>> @torch.compile
... def step(x):
...     opt.zero_grad()
...     loss = (w * x).sum()
...     loss.backward()
...     opt.step()
...     return loss
>>> [round(step(torch.tensor([1., 1.])).item(), 4) for _ in range(3)]
[3.0, 2.8, 2.6]
>>> w
tensor([0.7000, 1.7000], requires_grad=True)
"""

import functools
import gc
import os
import threading
import traceback
import warnings
import weakref

import jax
import jax.numpy as jnp

from ._autograd import engine
from ._autograd.grad_mode import STATE
from ._autograd.node import CompiledFunctionBackward, node_class
from ._bridge import functional_scope, is_tensor
from ._hooks import MODULE_CALL, OPTIMIZER_STEP
from ._storage.watch import Watch
from ._tensor import Tensor, _wrap

__all__ = ["CompiledFunction"]

_CONCRETIZATION = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                   jax.errors.TracerIntegerConversionError)
_MAX_RETRACES = 3


class _Active(threading.local):
    def __init__(self):
        self.recorders = []     # this thread's recorders of the compiled calls being run, innermost last


_ACTIVE = _Active()


# ---------------------------------------------------------------------- watching a call

class _Recorder(Watch):
    """What a call does to tensors, seen through a storage watch: the reads, writes, ``.grad``
    reads and writes and (in a trace) new cells of this thread while the call runs, plus the
    modules and optimizers it runs (announced through ``tensorgrad._hooks``). Other threads'
    work reaches no recorder of this one, and nothing is paid outside compiled calls.

    In the eager first call every tensor touched is remembered weakly; those still alive after
    the call are the state. In a trace, a tensor read whose array is concrete comes from outside
    and was not lifted (``found``); cells created by the trace are remembered (``created``) to
    find those that outlive it.
    """

    def __init__(self, tracing):
        self.tracing = tracing
        self.touched = {}           # id -> weakref (eager) or tensor (trace)
        self.found = {}             # id(cell) -> entry, for concrete tensors met in a trace
        self.outside = []           # (cell, value, gen, version) of those, to restore
        self.grad_of = {}           # id(grad tensor) -> the tensor whose ``.grad`` it was read as
        self.grad_reads = {}        # id(owner) -> (owner, was None): ``.grad`` read before set
        self.grad_writes = {}       # id(owner) -> (owner, ``.grad`` before the call)
        self.optimizers = {}
        self.modules = {}           # modules called (their ``training`` flag is a guard)
        self.created = []

    def _touch(self, t):
        i = id(t)
        if not self.tracing:
            ref = self.touched.get(i)
            if ref is None or ref() is not t:   # ids of dead tensors are reused
                self.touched[i] = weakref.ref(t)
            return
        self.touched[i] = t
        cell = t._cell
        if not isinstance(cell.value, jax.core.Tracer) and id(cell) not in self.found:
            owner = self.grad_of.get(i)
            self.found[id(cell)] = (owner, _GRAD) if owner is not None else (t, _CELL)
            self.outside.append((cell, cell.value, cell.gen, cell.version))   # restored after the trace

    # --- storage events (this thread's, while the call runs)
    def read(self, t):
        if not self.tracing or id(t) not in self.touched:
            self._touch(t)

    write = read

    def new_cell(self, cell):
        if self.tracing:
            self.created.append(weakref.ref(cell))

    def grad_read(self, t, g):
        i = id(t)
        if i not in self.grad_reads and i not in self.grad_writes:
            self.grad_reads[i] = (t, g is None)
        if g is not None:
            self.grad_of.setdefault(id(g), t)

    def grad_write(self, t, old):
        i = id(t)
        if i not in self.grad_writes:
            self.grad_writes[i] = (t, old)

    # --- announcements (listeners run in the announcing thread: keep only this thread's)
    def _module_called(self, module):
        recorders = _ACTIVE.recorders
        if recorders and recorders[-1] is self:
            self.modules[id(module)] = module

    def _optimizer_stepped(self, opt):
        """A compiled step that steps ``opt`` guards its hyperparameters (a changed learning rate
        traces a new program)."""
        recorders = _ACTIVE.recorders
        if recorders and recorders[-1] is self:
            self.optimizers[id(opt)] = opt

    def __enter__(self):
        _ACTIVE.recorders.append(self)
        self._listening = [OPTIMIZER_STEP.listen(self._optimizer_stepped)]
        if self.tracing:
            self._listening.append(MODULE_CALL.listen(self._module_called))
        return Watch.__enter__(self)

    def __exit__(self, *exc):
        Watch.__exit__(self, *exc)
        for handle in self._listening:
            handle.remove()
        _ACTIVE.recorders.pop()
        return False


def _optimizer_guard(opt):
    """The Python numbers of an optimizer's groups, which a trace bakes into its program."""
    return tuple(tuple((k, v) for k, v in group.items() if k != "params" and isinstance(v, (int, float, bool)))
                 for group in opt.param_groups)


# ---------------------------------------------------------------------- programs

_CELL, _GRAD, _FIXED = "cell", "grad", "fixed"


def _resolve(owner, kind):
    """The storage cell an entry names now: ``owner``'s own, that of ``owner.grad``, or (for a
    cell the step itself created) the cell."""
    if kind is _CELL:
        return owner._cell
    if kind is _FIXED:
        return owner
    g = owner._grad
    return None if g is None else g._cell


def _owner(who, tensors):
    """A ``.grad`` owner: a tensor from outside, or ``("arg", k)``, the call's k-th tensor argument."""
    return tensors[who[1]] if type(who) is tuple else who


def _layout(state_cells, tensors):
    """The distinct cells a call lifts (the state's, then the arguments') and, for each argument,
    the position of its cell among them."""
    cells = list(state_cells)
    where = {id(c): k for k, c in enumerate(cells)}
    slots = []
    for t in tensors:
        c = t._cell
        k = where.get(id(c))
        if k is None:
            k = where[id(c)] = len(cells)
            cells.append(c)
        slots.append(k)
    return cells, tuple(slots)


class _Program:
    """One traced version of the step, with the guards under which it is valid."""

    def __init__(self, entries, slots, avals, reason):
        self.entries = entries              # [(owner, kind)]: the state, lifted by path
        self.slots = slots                  # each argument's position among the lifted cells
        self.avals = avals                  # [(shape, dtype)] of each lifted cell
        self.reason = reason
        self.grad_guards = []               # [(owner, was None)]
        self.optimizers = []                # [(optimizer, hyperparameters)]
        self.modules = []                   # [(module, training)] of the modules called
        self.written = []                   # [(cell position, version delta)]
        self.grad_sets = []                 # [(owner, "none" | "new" | tensor)]
        self.escaped = []                   # cells the trace created that outlive it
        self.result = None                  # (treedef, [_OUT or the static value])
        self.requires_grad = []             # per output: a tensor's requires_grad, None for an array
        self.backward_ran = False
        self.run = None                     # values -> outputs (see _collect)
        self.diff = None                    # for a differentiable program: (entry positions, node)

    def cells(self, tensors):
        """The cells to lift for this call, or None when a guard fails."""
        state = []
        for owner, kind in self.entries:
            cell = _resolve(owner, kind)
            if cell is None:
                return None
            state.append(cell)
        cells, slots = _layout(state, tensors)
        if slots != self.slots:
            return None
        for cell, (shape, dtype) in zip(cells, self.avals):
            v = cell.value
            if v.shape != shape or v.dtype != dtype:
                return None
        for owner, was_none in self.grad_guards:
            if (_owner(owner, tensors)._grad is None) != was_none:
                return None
        for opt, hyper in self.optimizers:
            if _optimizer_guard(opt) != hyper:
                return None
        for module, training in self.modules:
            if module.training is not training:
                return None
        return cells


class _OutputMarker:
    def __repr__(self):
        return "<output>"


_OUT = _OutputMarker()


class _Lifted:
    """Puts tracers into the lifted cells for a trace, and the arrays back afterwards."""

    def __init__(self, cells):
        self.cells = cells
        self.saved = [(c.value, c.gen, c.version) for c in cells]

    def put(self, values):
        for c, v in zip(self.cells, values):
            c.value = v
            c.gen += 1

    def version_delta(self, k):
        return self.cells[k].version - self.saved[k][2]

    def restore(self):
        # a generation no view has cached: views re-read their value
        for c, (value, gen, version) in zip(self.cells, self.saved):
            c.value = value
            c.gen = max(c.gen, gen) + 1
            c.version = version


class _Unsupported(Exception):
    """A step this module cannot compile; it runs eagerly."""


class _Retrace(Exception):
    def __init__(self, entries):
        super().__init__(f"{len(entries)} more tensors to lift")
        self.entries = entries


# ---------------------------------------------------------------------- the compiled callable

class CompiledFunction:
    """``tensorgrad.compile(fn)``: ``fn`` run as cached XLA programs (see the module's docs)."""

    def __init__(self, fn):
        self.fn = fn
        self._programs = {}         # signature -> [_Program]
        self._state = {}            # signature -> [(owner, kind)]: the state to lift
        self._eager = {}            # signature -> why calls with it run eagerly
        self._log = []
        self.fullgraph = False
        functools.update_wrapper(self, fn)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def explain(self):
        """Why each program was traced, and why calls ran eagerly, one line each."""
        return "\n".join(self._log)

    def __call__(self, *args, **kwargs):
        if _ACTIVE.recorders or STATE.functional:
            return self.fn(*args, **kwargs)
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=is_tensor)
        tensors = [x for x in leaves if isinstance(x, Tensor)]
        if any(isinstance(t._cell.value, jax.core.Tracer) for t in tensors):
            return self.fn(*args, **kwargs)     # inside the user's own jax transform: trace through
        key = _signature(treedef, leaves)
        if key in self._eager:
            return self.fn(*args, **kwargs)
        programs = self._programs.get(key)
        if programs is None:
            return self._first_call(key, args, kwargs, tensors)
        for program in programs:
            cells = program.cells(tensors)
            if cells is not None:
                return _execute(program, cells, tensors)
        why = "a guard failed (.grad set or cleared, an optimizer hyperparameter, a tensor's storage or shape)"
        return self._trace(key, args, kwargs, tensors, why if programs else "second call")

    def _first_call(self, key, args, kwargs, tensors):
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
        self._state[key] = list(state.values())
        self._programs[key] = []
        self._log.append(f"call 1 ran eagerly and found {len(state)} tensors of state")
        return result

    def _trace(self, key, args, kwargs, tensors, reason):
        entries = self._state[key]
        for attempt in range(_MAX_RETRACES + 1):
            entries = _dedupe(entries)
            try:
                program, cells = _build(self.fn, entries, args, kwargs, tensors, reason)
                break
            except _Retrace as more:
                if attempt == _MAX_RETRACES:
                    return self._fall_back(key, args, kwargs, "the step keeps reading new tensors from outside")
                entries = entries + more.entries
                reason = f"traced again to lift {len(more.entries)} more tensors"
            except _CONCRETIZATION + (_Unsupported,) as error:
                return self._fall_back(key, args, kwargs, _describe(error))
        self._state[key] = entries
        self._log.append(f"traced program {len(self._programs[key]) + 1}: {reason}")
        result = _execute(program, cells, tensors)
        if program.escaped:
            # the trace created tensors that outlive it (new optimizer state, ...); the next
            # call must lift them, so this program served this call only
            self._log.append(f"  it created {len(program.escaped)} lasting tensors, so the next call traces again")
            self._state[key] = entries + [(c, _FIXED) for c in program.escaped]
        else:
            self._programs[key].append(program)
        return result

    def _fall_back(self, key, args, kwargs, why):
        if self.fullgraph:
            raise RuntimeError(f"tensorgrad.compile(fullgraph=True): {why}")
        self._eager[key] = why
        self._log.append(f"running eagerly: {why}")
        warnings.warn(f"tensorgrad.compile: {why}; running {getattr(self.fn, '__name__', 'the step')} eagerly",
                      UserWarning, stacklevel=3)
        return self.fn(*args, **kwargs)


def _dedupe(entries):
    seen = {}
    for e in entries:
        cell = _resolve(*e)
        if cell is not None:
            seen.setdefault(id(cell), e)
    return list(seen.values())


def _signature(treedef, leaves):
    parts = []
    for x in leaves:
        if isinstance(x, Tensor):
            view = x._view
            if view is not None and any(view[1]):
                view = id(x)        # a view with tensor arguments: its own program
            elif view is not None:
                view = view[0]
            d = x._cell.value
            parts.append((d.shape, d.dtype, view, x._rg, x._grad_fn is None))
        else:
            try:
                hash(x)
                parts.append((type(x), x))
            except TypeError:
                parts.append((type(x), id(x)))
    return (treedef, tuple(parts), STATE.grad, STATE.inference)


def _describe(error):
    """The user's line where a traced value was needed as a Python value."""
    here = os.path.dirname(os.path.abspath(__file__))
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
            for cell, value, gen, version in rec.outside:
                cell.value, cell.gen, cell.version = value, max(cell.gen, gen) + 1, version
            lifted.restore()

    values = [c.value for c in cells]
    jitted = jax.jit(traced)
    jitted.trace(values)
    if found:
        raise _Retrace(found)
    if STATE.grad and not program.backward_ran and any(program.requires_grad):
        if program.escaped or program.grad_sets:
            raise _Unsupported("a compiled forward that creates lasting tensors or sets .grad")
        program.run = _differentiable(fn, program, cells, args, kwargs)
    else:
        program.run = jitted
    return program, cells


def _collect(program, rec, lifted, values, box, tensors):
    """After the step ran on tracers: what it wrote, what it set, what it returned.

    Returns the program's outputs: ``(results, written cell values, new .grad values, values of
    created cells that outlive the trace)``.
    """
    cells = lifted.cells
    cell_ids = {id(c) for c in cells}
    program.optimizers = [(opt, _optimizer_guard(opt)) for opt in rec.optimizers.values()]
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
    results, written, grads, escaped = program.run([c.value for c in cells])
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
