"""A traced program of a compiled step, the guards under which it is valid, and the lifting of
cells (tracers in for a trace, in this thread's overlay of the cells only)."""

import jax

from .._cache import config_key
from .._storage.overlay import Overlay
from .._storage.ownership import GRAD_REFS, OWNED_REFS, grad_refs, refs
from .recorder import _CELL, _FIXED


def _hyperparameters(opt):
    """The Python numbers of an optimizer's groups, which a trace bakes into its program."""
    return tuple(tuple((k, v) for k, v in group.items() if k != "params" and isinstance(v, (int, float, bool)))
                 for group in opt.param_groups)


def _optimizer_guard(opt):
    """The optimizer's hyperparameters as a key (``0.0`` and ``-0.0`` differ, NaN equals NaN)."""
    return config_key(_hyperparameters(opt))


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
        self.optimizers = []                # [(optimizer, guard key, hyperparameters)]
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
        for opt, key, _ in self.optimizers:
            if _optimizer_guard(opt) != key:
                return None
        for module, training in self.modules:
            if module.training is not training:
                return None
        return cells


    def why_not(self, tensors):
        """The first guard that fails for this call, as ``what: old -> new`` (``cells`` is None)."""
        names = _Names(self, tensors)
        for owner, kind in self.entries:
            if _resolve(owner, kind) is None:
                return f"{names(owner)}.grad: set -> None"
        state = [_resolve(owner, kind) for owner, kind in self.entries]
        cells, slots = _layout(state, tensors)
        if slots != self.slots:
            return "which arguments share storage with each other or with the state changed"
        for cell, (shape, dtype) in zip(cells, self.avals):
            v = cell.value
            if v.shape != shape or v.dtype != dtype:
                what = "shape" if v.shape != shape else "dtype"
                old, new = (tuple(shape), tuple(v.shape)) if what == "shape" else (dtype, v.dtype)
                return f"{names.of_cell(cell)} {what}: {old} -> {new}"
        for owner, was_none in self.grad_guards:
            if (_owner(owner, tensors)._grad is None) != was_none:
                return f"{names(owner)}.grad: {'None -> set' if was_none else 'set -> None'}"
        for opt, key, hyper in self.optimizers:
            if _optimizer_guard(opt) != key:
                now = _hyperparameters(opt)
                if len(now) != len(hyper):
                    return f"{type(opt).__name__}: {len(hyper)} -> {len(now)} param groups"
                for g, (old_group, new_group) in enumerate(zip(hyper, now)):
                    old, new = dict(old_group), dict(new_group)
                    for name in sorted(set(old) | set(new)):
                        if config_key((old.get(name),)) != config_key((new.get(name),)):
                            return (f"{type(opt).__name__}.param_groups[{g}][{name!r}]: "
                                    f"{old.get(name)!r} -> {new.get(name)!r}")
        for module, training in self.modules:
            if module.training is not training:
                mode = {True: "train()", False: "eval()"}
                return f"{names.of_module(module)}.training: {mode[training]} -> {mode[module.training]}"
        return None


class _Names:
    """Names for what a program's guards read: ``argument 0``, ``parameter '0.weight'`` (from
    the modules the step called), or a tensor's shape."""

    def __init__(self, program, tensors):
        self.tensors = tensors
        self.modules = [m for m, _ in program.modules]

    def __call__(self, who):
        if type(who) is tuple:
            return f"argument {who[1]}"
        return self.of_cell(who._cell)

    def of_cell(self, cell):
        for k, t in enumerate(self.tensors):
            if t._cell is cell:
                return f"argument {k}"
        for module in self.modules:
            for kind, named in (("parameter", module.named_parameters), ("buffer", module.named_buffers)):
                for name, t in named():
                    if t._cell is cell:
                        return f"{kind} {name!r} of {type(module).__name__}"
        return "a tensor of the state"

    def of_module(self, module):
        for outer in self.modules:
            for name, m in outer.named_modules():
                if m is module and name:
                    return f"{type(outer).__name__}.{name} ({type(module).__name__})"
        return type(module).__name__


class _OutputMarker:
    def __repr__(self):
        return "<output>"


_OUT = _OutputMarker()


class _Lifted:
    """Puts tracers into the lifted cells for a trace, as this thread's overlay of them: another
    thread meanwhile sees (and writes) the cells' own arrays and versions."""

    def __init__(self, cells):
        self.cells = cells
        self.versions = [c.version for c in cells]
        self.overlay = Overlay()

    def put(self, values):
        for c, v in zip(self.cells, values):
            self.overlay.put(c, v)

    def version_delta(self, k):
        return self.cells[k].version - self.versions[k]

    def restore(self):
        self.overlay.close()


def _as_function(closed):
    """A function of a traced program's flat inputs (``jaxpr_as_fun``), or None where this JAX
    has it under neither name."""
    try:
        from jax.extend.core import jaxpr_as_fun
    except ImportError:
        jaxpr_as_fun = getattr(jax.core, "jaxpr_as_fun", None)
    return None if jaxpr_as_fun is None else jaxpr_as_fun(closed)


class _Runner:
    """Runs a traced step with donated buffers, so XLA writes new values into old buffers
    rather than allocating fresh ones every step:

    - ``written``: the cells the step writes (parameters, optimizer state);
    - ``dropped``: ``(position, owner)`` of the ``.grad`` tensors the step replaces (a
      ``zero_grad()`` then a backward), whose old arrays it never reads.

    Each kind is donated only while every one of its arrays is held by its cell alone (and a
    dropped ``.grad`` by its owner alone): an array that anything else still holds (a graph's
    saved tensors, another cell, a NumPy view, the user's ``g = p.grad``) keeps its buffer and
    value, and that call runs ``jitted``, the step's own trace, which donates nothing. Only
    inputs that an output of the same shape and dtype can take are candidates (XLA warns of a
    donated buffer it cannot use)."""

    __slots__ = ("jitted", "jaxpr", "tree", "written", "dropped", "programs")

    def __init__(self, jitted, traced, written, dropped):
        self.jitted = jitted
        self.jaxpr = traced.jaxpr
        self.tree = jax.tree_util.tree_structure(traced.out_info)
        free = {}
        for out in jax.tree_util.tree_leaves(traced.out_info):
            key = (tuple(out.shape), out.dtype)
            free[key] = free.get(key, 0) + 1
        ins = [(tuple(v.shape), v.dtype) for v in self.jaxpr.in_avals]

        def takes(k):
            if free.get(ins[k], 0) == 0:
                return False
            free[ins[k]] -= 1
            return True
        self.written = tuple(k for k in written if takes(k))
        self.dropped = tuple((k, owner) for k, owner in dropped if takes(k))
        self.programs = {}

    def __call__(self, values, cells):
        donate = ()
        if self.written and all(refs(values, k) <= OWNED_REFS for k in self.written):
            donate = self.written
        if self.dropped and all(_alone(owner, cells, values, k) for k, owner in self.dropped):
            donate = tuple(sorted(donate + tuple(k for k, _ in self.dropped)))
        if not donate:
            return self.jitted(values)
        run = self.programs.get(donate)
        if run is None:
            fn = _as_function(self.jaxpr)
            if fn is None or len(jax.tree_util.tree_leaves(values)) != len(values):
                self.written = self.dropped = ()
                return self.jitted(values)
            run = self.programs[donate] = jax.jit(fn, donate_argnums=donate, keep_unused=True)
        return jax.tree_util.tree_unflatten(self.tree, run(*values))


def _alone(owner, cells, values, k):
    """Whether ``owner.grad`` is held by ``owner`` alone, its cell (``cells[k]``) by it alone
    and the cell's array by the cell alone."""
    grad = owner._grad_value
    if grad is None or grad._cell is not cells[k] or grad._view is not None:
        return False
    grad = None
    return grad_refs(owner) <= GRAD_REFS and refs(cells, k) <= OWNED_REFS and refs(values, k) <= OWNED_REFS
