"""The runtime namespaces (``tensorgrad.cuda``, ``accelerator``, ``mps``, ``backends``) and the
top-level runtime settings (threads, matmul precision, determinism, the default device, the
version), against PyTorch.

The oracle is a PyTorch built without CUDA, so the differential cases of ``cuda`` hold on a
machine where JAX has no GPU (they skip where it has one). Each snippet that changes a setting
restores it before it ends, in both libraries.
"""

import os
import pathlib
import re
import subprocess
import sys
import threading
import warnings

import jax
import pytest

import tensorgrad as tg
from oracle import torch, _oracle  # noqa: F401  (the autouse fixture skips without PyTorch)
from snippets import cases, ids, same

ROOT = pathlib.Path(__file__).resolve().parents[1]
NO_GPU = pytest.mark.skipif(tg.cuda.is_available(), reason="PyTorch's CPU build is the oracle of a machine without GPU")


# ====================================================================== torch.cuda without a GPU

CUDA_CASES = cases("""
torch.cuda.is_available(), torch.cuda.device_count(), torch.cuda.is_bf16_supported(), torch.cuda.is_bf16_supported(False)
---
torch.cuda.current_device()
---
torch.cuda.get_device_name()
---
torch.cuda.get_device_name(0)
---
torch.cuda.get_device_properties(0)
---
torch.cuda.get_device_properties('cpu')
---
torch.cuda.set_device(-1)
---
torch.cuda.set_device(0)
---
torch.cuda.set_device('cuda:0')
---
torch.cuda.set_device('cpu')
---
torch.cuda.set_device('cuda')
---
torch.cuda.set_device(None)
---
torch.cuda.set_device(1.5)
---
torch.cuda.set_device('foo')
---
torch.cuda.manual_seed(1), torch.cuda.manual_seed_all(2), torch.cuda.seed(), torch.cuda.manual_seed(1.7)
---
torch.cuda.manual_seed('a')
---
torch.cuda.manual_seed(None)
---
torch.cuda.manual_seed_all('x')
---
torch.cuda.synchronize()
---
torch.cuda.synchronize('cpu')
---
torch.cuda.empty_cache()
---
torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated(), torch.cuda.memory_reserved()
---
torch.cuda.memory_allocated('cpu'), torch.cuda.memory_allocated(5), torch.cuda.memory_reserved('cuda:3'), torch.cuda.max_memory_allocated('foo')
---
torch.cuda.reset_peak_memory_stats()
---
torch.cuda.reset_peak_memory_stats('cpu')
---
torch.cuda.reset_peak_memory_stats('foo')
---
d = torch.cuda.device(0)
d.idx, d.prev_idx
---
torch.cuda.device(0).__enter__()
---
torch.cuda.device('cuda').idx, torch.cuda.device(torch.device('cuda', 1)).idx
---
torch.cuda.device('cpu')
---
torch.cuda.device(None).__enter__()
---
with torch.cuda.device(-1):
    r = torch.zeros(1).device
r
---
torch.cuda.is_available(1)
---
torch.zeros(2, device='cuda')
---
torch.ones(2).to('cuda')
---
torch.accelerator.is_available(), torch.accelerator.current_accelerator(), torch.accelerator.device_count()
---
torch.accelerator.current_accelerator(True), torch.accelerator.current_accelerator(check_available=False)
---
torch.backends.cudnn.is_available(), torch.backends.cuda.is_built(), torch.backends.mps.is_available(), torch.backends.mps.is_built()
---
torch.device(0)
---
torch.set_default_device(0)
""")


@NO_GPU
@pytest.mark.parametrize("src", CUDA_CASES, ids=ids(CUDA_CASES))
def test_cuda_without_gpu_matches_torch(src):
    same(torch, src)


# ====================================================================== mps

MPS_CASES = cases("""
torch.mps.is_available(), torch.mps.device_count(), torch.mps.manual_seed(1), torch.mps.manual_seed('x')
---
torch.mps.seed()
---
torch.mps.synchronize()
---
torch.mps.empty_cache()
---
torch.mps.is_available(1)
""")


@pytest.mark.parametrize("src", MPS_CASES, ids=ids(MPS_CASES))
def test_mps_matches_torch(src):
    same(torch, src)


# ====================================================================== the default device

DEFAULT_DEVICE_CASES = cases("""
torch.set_default_device('cpu:0')
try:
    r = torch.get_default_device(), torch.zeros(1).device, torch.tensor([1.0]).device
finally:
    torch.set_default_device(None)
r
---
torch.set_default_device(torch.device('cpu'))
try:
    r = torch.get_default_device(), torch.arange(3).device, torch.rand(2).device
finally:
    torch.set_default_device(None)
r
---
with torch.device('cpu') as d:
    inner = torch.get_default_device(), torch.ones(2).device
    with torch.device('cpu:0'):
        nested = torch.get_default_device()
    after = torch.get_default_device()
d, inner, nested, after
---
torch.set_default_device('cpu:0')
try:
    with torch.device('cpu'):
        inside = torch.get_default_device()
    r = inside, torch.get_default_device()
finally:
    torch.set_default_device(None)
r
---
torch.set_default_device('cpu:0')
try:
    seen = []
    t = threading.Thread(target=lambda: seen.append(torch.get_default_device()))
    t.start()
    t.join()
finally:
    torch.set_default_device(None)
seen
---
torch.set_default_device('foo')
---
torch.set_default_device()
---
with torch.device('foo'):
    pass
---
torch.set_default_device('cpu:0')
try:
    torch.set_default_device('foo')
except RuntimeError:
    pass
r = torch.get_default_device()
torch.set_default_device(None)
r
---
torch.set_default_device(device='cpu')
r = torch.get_default_device()
torch.set_default_device(None)
r
""")


@pytest.mark.parametrize("src", DEFAULT_DEVICE_CASES, ids=ids(DEFAULT_DEVICE_CASES))
def test_default_device_matches_torch(src):
    same(torch, "import threading\n" + src)


@NO_GPU
def test_cuda_as_default_device_raises_as_torch_does():
    same(torch, """
torch.set_default_device('cuda')
try:
    try:
        torch.get_default_device()
    except AssertionError as e:
        first = str(e)
    torch.zeros(1)
finally:
    torch.set_default_device(None)
""")


def test_default_device_is_per_thread_without_torch():
    seen = []
    with tg.device("cpu:0"):
        worker = threading.Thread(target=lambda: seen.append(tg.get_default_device()))
        worker.start()
        worker.join()
        assert tg.get_default_device() == tg.device("cpu", 0)
    assert seen == [tg.get_default_device()] and seen[0].index is None


# ====================================================================== threads

THREAD_CASES = cases("""
torch.set_num_threads(0)
---
torch.set_num_threads(-1)
---
torch.set_num_threads('a')
---
torch.set_num_threads(True)
---
torch.set_num_threads(2.0)
---
torch.set_num_interop_threads(0)
---
torch.set_num_interop_threads(1.5)
---
torch.get_num_threads() >= 1, torch.get_num_interop_threads() >= 1
---
torch.set_num_threads(torch.get_num_threads())
""")


@pytest.mark.parametrize("src", THREAD_CASES, ids=ids(THREAD_CASES))
def test_threads_match_torch(src):
    same(torch, src)


def test_set_num_threads_warns_that_the_pool_is_fixed_without_torch():
    n = tg.get_num_threads()
    with pytest.warns(UserWarning, match="has no effect.*PJRT_NPROC"):
        tg.set_num_threads(n + 1)
    with pytest.warns(UserWarning, match="has no effect"):
        tg.set_num_interop_threads(n + 1)
    assert tg.get_num_threads() == n and tg.get_num_interop_threads() == n
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tg.set_num_threads(n)   # what is real: nothing to warn about
    with pytest.raises(TypeError):
        tg.set_num_threads(n=1)


def test_get_num_threads_is_xla_pool_size_without_torch():
    """XLA's CPU pool has ``PJRT_NPROC`` threads where it is set: count them in a fresh process."""
    code = ("import os, collections, tensorgrad as t; (t.ones(64, 64) @ t.ones(64, 64)).sum().item(); "
            "names = [open(f'/proc/self/task/{k}/comm').read().strip() for k in os.listdir('/proc/self/task')]; "
            "print(t.get_num_threads(), collections.Counter(names)['tf_XLAEigen'])")
    if not pathlib.Path("/proc/self/task").exists():
        pytest.skip("counting threads needs Linux's /proc")
    env = dict(os.environ, PJRT_NPROC="3", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "3"]


# ====================================================================== matmul precision and TF32

PRECISION_CASES = cases("""
torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32
---
torch.set_float32_matmul_precision('high')
try:
    r = torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32
finally:
    torch.set_float32_matmul_precision('highest')
r, torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32
---
torch.set_float32_matmul_precision(precision='medium')
try:
    r = torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32
finally:
    torch.set_float32_matmul_precision('highest')
r
---
torch.set_float32_matmul_precision('foo')
torch.get_float32_matmul_precision()
---
torch.set_float32_matmul_precision(1)
---
torch.backends.cuda.matmul.allow_tf32 = True
try:
    r = torch.get_float32_matmul_precision()
finally:
    torch.backends.cuda.matmul.allow_tf32 = False
r, torch.get_float32_matmul_precision()
---
torch.backends.cuda.matmul.allow_tf32 = 1
---
torch.backends.cuda.matmul.foo = True
---
torch.backends.cuda.matmul.foo
""")


@pytest.mark.parametrize("src", PRECISION_CASES, ids=ids(PRECISION_CASES))
def test_matmul_precision_matches_torch(src):
    same(torch, src)


def test_matmul_precision_is_jax_default_matmul_precision_without_torch():
    assert jax.config.jax_default_matmul_precision == "highest"
    try:
        for ours, theirs in (("high", "high"), ("medium", "bfloat16"), ("highest", "highest")):
            tg.set_float32_matmul_precision(ours)
            assert jax.config.jax_default_matmul_precision == theirs
            assert tg.get_float32_matmul_precision() == ours
        tg.backends.cuda.matmul.allow_tf32 = True
        assert jax.config.jax_default_matmul_precision == "high"
        with pytest.raises(RuntimeError, match="expects a bool"):
            tg.backends.cuda.matmul.allow_tf32 = 1
        assert jax.config.jax_default_matmul_precision == "high"   # unchanged by the refusal
    finally:
        tg.set_float32_matmul_precision("highest")


# ====================================================================== determinism

DETERMINISM_CASES = cases("""
torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
---
torch.use_deterministic_algorithms(True, warn_only=True)
try:
    r = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
finally:
    torch.use_deterministic_algorithms(False)
r, torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
---
torch.use_deterministic_algorithms(mode=True)
try:
    r = torch.are_deterministic_algorithms_enabled()
finally:
    torch.use_deterministic_algorithms(False)
r
---
torch.use_deterministic_algorithms(1)
---
torch.use_deterministic_algorithms('a')
---
torch.use_deterministic_algorithms(True, warn_only=1)
---
torch.use_deterministic_algorithms()
---
torch.use_deterministic_algorithms(True, foo=1)
""")


@pytest.mark.parametrize("src", DETERMINISM_CASES, ids=ids(DETERMINISM_CASES))
def test_determinism_matches_torch(src):
    same(torch, src)


def test_refused_determinism_changes_nothing_without_torch():
    with pytest.raises(TypeError, match="must be bool, not int"):
        tg.use_deterministic_algorithms(True, warn_only=1)
    assert not tg.are_deterministic_algorithms_enabled()
    assert not tg.is_deterministic_algorithms_warn_only_enabled()


# ====================================================================== backends.cudnn

CUDNN_CASES = [f"torch.backends.cudnn.{flag}" for flag in ("benchmark", "deterministic", "enabled", "allow_tf32")]
CUDNN_CASES += [f"""
old = torch.backends.cudnn.{flag}
torch.backends.cudnn.{flag} = not old
r = torch.backends.cudnn.{flag}
torch.backends.cudnn.{flag} = old
r, torch.backends.cudnn.{flag}""" for flag in ("benchmark", "deterministic", "enabled", "allow_tf32")]
CUDNN_CASES += [f"torch.backends.cudnn.{flag} = {value}" for flag in ("benchmark", "deterministic", "enabled",
                                                                       "allow_tf32") for value in ("1", "'x'", "None")]


@pytest.mark.parametrize("src", CUDNN_CASES, ids=ids(CUDNN_CASES))
def test_cudnn_flags_match_torch(src):
    # importing torch.testing._internal (the OpInfo tests do) freezes PyTorch's global cudnn
    # flags; the comparison is with a PyTorch whose flags can be set, as a script's are
    flags = torch.backends.flags_frozen.__globals__
    allowed = flags["__allow_nonbracketed_mutation_flag"]
    flags["__allow_nonbracketed_mutation_flag"] = True
    try:
        same(torch, src)
    finally:
        flags["__allow_nonbracketed_mutation_flag"] = allowed


def test_refused_cudnn_flag_changes_nothing_without_torch():
    with pytest.raises(RuntimeError, match="set_benchmark_cudnn expects a bool, but got int"):
        tg.backends.cudnn.benchmark = 1
    assert tg.backends.cudnn.benchmark is False
    with pytest.raises(AttributeError, match="module 'tensorgrad.backends.cudnn' has no attribute 'foo'"):
        tg.backends.cudnn.foo


# ====================================================================== the version

def test_version_is_pyprojects_without_torch():
    pinned = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert tg.__version__ == pinned and tg.version.__version__ is tg.__version__
    assert isinstance(tg.__version__, str)
    assert tg.version.cuda is None or tg.cuda.is_available()


def test_version_compares_as_torch_version_does_without_torch():
    v = tg.version.Version("0.10.0")
    assert v > "0.9" and v >= (0, 10) and v < (1,) and v == "0.10.0" and "0.9" < v
    assert not v < "0.10" and hash(v) == hash("0.10.0")
    assert v < "parrot"    # no version: compared as a string, as torch's TorchVersion falls back
    with pytest.raises(TypeError):
        v < 3


def test_version_attributes_match_torch():
    assert type(tg.version.cuda) is type(torch.version.cuda) or tg.cuda.is_available()
    for name in ("__version__", "cuda", "hip", "debug"):
        assert hasattr(tg.version, name) and hasattr(torch.version, name)
    assert (torch.__version__ > "2.0", torch.__version__ < (99,)) == (tg.__version__ > "0.0", tg.__version__ < (99,))
