"""Process-wide runtime settings with PyTorch's names: threads, float32 matmul precision and
deterministic algorithms, each mapped onto what XLA really does.

- Threads: XLA's CPU programs run on one thread pool whose size is fixed when JAX starts its CPU
  backend: the environment variable ``PJRT_NPROC`` (or ``NPROC``) where set, else the number of
  CPUs the process may run on. ``get_num_threads`` says that size; ``set_num_threads`` cannot
  change it and warns when asked for another.
- Matmul precision: ``set_float32_matmul_precision`` sets JAX's ``jax_default_matmul_precision``
  (``'highest'``: float32, ``'high'``: TF32 or three bfloat16 passes, ``'medium'``: bfloat16),
  which XLA applies to the float32 matmuls and convolutions it compiles afterwards. Importing
  tensorgrad sets it to PyTorch's default, ``'highest'``, unless JAX's was already set.
- Deterministic algorithms: recorded and read back. XLA's CPU programs are deterministic; on a
  GPU, XLA chooses deterministic kernels only with ``XLA_FLAGS=--xla_gpu_deterministic_ops=true``
  set before JAX starts, so asking for determinism on a GPU without it warns.
"""

import os
import warnings

import jax

# PyTorch's precision names and JAX's for the same float32 matmul
_TO_JAX = {"highest": "highest", "high": "high", "medium": "bfloat16"}
_FROM_JAX = {"highest": "highest", "float32": "highest", "high": "high", "tensorfloat32": "high",
             "bfloat16_3x": "high", "bfloat16": "medium", "default": "medium", "fastest": "medium"}

if jax.config.jax_default_matmul_precision is None:
    jax.config.update("jax_default_matmul_precision", "highest")


def _pool_size():
    """The size of XLA's CPU thread pool (xla/pjrt/utils.cc ``DefaultThreadPoolSize``)."""
    for name in ("PJRT_NPROC", "NPROC"):
        text = os.environ.get(name, "")
        if text.strip().lstrip("-").isdigit():
            return max(0, int(text))
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_THREADS = _pool_size()
_DETERMINISTIC = {"mode": False, "warn_only": False}


def _check_thread_count(name, n):
    if type(n) is not int:
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")


def _fixed_pool(name, n, what):
    if n != _THREADS:
        warnings.warn(f"{name}({n}) has no effect: XLA runs {what} on its CPU thread pool of {_THREADS} threads, "
                      "whose size is fixed when JAX starts; set the environment variable PJRT_NPROC before "
                      "starting Python to choose it", UserWarning, stacklevel=3)


def get_num_threads():
    """The number of threads XLA's CPU programs run on (fixed when JAX starts).

    >>> import tensorgrad
    >>> tensorgrad.get_num_threads() >= 1
    True
    """
    return _THREADS


def set_num_threads(n, /):
    """PyTorch's intra-op thread count. XLA's CPU thread pool is sized when JAX starts
    (``PJRT_NPROC``), so this checks ``n`` as PyTorch does and warns, changing nothing, when it
    differs from ``get_num_threads()``."""
    _check_thread_count("set_num_threads", n)
    _fixed_pool("set_num_threads", n, "every program")


def get_num_interop_threads():
    """The number of threads XLA runs independent programs on: XLA has no separate inter-op pool,
    so this is its CPU thread pool's size, as ``get_num_threads()``."""
    return _THREADS


def set_num_interop_threads(n, /):
    """PyTorch's inter-op thread count. XLA has no separate inter-op pool and its CPU pool is
    sized when JAX starts, so this checks ``n`` as PyTorch does and warns, changing nothing,
    when it differs from ``get_num_interop_threads()``."""
    _check_thread_count("set_num_interop_threads", n)
    _fixed_pool("set_num_interop_threads", n, "independent programs")


def get_float32_matmul_precision():
    """``'highest'``, ``'high'`` or ``'medium'``: JAX's ``jax_default_matmul_precision`` in
    PyTorch's words.

    >>> import tensorgrad
    >>> tensorgrad.get_float32_matmul_precision()
    'highest'
    """
    return _FROM_JAX.get(str(jax.config.jax_default_matmul_precision).lower(), "medium")


def set_float32_matmul_precision(precision):
    """Set the precision of float32 matmuls and convolutions XLA compiles from now on (JAX's
    ``jax_default_matmul_precision``): ``'highest'`` (float32), ``'high'`` (TF32, or three
    bfloat16 passes), ``'medium'`` (bfloat16). On a CPU XLA computes in float32 whatever is set.
    An unknown name warns and changes nothing, as in PyTorch."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _TO_JAX:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)", UserWarning, stacklevel=2)
        return
    jax.config.update("jax_default_matmul_precision", _TO_JAX[precision])


def _check_bool(argument, value, position=""):
    if type(value) is not bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument '{argument}'{position} must be bool, not "
                        f"{type(value).__name__}")


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Record whether deterministic algorithms are asked for (read back by
    ``are_deterministic_algorithms_enabled``).

    XLA's CPU programs are deterministic already. On a GPU XLA picks deterministic kernels only
    when ``XLA_FLAGS`` held ``--xla_gpu_deterministic_ops=true`` as JAX started; asking for
    determinism there without it warns.
    """
    _check_bool("mode", mode, " (position 1)")
    _check_bool("warn_only", warn_only)
    if mode and _gpu_without_deterministic_ops():
        warnings.warn("use_deterministic_algorithms(True): XLA picks deterministic GPU kernels only with "
                      "XLA_FLAGS=--xla_gpu_deterministic_ops=true set before JAX starts, which it was not",
                      UserWarning, stacklevel=2)
    _DETERMINISTIC["mode"] = mode
    _DETERMINISTIC["warn_only"] = warn_only


def _gpu_without_deterministic_ops():
    flags = os.environ.get("XLA_FLAGS", "").split()
    if "--xla_gpu_deterministic_ops=true" in flags or "--xla_gpu_deterministic_ops" in flags:
        return False
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:  # JAX raises when it has no GPU backend
        return False


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in effect."""
    return _DETERMINISTIC["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    """Whether ``use_deterministic_algorithms`` was called with ``warn_only=True``."""
    return _DETERMINISTIC["warn_only"]
