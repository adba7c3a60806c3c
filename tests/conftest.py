"""pytest configuration for the test suite.

``--doctest-modules`` (set in pyproject.toml so that the package's docstring examples run with
the tests) would import every Python file here; the seed tutorials in ``seeds/`` and the
distributed checks in ``distributed_8dev/`` (8 simulated devices, two processes) are scripts that
``test_seeds.py`` and ``test_distributed.py`` run in subprocesses, so they are not collected.

Tests marked ``long`` (the fuzzer's long profile, the soak runs) are skipped in the default run;
``python -m pytest --long -m long -s`` runs just them.
"""

import os

import pytest

# The suite runs without the compilation cache on disk (its worker processes would share one
# folder, and a warm cache would hide compile costs); tests/test_caches.py checks the cache in
# fresh processes with folders of their own.
os.environ.setdefault("TENSORGRAD_COMPILATION_CACHE", "0")

collect_ignore = ["seeds", "programs", "distributed_8dev"]


def pytest_addoption(parser):
    parser.addoption("--long", action="store_true", default=False,
                     help="run the long profiles (tests marked long): fuzzing and soak runs")


def pytest_configure(config):
    config.addinivalue_line("markers", "long: a long profile (fuzz, soak), run only with --long")


# the longest files first (minutes on two cores), so that ``-n auto --dist loadfile`` starts
# them at once instead of leaving one to run alone at the end
# (measured: ``--durations=0`` summed by file)
LONGEST_FIRST = ("test_ops.py", "test_nn.py", "test_nn_functional.py", "test_surface.py", "test_compile.py",
                 "test_compile_guards.py", "test_seeds.py", "test_examples.py", "test_nn_extra_modules.py",
                 "test_parametrize.py", "test_views.py", "test_distributed.py", "test_autograd_api.py",
                 "test_caches.py", "test_optim_complex.py", "test_func.py", "test_host_random.py",
                 "test_gradients_at_points.py", "test_programs.py", "test_distributions.py", "test_autograd.py",
                 "test_staged_backward.py", "test_fuzz_opinfo.py", "test_as_torch.py", "test_printing.py",
                 "test_complex.py")


def _rank(item):
    name = item.path.name
    return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_collection_modifyitems(config, items):
    items.sort(key=_rank)       # stable: each file keeps its own order
    if config.getoption("--long"):
        return
    skip = pytest.mark.skip(reason="a long profile: run with --long")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def undeferred():
    """The test body runs every op at once (``tensorgrad/_storage/lazy.py``'s deferral off): for
    tests of the eager path's own kernels, caches and engine."""
    from tensorgrad._storage import lazy
    old = lazy.set_enabled(False)
    yield
    lazy.set_enabled(old)
