"""A fused backward compiled as up to three XLA programs, on as many threads.

On the CPU, XLA's older loop emitters compile a program in about half the time of its MLIR
fusion emitters, and give the same bits for what ``_cache.SAME_BITS`` lists (the eager kernels use
them there). A whole backward rarely is all of that: a loss has ``exp`` and ``log`` and a bias's
gradient is a sum. But its bulk is: the products, convolutions, selections and data movement
between the loss at its top and the sums at its leaves (a small CNN's convolution backward
compiles in 28 ms with the loop emitters, 124 ms without). So the traced backward is cut where
that bulk begins and ends (``_cut``): the equations before it and after it become programs
compiled with XLA's defaults, the bulk one compiled with the eager options. The three compile
at the same time (XLA compiles on several threads at once) and run one after another, each
taking the arrays the earlier ones made. A small CNN's first backward takes about 0.29 s
instead of 0.42-0.54 s. Compiling the three on three threads gained nothing (XLA already spreads
one compile over the cores), so they compile one after another.

The cut serves the first steps only: XLA fuses across its boundaries when the program is whole,
and the whole one runs a small CNN's backward in 3.3 ms against the cut's 3.6-3.8. So at the
cut's ``SWAP_AT``-th call the whole program compiles on a background thread and serves from the
call after it is ready (``Staged._swap``).

The options change no bit of what their program computes. The cut itself can change the last
bits of a sum: XLA adds up a reduction fused with its producers in another order than one over
an array an earlier program made, as the node-by-node backward, which serves a structure's
first steps in other cases, already differs from one program.

Where the cut does not pay (no bulk of ``MIN_BULK`` equations with a product or a convolution),
inside another trace, and for arrays placed explicitly (committed to a device, sharded), the
entry runs the one ``jax.jit`` of the whole backward, as before.
"""

import os
import threading

import jax
from jax.extend import core as jcore

from .._cache import _top_level, eager_options, hold_sweeps, same_bits_eqn

# ``BACKGROUND["on"] = False`` (or TENSORGRAD_BACKGROUND_COMPILE=0) compiles in the call what
# would compile on a background thread: a structure's first fused program (``engine.py``), the
# whole program that takes over from a cut, an optimizer's next program (``optim/_fused.py``)
BACKGROUND = {"on": os.environ.get("TENSORGRAD_BACKGROUND_COMPILE", "1") != "0"}
SWAP_AT = 3             # the call of a cut that starts compiling the whole program behind it

MIN_BULK = 8            # equations (counting those inside) the eager-options program must hold
_HEAVY = {"dot_general", "conv_general_dilated"}    # one of which it must hold too
_WHOLE = "whole"        # a signature the single program serves
_SCALARS = {bool, int, float, complex}      # each a weakly typed scalar of its type's dtype


class Staged:
    """The fused backward of one graph structure: ``plain`` (its ``jax.jit``) and, per input
    signature, the programs it was cut into, or ``_WHOLE``."""

    __slots__ = ("plain", "cache", "key", "programs", "lock", "uncut", "__weakref__")

    def __init__(self, plain, cache, key):
        self.plain = plain
        self.cache = cache
        self.key = key
        self.programs = {}
        self.lock = threading.Lock()
        # a structure whose backward has no bulk to cut (a chain of elementwise ops): which
        # equations it has does not depend on the shapes, so every signature runs ``plain``
        # without this call computing the signature (80 arrays' worth of Python a call)
        self.uncut = False

    def __call__(self, *args):
        if self.uncut or not _top_level():
            return self.plain(*args)
        flat, tree = jax.tree_util.tree_flatten(args)
        try:
            signature = (tree, tuple([type(a) if type(a) in _SCALARS else (a.shape, a.dtype, a.weak_type, a.committed)
                                      for a in flat]))
        except AttributeError:      # a NumPy array: the plain jit sees to it
            return self.plain(*args)
        run = self.programs.get(signature)
        if run is None:
            with self.lock:
                run = self.programs.get(signature)
                if run is None:
                    run = self.programs[signature] = self._build(args, flat)
        if run is _WHOLE:
            return self.plain(*args)
        run.calls += 1
        if run.calls == SWAP_AT:
            self._swap(signature, args)
        return run(flat)

    def _swap(self, signature, args):
        """Compile the one program of the whole backward (by calling it once: the result is
        dropped) on a thread of its own, and serve it from then on. It runs up to a sixth
        faster than the cut (XLA fuses across the cut's boundaries). With ``BACKGROUND`` off it
        compiles in this call."""
        def work():
            try:
                self.plain(*args)
            except Exception:       # noqa: BLE001 - the cut keeps serving
                return
            finally:
                hold_sweeps(-1)
            self.programs[signature] = _WHOLE

        hold_sweeps(1)
        if BACKGROUND["on"]:
            threading.Thread(target=work, name="tensorgrad-fused-compile").start()
        else:
            work()

    def eval_shape(self, *args):
        return self.plain.eval_shape(*args)

    def _build(self, args, flat):
        options = eager_options()
        if options is None or any(type(a) not in _SCALARS and a.committed for a in flat):
            return _WHOLE
        traced = self.plain.trace(*args)            # the call to ``plain`` reuses this trace
        closed = traced.jaxpr
        cut = _cut(closed.jaxpr)
        if cut is None:
            self.uncut = True
            return _WHOLE
        run = _Cut(closed, cut, traced.out_tree, options)
        self.cache.grow(self.key, self, len(run.programs) - 1)   # the trace counted one program
        return run


def _weight(eqn):
    """Equations in ``eqn``, counting those of the jaxprs inside it, and whether one of them is
    a product or a convolution."""
    n, heavy = 1, eqn.primitive.name in _HEAVY
    for param in eqn.params.values():
        for inner in param if isinstance(param, (tuple, list)) else (param,):
            inner = getattr(inner, "jaxpr", inner)
            if hasattr(inner, "eqns"):
                for e in inner.eqns:
                    m, h = _weight(e)
                    n, heavy = n + m, heavy or h
    return n, heavy


def _live(jaxpr):
    """The equations of ``jaxpr`` some output needs (XLA would drop the others)."""
    needed = {v for v in jaxpr.outvars if isinstance(v, jcore.Var)}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in needed for v in eqn.outvars):
            kept.append(eqn)
            needed.update(v for v in eqn.invars if isinstance(v, jcore.Var))
    kept.reverse()
    return kept


def _cut(jaxpr):
    """Each live equation's program (0: before the bulk, 1: the bulk, 2: after), or None.

    An equation's stage is the first at or after its inputs' stages whose parity is its kind's
    (odd: same bits under both emitters; even: not); the bulk is the odd stage that, with the
    same-bits equations before it whose users all come later, holds the most equations and a
    product or a convolution (around which the fusion emitters' compile is slowest)."""
    if jaxpr.effects or any(not isinstance(v, jcore.Var) or v in jaxpr.constvars for v in jaxpr.outvars):
        return None
    eqns = _live(jaxpr)
    stage_of = {}
    stages, fast = [], []
    for eqn in eqns:
        first = max([stage_of.get(v, 0) for v in eqn.invars if isinstance(v, jcore.Var)], default=0)
        ok = same_bits_eqn(eqn)
        s = first if first % 2 == ok else first + 1
        for v in eqn.outvars:
            stage_of[v] = s
        stages.append(s)
        fast.append(ok)
    users = {}
    for i, eqn in enumerate(eqns):
        for v in eqn.invars:
            if isinstance(v, jcore.Var):
                users.setdefault(v, []).append(i)
    if all(fast):
        return eqns, [1] * len(eqns)
    weights = [_weight(e) for e in eqns]
    best = None
    for bulk in sorted({s for s in stages if s % 2}):
        where = [0 if s < bulk else 1 if s == bulk else 2 for s in stages]
        for i in reversed(range(len(eqns))):
            if where[i] == 0 and fast[i] and all(where[u] >= 1 for v in eqns[i].outvars for u in users.get(v, ())):
                where[i] = 1
        held = sum(w for (w, _), p in zip(weights, where) if p == 1)
        if any(h for (_, h), p in zip(weights, where) if p == 1) and (best is None or held > best[0]):
            best = (held, where)
    if best is None or best[0] < MIN_BULK:
        return None
    return eqns, best[1]


class _Cut:
    """The programs a backward was cut into, compiled at once, and how to chain their arrays."""

    key_name = "a graph structure"
    calls = 0

    def __init__(self, closed, cut, out_tree, options):
        jaxpr = closed.jaxpr
        eqns, where = cut
        slot = {}                                   # var -> its index among the arrays a call holds
        for v in jaxpr.invars:
            slot[v] = len(slot)
        n_inputs = len(slot)
        consts = dict(zip(jaxpr.constvars, closed.consts))
        later = {}                                  # var -> whether a later program or the output reads it
        for v in jaxpr.outvars:
            later[v] = True
        parts = [[e for e, p in zip(eqns, where) if p == k] for k in range(3)]
        self.programs = []
        lowered = []
        threads, errors = [], []
        for k, part in enumerate(parts):
            if not part:
                continue
            reads = {v for e in (e for kk in range(k + 1, 3) for e in parts[kk]) for v in e.invars
                     if isinstance(v, jcore.Var)}
            made = {v for e in part for v in e.outvars}
            outs = [v for e in part for v in e.outvars if v in reads or v in later]
            ins, cvars = [], []
            for e in part:
                for v in e.invars:
                    if not isinstance(v, jcore.Var) or v in made or v in ins or v in cvars:
                        continue
                    (cvars if v in consts else ins).append(v)
            info = jcore.DebugInfo("fused backward", f"part {k} of {self.key_name}", tuple(f"a{i}" for i in range(len(ins))),
                                   tuple(f"r{i}" for i in range(len(outs))))
            fn = jcore.jaxpr_as_fun(jcore.ClosedJaxpr(
                jcore.Jaxpr(cvars, ins, outs, part, debug_info=info), [consts[v] for v in cvars]))
            avals = [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype, weak_type=v.aval.weak_type) for v in ins]
            low = jax.jit(fn).lower(*avals)
            lowered.append(low)
            index = len(self.programs)
            self.programs.append([None, [slot[v] for v in ins]])
            for v in outs:
                slot[v] = len(slot)

            def work(low=low, index=index, opts=options if k == 1 else None):
                try:
                    self.programs[index][0] = low.compile(opts) if opts else low.compile()
                except Exception as error:      # noqa: BLE001 - raised in the calling thread
                    errors.append(error)

            work()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        self.n_inputs = n_inputs
        self.outputs = [slot[v] for v in jaxpr.outvars]
        self.out_tree = out_tree

    def __call__(self, flat):
        arrays = list(flat)
        for program, reads in self.programs:
            arrays.extend(program(*[arrays[i] for i in reads]))
        return jax.tree_util.tree_unflatten(self.out_tree, [arrays[i] for i in self.outputs])
