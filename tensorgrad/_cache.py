"""Bounded caches: every cache of compiled programs holds at most a limit, evicts the least
recently used entries beyond it, and counts what it holds.

tensorgrad compiles a kernel per op, configuration and input shape, a backward per graph
structure and a program per compiled step and signature. Each cache here has a limit, counted in
compiled programs (``jax.jit`` compiles one per input shape and dtype, so an entry that has run
on three shapes weighs three) and in entries; beyond it the least recently used entries go, and
with them their programs (JAX's own caches hold a program only while its function lives).

* ``kernels``: the eager kernels: every op's forward and backward, the view readers and
  writers, and the small jitted helpers (gradient accumulation, ``nn.init``).
* ``fused``: the fused backward programs of graph structures (``_autograd/engine.py``).
* ``compiled``: the programs of one ``tensorgrad.compile`` function (each has its own cache).
* ``small``: caches of small Python objects keyed by configuration (create_graph backward ops).

Limits come from the environment variable ``TENSORGRAD_CACHE_LIMITS`` (``kernels=512,compiled=8``)
and ``set_limits`` (``tensorgrad.set_cache_limits``); ``stats()`` (``tensorgrad.cache_stats()``)
says what each cache holds:

>>> from tensorgrad import _cache
>>> sorted(_cache.stats())
['compiled', 'fused', 'kernels', 'small']
>>> old = _cache.set_limits(fused=64)
>>> _cache.stats()["fused"]["limit"]
64
>>> _ = _cache.set_limits(**old)

Keys: ``config_key`` makes the key of a configuration, in which ``0.0`` and ``-0.0``, ``1``,
``1.0`` and ``True`` differ, and every NaN is the same:

>>> _cache.config_key((0.0,)) == _cache.config_key((-0.0,))
False
>>> _cache.config_key((float("nan"),)) == _cache.config_key((float("nan"),))
True
"""

import collections
import functools
import math
import os
import threading
import weakref

import jax
import numpy as np

__all__ = ["Cache", "config_key", "value_key", "jit", "bounded_jit", "set_limits", "limits", "stats", "clear", "KERNELS",
           "FUSED", "SMALL", "ENV"]

ENV = "TENSORGRAD_CACHE_LIMITS"
_DEFAULTS = {"kernels": 1024, "fused": 32, "compiled": 16, "small": 4096}


def _parse(text):
    """``"kernels=512,compiled=8"`` as a dict; a ValueError naming the variable when malformed."""
    found = {}
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, number = part.partition("=")
        if not sep:
            raise ValueError(f"{ENV}={text!r}: expected name=limit, got {part!r}")
        name = name.strip()
        try:
            found[name] = _checked(name, int(number))
        except ValueError as error:
            raise ValueError(f"{ENV}={text!r}: {error}") from None
    return found


def _checked(name, limit):
    if name not in _DEFAULTS:
        raise ValueError(f"unknown cache {name!r}; the caches are {', '.join(sorted(_DEFAULTS))}")
    if type(limit) is not int or limit < 1:
        raise ValueError(f"the limit of cache {name!r} must be a positive int, got {limit!r}")
    return limit


_LIMITS = dict(_DEFAULTS)
_LIMITS.update(_parse(os.environ.get(ENV, "")))


# ---------------------------------------------------------------------- configuration keys

# Types whose equality is exact (no two different meanings compare equal): a configuration made
# of them is its own key. ``int`` is one because ``True`` and ``1.0``, which equal ``1``, are keyed
# with their type. Other types join on first sight (``np.dtype``'s classes, ops, functions).
_PLAIN = {int, str, type(None), type, type(Ellipsis)}
# The configurations seen that hold no number at all (``(dtype('float32'),)``, ``("mean",)``): no
# configuration with a number equals one of them, so finding a configuration here is enough.
NUMBER_FREE = set()


def value_key(v):
    """The cache key of one value (see ``config_key``)."""
    t = type(v)
    if t in _PLAIN:
        return v
    if t is tuple or t is list:
        if t is tuple and all(map(_PLAIN.__contains__, map(type, v))):
            return v
        return (t, tuple(map(value_key, v)))
    if isinstance(v, (complex, np.complexfloating)):
        return (t, value_key(float(v.real)), value_key(float(v.imag)))
    if isinstance(v, (float, np.floating)):
        if v != v:
            return (t, "nan")
        return (t, v, math.copysign(1.0, v)) if v == 0 else (t, v)
    if isinstance(v, (int, np.integer, np.bool_)):      # bool, numpy's ints, int subclasses
        return (t, v)
    _PLAIN.add(t)
    return v


def config_key(cfg):
    """The cache key of a configuration tuple: equal exactly when the configurations mean the same.

    Python's equality makes ``0.0 == -0.0`` and ``1 == 1.0 == True`` and ``nan != nan``; here a
    number other than an ``int`` is keyed with its type, a zero with its sign, and every NaN
    alike. A configuration of ints, strings, dtypes and the like is its own key.
    """
    try:
        if cfg in NUMBER_FREE:     # the common case, the cheapest test
            return cfg
    except TypeError:               # unhashable (a list in it)
        return tuple(map(value_key, cfg))
    types = set(map(type, cfg))
    if types <= _PLAIN:
        if int not in types:
            if len(NUMBER_FREE) >= 4096:
                NUMBER_FREE.clear()
            NUMBER_FREE.add(cfg)
        return cfg
    return tuple(map(value_key, cfg))


# ---------------------------------------------------------------------- the cache

class Cache:
    """A bounded map from keys to values, least recently used first out, with counts.

    Each entry has a weight (the programs it holds for a jit cache; see ``jit``); the cache keeps
    its total weight and its number of entries at most ``limit``. ``get`` counts a hit or a miss
    and marks the entry as used; ``traces`` counts the programs compiled by its jitted entries.
    Counts are exact in one thread (threads may race on them); the entries themselves are safe
    to use from many threads.
    """

    def __init__(self, name, on_evict=None):
        if name not in _DEFAULTS:
            raise ValueError(f"unknown cache {name!r}")
        self.name = name
        self.on_evict = on_evict      # called with (key, value) of each entry evicted
        self._entries = collections.OrderedDict()     # key -> [value, weight]
        # the hot path (``OpDef.forward``) calls these two directly: ``get`` without a Python frame
        self.find = self._entries.get
        self.touch = self._entries.move_to_end
        self._lock = threading.Lock()
        self.size = 0
        self.hits = self.misses = self.evictions = self.traces = 0
        _REGISTERED.setdefault(name, weakref.WeakSet()).add(self)

    def __len__(self):
        return len(self._entries)

    def get(self, key):
        """The value under ``key``, or None."""
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        self.hits += 1
        try:
            self._entries.move_to_end(key)
        except KeyError:        # evicted by another thread meanwhile
            pass
        return entry[0]

    def put(self, key, value, weight=1):
        """Store ``value`` under ``key`` (replacing what was there), then evict down to the limit."""
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size -= old[1]
            self._entries[key] = [value, weight]
            self.size += weight
            dropped = self._evict()
        self._dropped(dropped)
        return value

    def grow(self, key, value, weight=1):
        """``value``, stored under ``key``, now weighs ``weight`` more (it compiled a program)."""
        with self._lock:
            self.traces += weight
            entry = self._entries.get(key)
            if entry is None or entry[0] is not value:
                return          # evicted: its programs go when its last user drops it
            entry[1] += weight
            self.size += weight
            dropped = self._evict()
        self._dropped(dropped)

    def _evict(self):
        limit = _LIMITS[self.name]
        entries = self._entries
        dropped = []
        while entries and (self.size > limit or len(entries) > limit):
            key, entry = entries.popitem(last=False)
            self.size -= entry[1]
            self.evictions += 1
            dropped.append((key, entry[0]))
        return dropped

    def _dropped(self, dropped):
        """After the lock is released: tell ``on_evict``; the values are freed on return."""
        if self.on_evict is not None:
            for key, value in dropped:
                self.on_evict(key, value)

    def shrink(self):
        """Evict down to the current limit (after ``set_limits`` lowered it)."""
        with self._lock:
            dropped = self._evict()
        self._dropped(dropped)

    def clear(self):
        with self._lock:
            entries = list(self._entries.values())
            self._entries.clear()
            self.size = 0
        del entries             # freed outside the lock

    def stats(self):
        return {"entries": len(self._entries), "size": self.size, "limit": _LIMITS[self.name], "hits": self.hits,
                "misses": self.misses, "evictions": self.evictions, "traces": self.traces}


_REGISTERED = {}
KERNELS = Cache("kernels")
FUSED = Cache("fused")
SMALL = Cache("small")


# ---------------------------------------------------------------------- jitted entries

def jit(cache, key, fn, **options):
    """A fresh ``jax.jit`` of ``fn``, stored in ``cache`` under ``key`` and returned.

    Every program it traces (one per input shape, dtype and static argument) adds one to its
    weight, so the cache bounds the programs, not only the functions. Evicting it drops the only
    references to the function JAX keys its caches on, and with it the compiled programs.
    """
    @functools.wraps(fn)
    def traced(*args, **kwargs):
        cache.grow(key, compiled)
        return fn(*args, **kwargs)

    compiled = jax.jit(traced, **options)
    cache.put(key, compiled, 0)
    return compiled


class bounded_jit:
    """``jax.jit`` for a module-level function, its programs held in the ``kernels`` cache.

    Use as ``@bounded_jit`` or ``@bounded_jit(static_argnums=1)``; the call costs one cache look-up
    more than ``jax.jit``'s.
    """

    def __init__(self, fn=None, **options):
        self.options = options
        if fn is not None:
            self._set(fn)

    def _set(self, fn):
        self.fn = fn
        self.key = ("bounded_jit", fn)
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        if not hasattr(self, "fn"):
            self._set(args[0])
            return self
        compiled = KERNELS.get(self.key)
        if compiled is None:
            compiled = jit(KERNELS, self.key, self.fn, **self.options)
        return compiled(*args, **kwargs)


# ---------------------------------------------------------------------- configuration

def limits():
    """The limit of each cache, by name."""
    return dict(_LIMITS)


def set_limits(**new):
    """Set cache limits by name (``kernels``, ``fused``, ``compiled``, ``small``); evicts at once
    down to the new limits. Returns the previous limits, so ``set_limits(**old)`` restores them."""
    checked = {name: _checked(name, limit) for name, limit in new.items()}
    old = limits()
    _LIMITS.update(checked)
    for name in checked:
        for cache in list(_REGISTERED.get(name, ())):
            cache.shrink()
    return old


def stats():
    """What each cache holds: ``{name: {entries, size, limit, hits, misses, evictions, traces}}``.

    ``size`` is in the cache's unit (compiled programs for the jit caches); the ``compiled``
    figures add up every live compiled function's cache, each of which has the limit.
    """
    result = {}
    for name in sorted(_DEFAULTS):
        total = {"entries": 0, "size": 0, "limit": _LIMITS[name], "hits": 0, "misses": 0, "evictions": 0,
                 "traces": 0}
        for cache in list(_REGISTERED.get(name, ())):
            for field, value in cache.stats().items():
                if field != "limit":
                    total[field] += value
        result[name] = total
    return result


def clear():
    """Empty every cache (compiled programs are compiled again when next needed)."""
    for caches in _REGISTERED.values():
        for cache in list(caches):
            cache.clear()
