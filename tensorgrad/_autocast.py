"""The autocast state (per thread) and which ops it casts, after PyTorch's CPU autocast lists.

Inside an enabled autocast region the ops of ``LOWER_PRECISION`` (matrix products and
convolutions) cast their floating inputs (not float64) to the region's dtype, and the ops of
``FLOAT32`` (losses, reductions and linear algebra that lose accuracy in 16 bits) cast them to
float32. Dispatch (``_tensor/dispatch.py``) asks ``cast_args`` only while some thread has a region
enabled: ``on_autocast`` keeps a module-level flag there, so with autocast off an op pays one
test of a global. Composite functions of the float32 list (``cross_entropy``, ``l1_loss``) run
under ``float32_function``, which casts their arguments and turns autocast off inside them, as
PyTorch's dispatcher does for an op it casts.
"""

import contextlib
import functools
import threading

from . import _dtype

__all__ = ["STATE", "on_autocast", "cast_args", "snapshot", "restored", "float32_function",
           "lower_precision_function", "off", "DEFAULT_DTYPES"]

LOWER_PRECISION = frozenset({
    "mm", "bmm", "addmm", "addbmm", "baddbmm", "matmul", "convolution", "prelu", "sdpa_flash", "einsum",
})

FLOAT32 = frozenset({
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "mse_loss", "nll_loss", "nll_loss2d", "huber_loss",
    "smooth_l1_loss", "soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss", "cdist", "trace", "prod",
    "prod_dim", "cholesky", "cholesky_inverse", "cholesky_solve", "inv", "pinv", "solve",
})

DEFAULT_DTYPES = {"cpu": _dtype.bfloat16, "cuda": _dtype.float16}


class _State(threading.local):
    def __init__(self):
        self.enabled = {}                       # device type -> bool
        self.dtype = dict(DEFAULT_DTYPES)       # device type -> dtype
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}                         # id(leaf) -> (leaf, dtype, cast)


STATE = _State()
_ENABLED_COUNT = [0]            # enabled regions open in all threads
_LOCK = threading.Lock()
_SETTERS = []


def on_autocast(setter):
    """Call ``setter(flag)`` whenever whether some thread has autocast enabled changes."""
    with _LOCK:
        _SETTERS.append(setter)
        setter(_ENABLED_COUNT[0] > 0)


def _count(delta):
    with _LOCK:
        before = _ENABLED_COUNT[0] > 0
        _ENABLED_COUNT[0] += delta
        after = _ENABLED_COUNT[0] > 0
        if before != after:
            for setter in _SETTERS:
                setter(after)


def set_enabled(device_type, enabled):
    """Turn autocast on or off for ``device_type`` in this thread."""
    enabled = bool(enabled)
    was = STATE.enabled.get(device_type, False)
    STATE.enabled[device_type] = enabled
    if enabled != was:
        _count(1 if enabled else -1)


def snapshot():
    """This thread's autocast settings, for ``restored``."""
    return dict(STATE.enabled), dict(STATE.dtype), STATE.cache_enabled


@contextlib.contextmanager
def restored(settings):
    """Run a block with the autocast settings of ``snapshot()`` (a checkpoint's recomputation)."""
    saved = snapshot()
    _apply(settings)
    try:
        yield
    finally:
        _apply(saved)


def _apply(settings):
    enabled, dtypes, cache_enabled = settings
    for device_type in set(enabled) | set(STATE.enabled):
        set_enabled(device_type, enabled.get(device_type, False))
    STATE.dtype = dict(dtypes)
    STATE.cache_enabled = cache_enabled


def _cast(t, dtype):
    """``t`` cast to ``dtype``; casts of leaves that require grad are kept for the region."""
    if STATE.cache_enabled and t._grad_fn is None and t.requires_grad:
        hit = STATE.cache.get(id(t))
        if hit is not None and hit[0] is t and hit[1] == dtype:
            return hit[2]
        out = t.to(dtype)
        STATE.cache[id(t)] = (t, dtype, out)
        return out
    return t.to(dtype)


def _eligible(a, device_type):
    return a.dtype.is_floating_point and a.dtype != _dtype.float64 and a.device.type == device_type


def cast_args(name, args, tensor_type):
    """``args`` with the floating tensors cast as autocast casts op ``name`` (unchanged when the
    op is in neither list or the tensors' device has autocast off)."""
    if name in LOWER_PRECISION:
        target = None
    elif name in FLOAT32:
        target = _dtype.float32
    else:
        return args
    out = []
    changed = False
    for a in args:
        if isinstance(a, tensor_type):
            device_type = a.device.type
            if STATE.enabled.get(device_type, False) and _eligible(a, device_type):
                dtype = STATE.dtype[device_type] if target is None else target
                if a.dtype != dtype:
                    a = _cast(a, dtype)
                    changed = True
        out.append(a)
    return tuple(out) if changed else args


def float32_function(fn):
    """Run ``fn`` (a composite function of PyTorch's float32 list) on float32 arguments with
    autocast off inside, when autocast is on for its tensors' device."""
    return _casting_function(fn, lambda device_type: _dtype.float32)


def lower_precision_function(fn):
    """Run ``fn`` (a function of PyTorch's lower-precision list: ``linear``, ``conv2d``, ``mm``)
    on arguments cast to the autocast dtype, with autocast off inside, when autocast is on."""
    return _casting_function(fn, lambda device_type: STATE.dtype[device_type])


def _casting_function(fn, target):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _ENABLED_COUNT[0] == 0 or not any(STATE.enabled.values()):
            return fn(*args, **kwargs)
        args = [_to(a, target) for a in args]
        kwargs = {k: _to(v, target) for k, v in kwargs.items()}
        saved = snapshot()
        _apply(({}, saved[1], saved[2]))
        try:
            return fn(*args, **kwargs)
        finally:
            _apply(saved)
    return wrapper


@contextlib.contextmanager
def _off():
    saved = snapshot()
    _apply(({}, saved[1], saved[2]))
    try:
        yield
    finally:
        _apply(saved)


def off():
    """A context without autocast (in-place and ``out=`` variants, which PyTorch does not cast);
    a no-op context while no thread has autocast on."""
    if _ENABLED_COUNT[0] == 0 or not any(STATE.enabled.values()):
        return contextlib.nullcontext()
    return _off()


def _to(a, target):
    if isinstance(a, (list, tuple)):
        return type(a)(_to(v, target) for v in a)
    dtype = getattr(a, "dtype", None)
    if isinstance(dtype, _dtype.dtype) and hasattr(a, "_cell"):
        device_type = a.device.type
        if STATE.enabled.get(device_type, False) and _eligible(a, device_type):
            wanted = target(device_type)
            if dtype != wanted:
                return _cast(a, wanted)
    return a


def increment_nesting():
    STATE.nesting += 1
    return STATE.nesting


def decrement_nesting():
    STATE.nesting -= 1
    if STATE.nesting == 0:
        STATE.cache.clear()
    return STATE.nesting
