"""An optimizer step of a parameter group as one compiled program.

Eagerly, a step runs its update rule op by op: SGD one kernel per parameter (more with
momentum), Adam eight and a read of its step counter. Each kernel compiles once per shape (a
first step of Adam over a small CNN compiled about sixty programs) and each call dispatches on
its own. Here the group's update (the optimizer's own ``_update``, the same code) is traced once,
with the parameters, their gradients and their state lifted into one program (the cells hold
tracers in this thread's overlay only, as ``tensorgrad.compile`` lifts them), and later steps
run that program and write back what it wrote, with the version counters the eager ops would
have moved. The first step runs as a program too: Adam's is the later steps' update of the
zero state ``_init_state`` makes first; SGD's (with momentum it makes the buffers) is a program
of its own, whose trace creates the state and whose outputs fill it; before it compiles, the
later steps' program is traced over a stand-in of that state and compiled behind, at the same
time, and the next step waits for it. A later new
program (a changed hyperparameter) is traced in the step and compiled on a background thread
(as the fused backward is, ``TENSORGRAD_BACKGROUND_COMPILE``), steps running eagerly until it is
ready, once an eager update has compiled its kernels; until then it compiles in the step: eager
steps meanwhile would compile a kernel per op and parameter shape of their own, about twice
what the one program costs. The programs donate the parameters' and state's arrays (held by
their cells alone; ``_storage/ownership.py``), so XLA writes the new values into the old buffers.

It serves the optimizers listed in ``FUSED_TYPES`` (exactly those classes: a subclass may
override anything), steps whose parameters' state is all made or all missing, and tensors that
are not views, not meta, not inside a trace or a watch. The group's Python
hyperparameters are part of the program's key, so a scheduled learning rate compiles a program
per value; after ``MAX_PROGRAMS`` programs an optimizer runs eagerly from then on (a schedule
that changes every step would otherwise compile every step).
"""

import threading
import weakref

import jax

from .._autograd.engine import BACKGROUND
from .._cache import KERNELS, XLA_DEFAULTS, _TwoWay, config_key, jit, same_bits, tracing
from .._device import filled
from .._meta import LIVE as _META
from .._storage import watch
from .._storage.overlay import Overlay
from .._storage.ownership import OWNED_REFS, refs
from .._tensor import Tensor, _wrap

MAX_PROGRAMS = 8
SETTLE_AT = 3               # the step of a program that compiles it again with XLA's defaults
# class -> (ready(group, state): whether a parameter's state is complete, whether the step that
# creates the state also runs the whole update, and how a first step runs: "program" (one of its
# own, whose trace creates the state, which the program's outputs then fill), "init" (the state
# made by ``_init_state``, then the later steps' program) or "eager"): filled by sgd.py and adam.py
FUSED_TYPES = {}


def step_group(opt, index, group, prefetch=False):
    """Run ``opt._update(group)`` as one program; False when it must run eagerly. ``prefetch``:
    trace the program the next step will run (the state as it is now) and compile it behind,
    without running it."""
    spec = FUSED_TYPES.get(type(opt))
    fused = opt.__dict__.get("_fused")
    if fused is None:
        # the token keys this optimizer's programs in the kernel cache (an id could be reused);
        # "warm": an eager update has run with the state complete (its kernels are compiled);
        # "eager": an eager update ran, which for an optimizer whose first step runs its whole
        # update (Adam) makes it warm
        fused = opt.__dict__["_fused"] = {"programs": {}, "off": False, "token": object(), "warm": False,
                                          "eager": False}
    if spec is None or fused["off"] or watch.ACTIVE[0] or tracing():
        return False
    ready, first_step_updates, first = spec
    params = _params(group)
    if not params:
        return True
    if first == "init" and all(not opt.state.get(p) for p in params):
        # the first step is the later steps' update of the state as ``_init_state`` makes it
        # (zeros, which need no kernel): made here, the step runs the later steps' program
        for p in params:
            opt.state[p].update(opt._init_state(p, group))
    cells, statics, grads = [], [], []
    creating = None
    for p in params:
        state = opt.state.get(p, {})
        fresh = not ready(group, state)
        if fresh and (state or first != "program"):
            return False            # the first step creates the state eagerly
        if creating is None:
            creating = fresh
        elif creating != fresh:
            return False            # some parameters' state exists, others' not
        tensors = [p, p.grad]
        for name in sorted(state):
            value = state[name]
            if isinstance(value, Tensor):
                tensors.append(value)
            else:
                statics.append((name, value))
        for t in tensors:
            if t._view is not None:
                return False
            cells.append(t._cell)
        grads.append(len(cells) - len(tensors) + 1)
    if len({id(c) for c in cells}) != len(cells):
        return False
    values = [c.value for c in cells]
    if any(isinstance(v, jax.core.Tracer) for v in values) or (_META.on and any(type(v) is jax.ShapeDtypeStruct
                                                                               for v in values)):
        return False
    hyper = tuple((k, v) for k, v in group.items() if k != "params")
    try:
        key = ("optimizer step", fused["token"], index, tuple((v.shape, v.dtype, v.sharding) for v in values),
               config_key(tuple(v for _, v in hyper if isinstance(v, (int, float, bool)))),
               repr(hyper), repr(statics), tuple(len(opt.state.get(p, ())) for p in params))
    except TypeError:
        return False
    programs = fused["programs"]
    entry = programs.get(key)
    if entry is None:
        if len(programs) >= MAX_PROGRAMS:
            fused["off"] = True
            return False
        entry = programs[key] = _Program(opt, index)
    if entry.run is None and entry.pending is not None:
        if prefetch or not entry.prefetched:
            return prefetch         # its program is compiling behind the step: this one runs eagerly
        entry.pending.join()        # compiled behind this step's forward and backward
        if entry.run is None:
            return False
    if entry.run is None:
        # every lifted cell but the gradients is written (parameters, state), and donated; but
        # not when one of their arrays is held elsewhere now (a graph's node that saves nothing
        # keeps its inputs, ``x + bias``'s bias): then likely at every step, so the program that
        # donates nothing is the one to compile
        # (a prefetch would count the references of the step that calls it: its program donates,
        # and a call whose arrays are held elsewhere then donates copies of them)
        entry.donated = tuple(k for k in range(len(cells)) if k not in set(grads))
        if not prefetch and any(refs(values, k) > OWNED_REFS for k in entry.donated):
            entry.donated = ()
        entry.cells = cells
        entry.creating = creating
        try:
            lowered = _lower(key, entry, values, entry.donated)     # the trace runs here, in the step's thread
        except _NotFusable:
            fused["off"] = True
            return False
        if entry.written != entry.donated:  # it wrote others: none is donated
            entry.donated = ()
            lowered = _lower(key, entry, values, ())
        if prefetch:
            entry.prefetched = True
            _compile_behind(fused, entry, lowered)
            return True
        # a first step that creates the state runs once: compiled now, not behind an eager step;
        # nor a program while no eager update ran (its kernels are not compiled)
        warm = fused["warm"] or (first_step_updates and fused["eager"])
        if BACKGROUND["on"] and warm and not creating:
            _compile_behind(fused, entry, lowered)
            fused["warm"] = True            # this step's eager update compiles its kernels
            return False
        if creating and BACKGROUND["on"] and not prefetch:
            _prefetch_over(opt, index, group, entry, lowered)
        entry.run = lowered.compile()
        entry.lowered = lowered
    if prefetch:
        return True
    for k in entry.donated:
        if refs(values, k) > OWNED_REFS:
            # an array something else holds too (a graph's saved tensors, a background compile's
            # arguments, a NumPy view) keeps its buffer: a copy of it is donated (no kernel)
            values[k] = jax.device_put(values[k], may_alias=False)
    entry.calls += 1
    if entry.calls == SETTLE_AT and entry.lowered is not None:
        _settle(fused, entry)
    outs = entry.run(*values)
    for k, delta, value in zip(entry.written, entry.deltas, outs):
        cell = cells[k]
        cell.value = value
        cell.gen += 1
        cell.version += delta
    for (i, name, version), value in zip(entry.created, outs[len(entry.written):]):
        t = opt.state[params[i]][name] = _wrap(value)
        t._cell.version = version
    if creating and BACKGROUND["on"]:
        # the next step's program, over the state just made, compiles behind that step's
        # forward and backward (whose kernels are compiled by now), and that step waits for it
        step_group(opt, index, group, prefetch=True)
    return True


def _params(group):
    return [p for p in group["params"] if p.grad is not None]


def _prefetch_over(opt, index, group, entry, lowered):
    """Before a first step's program (which creates the state) compiles: trace the later steps'
    program over a stand-in of that state (zeros of the types the first program will output:
    host fills, no kernel) and compile it behind, at the same time as the first one, instead of
    after it (SGD's two programs over a small CNN: 0.1 and 0.15 s to compile). The stand-in is
    removed again; the next step waits for the program, as for any prefetch."""
    params = _params(group)
    had = [p in opt.state for p in params]
    made = lowered.out_info[len(entry.written):]
    try:
        for (i, name, _), aval in zip(entry.created, made):
            opt.state[params[i]][name] = _wrap(filled(aval.shape, 0, aval.dtype))
        step_group(opt, index, group, prefetch=True)
    except Exception:       # noqa: BLE001 - the step after the first traces it then, as before
        pass
    finally:
        _drop_state(opt, params, had)


def _drop_state(opt, params, had):
    """Remove the state made for ``params`` (``had``: whether each had an entry before)."""
    for p, was in zip(params, had):
        if was:
            opt.state[p].clear()
        else:
            opt.state.pop(p, None)


class _NotFusable(Exception):
    """The first step created state that is not a tensor."""


def _lower(key, entry, values, donated):
    """The step's program over the lifted arrays, one argument each, traced (``entry.traced``)
    and lowered, donating the arrays at ``donated``: XLA writes the new parameters and state
    into their old buffers instead of allocating new ones every step."""
    key = key + (donated,)
    jitted = KERNELS.get(key) or jit(KERNELS, key, entry.traced, donate_argnums=donated)
    # lowered for the arrays' types, not the arrays: what JAX keeps of a lowering (in reference
    # cycles, until a collection) must not hold arrays a call is about to donate (an array never
    # placed explicitly has no sharding here: it follows the others, as the array would)
    structs = [jax.ShapeDtypeStruct(v.shape, v.dtype, sharding=v.sharding if v.committed else None,
                                    weak_type=v.weak_type) for v in values]
    lowered = jitted.lower(*structs)
    # with the eager options (its update is in SAME_BITS): compiled again with XLA's defaults
    # once it has run a few steps (``_settle``)
    entry.fast = isinstance(jitted, _TwoWay) and same_bits(jitted.fast.trace(*structs).jaxpr.jaxpr)
    return lowered


def _settle(fused, entry):
    """Compile the step's lowering again with XLA's defaults, and run that from then on: the same
    bits (what it computes is in ``SAME_BITS``), in about half the time on large parameters (the
    loop emitters' elementwise code is slower: 0.18 against 0.08 ms for an MLP's SGD update).
    Behind the steps on a thread of its own, or in this call with ``BACKGROUND`` off."""
    lowered, entry.lowered = entry.lowered, None
    if not entry.fast:
        return

    def work():
        try:
            entry.run = lowered.compile(dict(XLA_DEFAULTS))
        except Exception:           # noqa: BLE001 - the program it has keeps serving
            pass

    if BACKGROUND["on"]:
        threading.Thread(target=work, name="tensorgrad-optimizer-compile").start()
    else:
        work()


def _compile_behind(fused, entry, lowered):
    """Compile a traced step on a thread of its own (XLA's compile, no Python tracing: the trace
    read the optimizer's attributes in the step's thread). Not a daemon: an exit waits for it."""
    def work():
        try:
            entry.run = lowered.compile()
            entry.lowered = lowered
        except Exception:           # noqa: BLE001 - the optimizer keeps its eager steps
            fused["off"] = True
        finally:
            entry.pending = None

    entry.pending = threading.Thread(target=work, name="tensorgrad-optimizer-compile")
    entry.pending.start()


class _Program:
    """A group's traced update: which lifted cells it writes, and by how many versions, and its
    compiled program (held here, at most ``MAX_PROGRAMS`` per optimizer)."""

    def __init__(self, opt, index):
        self.owner = weakref.ref(opt)       # the kernel cache holds this: it must not hold the model
        self.index = index
        self.cells = None
        self.written = ()
        self.deltas = ()
        self.run = None
        self.pending = None                 # the thread compiling ``run``
        self.donated = ()                   # the arguments ``run`` donates
        self.lowered = None                 # ``run``'s lowering, until ``_settle`` compiles it again
        self.fast = False                   # whether ``run`` was compiled with the eager options
        self.calls = 0                      # the steps ``run`` served
        self.creating = False               # a first step, which creates the state
        self.prefetched = False             # compiled behind the step before its first (which waits)
        self.created = ()                   # ((parameter index, state name, version), ...) it created

    def traced(self, *values):
        opt = self.owner()
        cells = self.cells
        overlay = Overlay()
        try:
            for c, v in zip(cells, values):
                overlay.put(c, v)
            before = [c.version for c in cells]
            group = opt.param_groups[self.index]
            params = _params(group) if self.creating else ()
            had = [p in opt.state for p in params]
            try:
                opt._update(group)
                outs = [c.value for c in cells]
                self.written = tuple(k for k, (v, o) in enumerate(zip(values, outs)) if o is not v)
                self.deltas = tuple(cells[k].version - before[k] for k in self.written)
                created, made = [], []
                for i, p in enumerate(params):
                    for name, value in opt.state.get(p, {}).items():
                        if not isinstance(value, Tensor):
                            raise _NotFusable(name)
                        created.append((i, name, value._version))   # the in-place ops' count
                        made.append(value._data)
                self.created = tuple(created)
                return [outs[k] for k in self.written] + made
            finally:
                # the state the trace made holds tracers: the step makes it from the outputs
                _drop_state(opt, params, had)
        finally:
            overlay.close()
