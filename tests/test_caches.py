"""The bounded caches (``tensorgrad/_cache.py``): configuration keys, limits, eviction and counts.

Every cache of compiled programs has a limit; the tests set small ones (4 programs, 10 shapes)
and check that the caches evict, count what they hold, free what they evict, and that results
stay PyTorch's after an eviction.
"""

import gc
import os
import subprocess
import sys
import time
import weakref

import jax.numpy as jnp
import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.nn.functional as F
from tensorgrad import _cache, _disk_cache
from tensorgrad._autograd import engine
from oracle import torch, _oracle  # noqa: F401  (the fixture skips tests that need PyTorch)

NAN = float("nan")


@pytest.fixture
def set_limits():
    """``set_limits`` for the test; the limits are restored afterwards."""
    old = _cache.limits()
    yield _cache.set_limits
    _cache.set_limits(**old)


def _signbits(t):
    return np.signbit(t.detach().numpy()).tolist()


# ---------------------------------------------------------------------- configuration keys

def test_config_key_tells_apart_what_python_equates_without_torch():
    k = _cache.config_key
    assert k((0.0,)) != k((-0.0,))
    assert k((1,)) != k((True,)) and k((1,)) != k((1.0,)) and k((True,)) != k((1.0,))
    assert k((0,)) != k((False,))
    assert k((NAN,)) == k((float("nan"),)) and hash(k((NAN,))) == hash(k((float("nan"),)))
    assert k((np.float64("nan"),)) == k((np.float64("nan"),))
    assert k(((1, 2.0),)) != k(((1, 2),)) and k(((0.0, 1),)) != k(((-0.0, 1),))
    assert k(([1, 2],)) != k(((1, 2),))
    assert k((np.float32(0.5),)) != k((0.5,)) and k((np.int64(1),)) != k((1,))
    assert k((complex(1, 0.0),)) != k((complex(1, -0.0),))
    assert k((complex(NAN, 1),)) == k((complex(float("nan"), 1),))
    # a configuration of ints, strings, None and dtypes is its own key
    plain = (1, "mean", None, np.dtype("float32"), (2, 3))
    assert k(plain) == plain and k(()) == ()


def test_signed_zero_configurations_get_their_own_kernels():
    """``0.0`` and ``-0.0`` compare equal; their kernels differ (whichever runs first)."""
    cases = [
        (lambda m, z: m.nn.functional.hardtanh(m.tensor([-1.5, 0.5]), z, 1.0)),
        (lambda m, z: m.nn.functional.leaky_relu(m.tensor([-1.5, 0.5]), z)),
        (lambda m, z: m.nan_to_num(m.tensor([NAN, 1.0]), nan=z)),
    ]
    for case in cases:
        for zeros in ((0.0, -0.0), (-0.0, 0.0)):
            for z in zeros:
                assert _signbits(case(tg, z)) == _signbits(case(torch, z)), (case, z)


def test_a_nan_configuration_compiles_once():
    x = tg.tensor([1.0, 2.0])
    expected = torch.nn.functional.pad(torch.tensor([1.0, 2.0]), (1, 1), value=NAN)
    F.pad(x, (1, 1), value=float("nan"))
    traces = _cache.stats()["kernels"]["traces"]
    for _ in range(20):
        y = F.pad(x, (1, 1), value=float("nan"))    # a new NaN object each call
    assert _cache.stats()["kernels"]["traces"] == traces
    np.testing.assert_array_equal(y.numpy(), expected.numpy())


def test_a_nan_configuration_fuses_its_backward():
    """The fused backward's structure key treats NaN as NaN: the second backward compiles the
    fused program and later ones reuse it."""
    fused = _cache.stats()["fused"]["traces"]
    for _ in range(4):
        x = tg.tensor([-1.0, 2.0, 3.0], requires_grad=True)
        (F.pad(x * 2, (1, 1), value=float("nan")) * 3).nansum().backward()
    for thread in list(engine._COMPILING.values()):     # the fused program traces on its own thread
        thread.join()
    assert _cache.stats()["fused"]["traces"] == fused + 1
    xt = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
    (torch.nn.functional.pad(xt * 2, (1, 1), value=NAN) * 3).nansum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())


def test_compile_guards_key_python_values():
    """A Python argument of a compiled function is a guard: ``-0.0`` is not ``0.0``, and a NaN
    (a new object each call) reuses its program."""
    @tg.compile
    def scale(x, s):
        return x * s

    x = tg.tensor([-1.0, 2.0])
    for s in (0.0, -0.0, 0.0, -0.0, 0.0):
        assert _signbits(scale(x, s)) == _signbits(torch.tensor([-1.0, 2.0]) * s), s
    for _ in range(5):
        y = scale(x, float("nan"))
    assert np.isnan(y.numpy()).all()
    # one program each for 0.0, -0.0 and NaN
    assert scale.explain().count("traced program") == 3, scale.explain()


# ---------------------------------------------------------------------- limits and eviction

def test_a_jitted_entry_weighs_its_programs_and_is_freed_when_evicted_without_torch(set_limits):
    set_limits(kernels=4)
    cache = _cache.Cache("kernels")
    f = _cache.jit(cache, "double", lambda a: a * 2)
    ref = weakref.ref(f)
    for n in range(1, 4):
        np.testing.assert_array_equal(np.asarray(f(jnp.ones(n))), np.full(n, 2.0))
    assert cache.stats()["size"] == 3 and cache.stats()["traces"] == 3
    f(jnp.ones(2))                  # a program it has: no trace
    assert cache.stats()["traces"] == 3
    g = _cache.jit(cache, "triple", lambda a: a * 3)
    for n in range(1, 3):
        g(jnp.ones(n))              # 5 programs > 4: the least recently used entry goes
    assert cache.stats()["evictions"] == 1 and cache.stats()["size"] == 2 and len(cache) == 1
    del f
    gc.collect()
    assert ref() is None            # nothing else holds it, nor (so) its programs
    cache.clear()


def test_op_kernels_stay_within_the_limit_and_right_after_eviction(set_limits):
    set_limits(kernels=4)
    before = _cache.KERNELS.stats()["evictions"]
    for rounds in range(2):
        for n in range(1, 11):
            x = np.linspace(-2, 2, n * 3).reshape(n, 3).astype(np.float32)
            y = (tg.tensor(x).sin() * 2).sum(1)
            np.testing.assert_allclose(y.numpy(), (torch.tensor(x).sin() * 2).sum(1).numpy(), rtol=1e-6)
            stats = _cache.KERNELS.stats()
            assert stats["size"] <= 4 and stats["entries"] <= 4, stats
    assert _cache.KERNELS.stats()["evictions"] > before


def test_view_kernels_stay_within_the_limit(set_limits):
    set_limits(kernels=4)
    for n in range(2, 7):
        x = tg.arange(float(n * 2)).reshape(n, 2)
        v = x[1:, 1]            # a view of a view
        x.mul_(2)               # the base is written: the view reads through its chain again
        v.add_(1)               # and writes back through it
        xt = torch.arange(float(n * 2)).reshape(n, 2)
        vt = xt[1:, 1]
        xt.mul_(2)
        vt.add_(1)
        np.testing.assert_array_equal(x.numpy(), xt.numpy())
        np.testing.assert_array_equal(v.numpy(), vt.numpy())
        assert _cache.KERNELS.stats()["size"] <= 4


def test_fused_backward_programs_stay_within_the_limit(set_limits, undeferred):
    set_limits(fused=2)
    before = _cache.stats()["fused"]["evictions"]
    steps = [lambda m, x: (m.sin(x) * 2).sum(), lambda m, x: (m.cos(x) * 2).sum(),
             lambda m, x: (m.exp(x) + 1).sum(), lambda m, x: (m.tanh(x) - 1).sum()]
    data = [0.5, -1.0, 2.0]
    for _ in range(2):
        for step in steps:
            for _ in range(2):      # the second backward of a structure is fused
                x = tg.tensor(data, requires_grad=True)
                step(tg, x).backward()
                xt = torch.tensor(data, requires_grad=True)
                step(torch, xt).backward()
                np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-6)
                stats = _cache.stats()["fused"]
                assert stats["entries"] <= 2 and stats["size"] <= 2, stats
    assert _cache.stats()["fused"]["evictions"] > before


def test_compiled_programs_stay_within_the_limit(set_limits):
    set_limits(compiled=2)
    w = tg.tensor([0.5, -0.25, 1.0], requires_grad=True)
    opt = tg.optim.SGD([w], lr=0.1)
    wt = torch.tensor([0.5, -0.25, 1.0], requires_grad=True)
    opt_t = torch.optim.SGD([wt], lr=0.1)

    def step(m, weight, optimizer, x):
        optimizer.zero_grad()
        loss = (x * weight).tanh().mean()
        loss.backward()
        optimizer.step()
        return loss

    compiled = tg.compile(lambda x: step(tg, w, opt, x), dynamic=False)     # (no warning for 4 shapes)
    for n in (1, 2, 3, 4, 1):       # the last signature was evicted: it is traced again
        x = np.linspace(-1, 1, n * 3).reshape(n, 3).astype(np.float32)
        for _ in range(3):          # eager first call (the first shape only), trace, compiled runs
            loss = compiled(tg.tensor(x))
            loss_t = step(torch, wt, opt_t, torch.tensor(x))
            np.testing.assert_allclose(loss.item(), loss_t.item(), rtol=1e-5, atol=1e-7)
        stats = compiled._signatures.stats()
        assert stats["size"] <= 2 and stats["entries"] <= 2 and stats["limit"] == 2, stats
    np.testing.assert_allclose(w.detach().numpy(), wt.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert compiled._signatures.stats()["evictions"] == 3
    assert compiled.explain().count("dropped a signature") == 3
    assert compiled.explain().count("traced program") == 5
    assert compiled.explain().count("ran eagerly") == 1


def test_bounded_module_level_jits(set_limits):
    """The jitted helpers with static arguments (``nn.init``) count a program per shape."""
    set_limits(kernels=2)
    before = _cache.KERNELS.stats()["evictions"]
    for n in (1, 2, 3):
        t = tg.empty(n, 3)
        tg.nn.init.trunc_normal_(t, a=-0.5, b=0.5)
        assert t.shape == (n, 3) and float(t.abs().max()) <= 0.5 and float(t.abs().min()) > 0
        assert _cache.KERNELS.stats()["size"] <= 2
    assert _cache.KERNELS.stats()["evictions"] > before


# ---------------------------------------------------------------------- configuration

def test_set_limits_checks_its_arguments_without_torch(set_limits):
    before = _cache.limits()
    for bad in ({"kernel": 4}, {"kernels": 0}, {"kernels": True}, {"kernels": 2.0}, {"fused": -1}):
        with pytest.raises(ValueError, match="cache"):
            set_limits(**bad)
        assert _cache.limits() == before
    assert set_limits(small=7) == before and _cache.limits()["small"] == 7
    assert tg.set_cache_limits is _cache.set_limits and tg.cache_stats is _cache.stats


def test_limits_from_the_environment_without_torch():
    assert _cache._parse("kernels=7, fused=3") == {"kernels": 7, "fused": 3}
    for bad in ("kernels", "kernels=x", "kernel=3", "fused=0"):
        with pytest.raises(ValueError, match=_cache.ENV):
            _cache._parse(bad)
    code = "import tensorgrad as tg; print(tg._cache.limits()['kernels'], tg._cache.limits()['compiled'])"
    root = os.path.dirname(os.path.dirname(os.path.abspath(tg.__file__)))
    env = dict(os.environ, TENSORGRAD_CACHE_LIMITS="kernels=7,compiled=2", PYTHONPATH=root)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True,
                         timeout=300)
    assert out.stdout.split() == ["7", "2"], out.stderr


def test_stats_count_hits_and_misses_without_torch():
    cache = _cache.Cache("small")
    assert cache.get("a") is None
    cache.put("a", 1)
    assert cache.get("a") == 1 and cache.get("a") == 1
    stats = cache.stats()
    assert (stats["hits"], stats["misses"], stats["entries"], stats["size"]) == (2, 1, 1, 1)
    totals = _cache.stats()
    assert set(totals) == {"kernels", "fused", "compiled", "small"}
    assert all(set(s) == {"entries", "size", "limit", "hits", "misses", "evictions", "traces"}
               for s in totals.values())
    assert totals["small"]["hits"] >= 2 and totals["small"]["limit"] == _cache.limits()["small"]


# ---------------------------------------------------------------------- programs outside the caches

class _Compiles:
    """The names of the programs JAX compiles while the block runs (from its compile log)."""

    def __enter__(self):
        import logging
        import jax
        self.names = []
        outer = self

        class Handler(logging.Handler):
            def emit(self, record):
                message = record.getMessage()
                if message.startswith("Compiling "):
                    outer.names.append(message.split()[1])

        self._logger = logging.getLogger("jax")
        self._handler = Handler(level=logging.DEBUG)
        self._level = self._logger.level
        self._logger.addHandler(self._handler)
        self._logger.setLevel(logging.DEBUG)
        self._config = jax.config.jax_log_compiles
        jax.config.update("jax_log_compiles", True)
        return self

    def __exit__(self, *exc):
        import jax
        jax.config.update("jax_log_compiles", self._config)
        self._logger.removeHandler(self._handler)
        self._logger.setLevel(self._level)


_SHAPES = iter(range(1000, 100000, 7))       # a shape never seen before, per call


def test_tensors_made_from_data_compile_nothing_without_torch():
    """``jnp.asarray`` of a numpy array, or ``jnp.zeros``, would compile a program per shape that
    JAX keeps for the process's life (about 20 ms each); factories transfer host data instead."""
    makers = [
        lambda n: tg.tensor(np.ones((n, 3), np.float32)), lambda n: tg.tensor([1.5] * n),
        lambda n: tg.from_numpy(np.arange(n)), lambda n: tg.as_tensor(np.zeros(n)),
        lambda n: tg.zeros(n, 2), lambda n: tg.ones(n, dtype=tg.int8), lambda n: tg.empty(n),
        lambda n: tg.full((n,), 2.5), lambda n: tg.full((n,), -1, dtype=tg.uint8), lambda n: tg.arange(n),
        lambda n: tg.arange(0.0, n / 10, 0.1), lambda n: tg.linspace(0, 1, n), lambda n: tg.eye(n % 50 + 2),
        lambda n: tg.zeros_like(tg.empty(n)), lambda n: tg.FloatTensor(n), lambda n: tg.tril_indices(n % 40, 5),
        lambda n: tg.tensor([0, 1] * n).nonzero(),
    ]
    for make in makers:
        make(next(_SHAPES))             # the dtype's first conversion may compile once
    with _Compiles() as seen:
        made = [make(next(_SHAPES)) for make in makers]
    assert seen.names == []
    assert made[8].tolist()[:2] == [255, 255] and made[7].dtype == tg.float32
    assert tg.full((3,), 2.7, dtype=tg.int64).tolist() == [2, 2, 2]


def test_large_fills_run_in_the_kernel_cache_without_torch():
    from tensorgrad import _device
    n = _device.HOST_FILL_LIMIT + next(_SHAPES)
    traces = _cache.stats()["kernels"]["traces"]
    with _Compiles() as seen:
        big = tg.full((n,), 3, dtype=tg.int16)
    assert len(seen.names) == _cache.stats()["kernels"]["traces"] - traces >= 1
    assert big.shape == (n,) and int(big.sum()) == 3 * n


def test_random_draws_compile_only_into_the_kernel_cache_without_torch():
    """Every program a random draw compiles is one of the kernel cache's (bounded), none JAX's
    own samplers would keep forever."""
    draws = [
        lambda n: tg.rand(n), lambda n: tg.randn(n, 2), lambda n: tg.randint(0, 9, (n,)), lambda n: tg.randperm(n),
        lambda n: tg.normal(1.0, 2.0, (n,)), lambda n: tg.normal(tg.zeros(n), 1.0),
        lambda n: tg.bernoulli(tg.full((n,), 0.5)), lambda n: tg.multinomial(tg.ones(n), 2),
        lambda n: tg.empty(n).uniform_(), lambda n: tg.empty(n).normal_(), lambda n: tg.empty(n).bernoulli_(),
        lambda n: tg.empty(n).exponential_(), lambda n: tg.empty(n).random_(5),
        lambda n: F.dropout(tg.ones(n, 2)), lambda n: F.alpha_dropout(tg.ones(n, 2), 0.3, True),
        lambda n: F.dropout2d(tg.ones(2, n, 3, 2)), lambda n: F.rrelu(tg.ones(n), training=True),
        lambda n: F.batch_norm(tg.ones(4, n), tg.zeros(n), tg.ones(n), training=True),
        lambda n: F.instance_norm(tg.randn(2, n, 3), tg.zeros(n), tg.ones(n), use_input_stats=True),
    ]
    for draw in draws:
        draw(next(_SHAPES))
    traces = _cache.stats()["kernels"]["traces"]
    with _Compiles() as seen:
        for draw in draws:
            draw(next(_SHAPES))
    assert len(seen.names) == _cache.stats()["kernels"]["traces"] - traces, seen.names


def test_jax_tracing_caches_are_emptied_every_so_many_traces_without_torch():
    """JAX's tracing caches key on ``jnp``'s own functions and keep every shape's trace; after
    ``SWEEP_EVERY`` programs traced they are emptied (what was evicted is then freed)."""
    from jax._src import util
    sweeps = _cache._SWEEP["sweeps"]
    x = None
    for _ in range(_cache.SWEEP_EVERY + 1):
        x = tg.ones(next(_SHAPES)) * 2.0 + 1.0
    assert _cache._SWEEP["sweeps"] > sweeps
    assert float(x[0]) == 3.0
    assert callable(util.clear_all_caches)      # the JAX internal the sweep uses (a new JAX may move it)


# ---------------------------------------------------------------------- the compilation cache on disk

_DISK_SCRIPT = """
import warnings
warnings.simplefilter("default")
import tensorgrad as tg
from tensorgrad import _cache, _disk_cache
from tensorgrad._autograd import engine
x = tg.linspace(-1, 1, 12).reshape(3, 4).requires_grad_()
(x.sin() * x).sum().backward()
print(_cache.disk_cache_dir(), round(float(x.grad.sum()), 5))
"""


def _disk_run_env():
    full = {k: v for k, v in os.environ.items() if k not in ("TENSORGRAD_COMPILATION_CACHE", "JAX_COMPILATION_CACHE_DIR")}
    full["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return full


def _disk_run(tmp_path, **env):
    full = {**_disk_run_env(), **env}
    return subprocess.run([sys.executable, "-c", _DISK_SCRIPT], env=full, cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)


def _entries(folder):
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith("-atime") and not p.name.startswith("."))


def test_compiled_programs_are_kept_on_disk_and_reused_without_torch(tmp_path):
    folder = tmp_path / "xla"
    first = _disk_run(tmp_path, TENSORGRAD_COMPILATION_CACHE=str(folder))
    assert first.returncode == 0, first.stderr
    dirname, value = first.stdout.split()
    assert dirname == str(folder)
    kept = _entries(folder)
    assert len(kept) >= 3               # the forward kernels and the backward's
    second = _disk_run(tmp_path, TENSORGRAD_COMPILATION_CACHE=str(folder))
    assert second.returncode == 0 and second.stdout == first.stdout
    assert _entries(folder) == kept     # every program was read back, none compiled and written again
    for name in kept:                   # a corrupt entry is compiled again, never a crash
        (folder / name).write_bytes(b"not a program")
    third = _disk_run(tmp_path, TENSORGRAD_COMPILATION_CACHE=str(folder))
    assert third.returncode == 0, third.stderr
    assert third.stdout == first.stdout


def test_the_disk_cache_turns_off_and_respects_jaxs_own_setting_without_torch(tmp_path):
    off = _disk_run(tmp_path, TENSORGRAD_COMPILATION_CACHE="0")
    assert off.returncode == 0 and off.stdout.split()[0] == "None"
    own = _disk_run(tmp_path, TENSORGRAD_COMPILATION_CACHE=str(tmp_path / "ours"),
                    JAX_COMPILATION_CACHE_DIR=str(tmp_path / "theirs"))
    assert own.returncode == 0 and own.stdout.split()[0] == str(tmp_path / "theirs")
    assert not (tmp_path / "ours").exists()


def test_an_unwritable_cache_folder_warns_once_and_runs_uncached_without_torch(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder would go")
    out = _disk_run(tmp_path, TENSORGRAD_COMPILATION_CACHE=str(blocker / "xla"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "None"
    assert out.stderr.count("RuntimeWarning") == 1 and "cannot be written" in out.stderr


def test_the_folder_is_bounded_here_not_by_a_scan_per_write_without_torch(tmp_path):
    """JAX's own eviction lists the whole folder at every write (0.1 s a write at 4000 entries),
    so it is off; a run bounds the folder in the background at most once a day."""
    folder = tmp_path / "xla"
    folder.mkdir()
    (folder / "old-atime").write_bytes(b"12345678")        # a stamp JAX's eviction left
    out = subprocess.run([sys.executable, "-c", "import tensorgrad, jax, threading\n"
                          "[t.join() for t in threading.enumerate() if t.name == 'tensorgrad-cache-bound']\n"
                          "print(jax.config.jax_compilation_cache_max_size)"],
                         env={**_disk_run_env(), "TENSORGRAD_COMPILATION_CACHE": str(folder)}, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["-1"]
    assert (folder / _disk_cache._STAMP).exists() and not (folder / "old-atime").exists()


def test_bounding_removes_the_least_recently_used_entries_without_torch(tmp_path):
    now = 1.7e9
    for i in range(10):
        entry = tmp_path / f"k{i}-cache"
        entry.write_bytes(bytes(100))
        os.utime(entry, (now + 10 * i, now))            # k9 was read last
    (tmp_path / "k3-atime").write_bytes(bytes(8))
    (tmp_path / ".lockfile").write_bytes(b"")
    assert _disk_cache.bound_folder(tmp_path, limit=1000) == 0       # within the bound: nothing goes
    assert not (tmp_path / "k3-atime").exists() and (tmp_path / ".lockfile").exists()
    assert _disk_cache.bound_folder(tmp_path, limit=500) == 7        # down to 3/4 of the bound
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lockfile", "k7-cache", "k8-cache", "k9-cache"]


def test_the_folder_is_looked_at_once_a_day_without_torch(tmp_path):
    now = time.time()
    assert _disk_cache._due(str(tmp_path), now)
    assert not _disk_cache._due(str(tmp_path), now + 3600)
    assert _disk_cache._due(str(tmp_path), now + _disk_cache.SWEEP_INTERVAL_S + 1)
    assert not _disk_cache._due(str(tmp_path / "missing"), now)      # no folder: nothing to bound


def test_the_default_cache_folder_is_the_users_cache_without_torch(tmp_path):
    out = _disk_run(tmp_path, XDG_CACHE_HOME=str(tmp_path / "cache"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == str(tmp_path / "cache" / "tensorgrad" / "xla")
    assert _entries(tmp_path / "cache" / "tensorgrad" / "xla")


def test_mask_writes_compile_once_whatever_the_count_of_trues_without_torch():
    """``g[x < 0] = 0`` is PyTorch's masked_fill dispatch of index_put: one ``where`` program for
    every mask, not a program per number of true elements."""
    g = tg.zeros(64, 100)
    rng = np.random.default_rng(0)
    traces = []
    for _ in range(4):
        x = tg.tensor(rng.normal(size=(64, 100)).astype(np.float32))
        before = _cache.stats()["kernels"]["traces"]
        g[x < 0] = 1.5
        traces.append(_cache.stats()["kernels"]["traces"] - before)
        assert (g[x < 0] == 1.5).all()
    assert traces[1:] == [0, 0, 0], traces
    h = tg.zeros(4, 3, requires_grad=True).clone()
    h[:, tg.tensor([True, False, True])] = tg.tensor(2.0)
    assert type(h.grad_fn).__name__ == "IndexPutBackward0" and h.tolist() == [[2.0, 0.0, 2.0]] * 4


def test_eager_kernels_compile_with_the_eager_options_where_the_bits_agree_without_torch(undeferred):
    """Outside a trace a kernel of exact arithmetic compiles with XLA's eager options (its loop
    emitters on the CPU); one computing ``exp`` keeps XLA's defaults, whose exp(4.0) is the
    correctly rounded 54.598148 (the loop emitters' is 54.598152); inside a trace (``jax.jit``,
    ``tensorgrad.compile``), where JAX refuses compiler options, the plain twin is staged into the
    outer program."""
    import jax
    if _cache.eager_options() is None:
        pytest.skip("JAX's default backend is not the CPU")

    def kernel_of(name):
        return next(e[0] for k, e in _cache.KERNELS._entries.items()
                    if isinstance(k, tuple) and getattr(k[0], "name", None) == name)

    n = next(_SHAPES)
    x = tg.ones(n)
    eager = (x * 3.5).tolist()
    mul = kernel_of("mul")
    assert isinstance(mul, _cache._TwoWay) and mul.safe and mul.fast._cache_size() >= 1
    plain_before = mul.plain._cache_size()
    traced = jax.jit(lambda a: (tg.from_jax(a) * 3.5).jax())(jnp.ones(n, jnp.float32))
    assert traced.tolist() == eager
    assert mul.plain._cache_size() == plain_before     # staged, not compiled on its own
    assert tg.tensor([4.0, 6.0, 8.0]).exp().tolist() == [54.598148345947266, 403.4288024902344, 2980.9580078125]
    assert kernel_of("exp").safe is False
    assert not _cache.same_bits(jax.make_jaxpr(lambda a: jnp.exp(a) + 1)(1.0).jaxpr)
    assert _cache.same_bits(jax.make_jaxpr(lambda a: jnp.maximum(a * 2, 0)[::2].sum(where=a[::2] > 0))(
        jnp.ones(4)).jaxpr) is False                   # a sum's order is not
    assert _cache.same_bits(jax.make_jaxpr(lambda a, b: jnp.maximum(a @ b, 0).max(0))(jnp.ones((2, 2)), jnp.ones((2, 2))).jaxpr)


def test_a_clone_without_a_node_compiles_nothing_and_is_a_copy_without_torch():
    n = next(_SHAPES)
    src = tg.arange(float(n))
    src.clone()                          # the dtype's first transfer may compile once
    fresh = tg.arange(float(n + 1))
    view = tg.arange(float(2 * n)).reshape(2, n).t()
    view.tolist()                        # reading the view compiles its reader
    with _Compiles() as seen:
        copy = fresh.clone()
        view_copy = view.clone()
    assert seen.names == []
    # placed as their sources: an uncommitted array's copy stays uncommitted (a committed one would
    # make every kernel it reaches compile once more)
    assert not copy._data.committed and not fresh._data.committed
    assert view_copy.shape == (n, 2) and view_copy[1].tolist() == [1.0, n + 1.0]
    kept = copy.tolist()
    copy_of_copy = copy.clone()
    copy.add_(1)
    assert copy_of_copy.tolist() == kept
    leaf = tg.ones(3, requires_grad=True)
    assert type(leaf.clone().grad_fn).__name__ == "CloneBackward0"
    with tg.no_grad():
        assert leaf.clone().grad_fn is None and not leaf.clone().requires_grad


# ---------------------------------------------------------------------- MLIR contexts

def test_lowerings_share_an_mlir_context_per_thread_for_a_few_dozen_programs_without_torch():
    import threading
    import jax
    from jax._src.interpreters import mlir
    from tensorgrad import _ir_contexts
    assert getattr(mlir.make_ir_context, "reused", False)      # this JAX's lowerings ask the wrapper
    _ir_contexts._LOCAL.held = None
    seen = [mlir.make_ir_context() for _ in range(_ir_contexts.REUSES + 3)]
    assert all(c is seen[0] for c in seen[:_ir_contexts.REUSES])
    assert seen[_ir_contexts.REUSES] is not seen[0]            # then a new one
    other = []
    thread = threading.Thread(target=lambda: other.append(mlir.make_ir_context()))
    thread.start()
    thread.join()
    assert other[0] is not seen[-1]                             # each thread its own
    # programs lowered in one context, and across a replacement, compute what they should
    for k in range(_ir_contexts.REUSES + 5):
        f = jax.jit(lambda x, k=k: x * k + 1.5)
        assert float(f(np.float32(2.0))) == 2.0 * k + 1.5
