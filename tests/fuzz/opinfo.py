"""PyTorch's OpInfo samples run through tensorgrad: a second source of fuzz inputs.

For every OpInfo whose op tensorgrad has (by name: ``torch.add`` -> ``tensorgrad.add``,
``nn.functional.relu`` -> ``tensorgrad.nn.functional.relu``; a method-only name such as
``__radd__`` as a Tensor method, called unbound as op_db calls it; an OpInfo whose op is a
lambda, the lambda itself with ``torch`` bound to tensorgrad: op_db's lambdas reorder arguments,
``torch.where(condition, self, other)``), each float32 sample (complex64 for an op without float32) from ``op.sample_inputs("cpu", torch.float32, requires_grad=True)``
is converted to tensorgrad (tensors through numpy, dtypes by name), called, and compared:
output structure, dtypes, shapes and values, then the gradients of the outputs (weighted by
fixed random cotangents) with respect to every input that requires grad.

Where tensorgrad's answer differs from PyTorch's float32 one, it is still ``ok`` when it agrees
with PyTorch's answer in float64, or is no farther from it than PyTorch's float32 one is (an
ill-conditioned sample), or, for a gradient, agrees with float64 central differences that
PyTorch's own gradient fails (``as_strided_scatter``); eigenvectors and singular vectors are
compared through the OpInfo's own processing (unique up to phase); uninitialized results
(``empty*``) by dtype and shape only.

A sample ends in one of: ``ok``, ``mismatch`` (a silent wrong answer: value, dtype, shape or
gradient), ``raises`` (tensorgrad rejects what PyTorch accepts: a missing feature, reported but
not failed), ``skipped`` (the sample holds something that has no tensorgrad twin, PyTorch itself
raises, or the op is random: two calls differ).
"""

import dataclasses
import dis
import functools
import types
import warnings

import numpy as np

import tensorgrad

from fuzz.interpret import close
from oracle import torch

@functools.cache
def load_op_db():
    """PyTorch's OpInfo database, or None where PyTorch or its test helpers' dependency
    (expecttest) is missing. Imported at first use (8 s), not when the tests are collected."""
    try:
        from torch.testing._internal.common_methods_invocations import op_db
    except ImportError:
        return None
    # op_db's sample iterators look for the unittest case they run in with ``inspect.stack()``,
    # which reads the source of every frame: under pytest's deep stacks that was 85% of the
    # error sweep's 40 s. No sample here runs in a unittest case, so the answer is always None.
    from torch.testing._internal import common_utils
    from torch.testing._internal.opinfo import core
    common_utils.extract_test_fn = core.extract_test_fn = lambda: None
    return op_db


class Unconvertible(Exception):
    """A sample argument without a tensorgrad twin (a memory format, a generator, ...)."""


def resolve(info):
    """``(callable, is_method)`` for the OpInfo in tensorgrad, or None."""
    if getattr(info.op, "__name__", "") == "<lambda>":
        return _rebound(info.op)
    if "." not in info.name and getattr(torch.Tensor, info.name, None) is info.op:
        # a Tensor method (``torch.Tensor.cfloat``), not the function or dtype of its name
        return (info.name, True) if hasattr(tensorgrad.Tensor, info.name) else None
    obj = tensorgrad
    for part in info.name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            break
    if obj is not None and not isinstance(obj, types.ModuleType):
        return obj, False
    if "." not in info.name and hasattr(tensorgrad.Tensor, info.name):
        return info.name, True
    return None


def _unseeded(op, *args, **kwargs):
    """op_db's ``wrapper_set_seed`` without the seed: tensorgrad's random stream is not
    PyTorch's, so a random op's two calls differ and its samples are skipped, not compared."""
    return op(*args, **kwargs)


def _rebound(fn):
    """An OpInfo's lambda (``lambda self, condition, other: torch.where(condition, self, other)``)
    with ``torch`` bound to tensorgrad, ``(callable, False)``; None where it names a global other
    than ``torch`` and ``wrapper_set_seed``, or an attribute tensorgrad lacks."""
    instructions = list(_instructions(fn.__code__))
    chained = set()
    for k, ins in enumerate(instructions):
        if ins.opname != "LOAD_GLOBAL":
            continue
        if ins.argval == "wrapper_set_seed":
            continue
        if ins.argval != "torch":
            return None
        obj = tensorgrad
        for follow in instructions[k + 1:]:
            if follow.opname not in ("LOAD_ATTR", "LOAD_METHOD"):
                break
            obj = getattr(obj, follow.argval, None)
            if obj is None:
                return None
            chained.add(follow.argval)
    names = {i.argval for i in instructions if i.opname in ("LOAD_ATTR", "LOAD_METHOD")}
    if not all(hasattr(tensorgrad.Tensor, n) for n in names - chained):
        return None
    scope = dict(fn.__globals__, torch=tensorgrad, wrapper_set_seed=_unseeded)
    rebound = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
    rebound.seeded = any(i.opname == "LOAD_GLOBAL" and i.argval == "wrapper_set_seed" for i in instructions)
    return rebound, False


def _instructions(code):
    """The bytecode of ``code`` and of the lambdas inside it."""
    for ins in dis.get_instructions(code):
        yield ins
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _instructions(const)


def convert(x, bases=None):
    """A sample argument in tensorgrad's terms (tensors through numpy, dtypes by name). With
    ``bases`` (``{storage pointer: tensorgrad tensor}``, from ``shared_bases``), a tensor that
    shares memory with another argument, or is not contiguous, becomes the same view of one
    tensorgrad base: error inputs test aliasing (``out=`` overlapping an input)."""
    if isinstance(x, torch.Tensor):
        if bases and not x.requires_grad and x.layout == torch.strided \
                and x.untyped_storage().data_ptr() in bases:
            base = bases[x.untyped_storage().data_ptr()]
            return tensorgrad.as_strided(base, tuple(x.shape), x.stride(), x.storage_offset())
        if x.layout != torch.strided or x.dtype not in (
                torch.float32, torch.float64, torch.int64, torch.int32, torch.bool, torch.float16, torch.bfloat16,
                torch.complex64, torch.complex128):
            raise Unconvertible(f"a {x.dtype} {x.layout} tensor")
        values = x.detach().to(torch.float32 if x.dtype == torch.bfloat16 else x.dtype).resolve_conj().resolve_neg().numpy()
        t = tensorgrad.tensor(values, dtype=convert(x.dtype))
        return t.requires_grad_() if x.requires_grad else t
    if isinstance(x, torch.dtype):
        return getattr(tensorgrad, str(x).removeprefix("torch."))
    if isinstance(x, torch.Size):
        return tuple(x)
    if isinstance(x, torch.device):
        return str(x)
    if isinstance(x, (list, tuple)):
        return type(x)(convert(v, bases) for v in x)
    if isinstance(x, dict):
        return {k: convert(v, bases) for k, v in x.items()}
    if x is None or isinstance(x, (bool, int, float, str, slice, type(Ellipsis))):
        return x
    raise Unconvertible(f"a {type(x).__name__} argument")


def shared_bases(values):
    """``{storage pointer: tensorgrad tensor of the whole storage}`` for the storages that the
    tensors in ``values`` share with one another, or hold a non-contiguous view of."""
    tensors = [t for t in tensors_of(values, torch.Tensor) if t.layout == torch.strided and not t.requires_grad]
    count = {}
    for t in tensors:
        count[t.untyped_storage().data_ptr()] = count.get(t.untyped_storage().data_ptr(), 0) + 1
    bases = {}
    for t in tensors:
        ptr = t.untyped_storage().data_ptr()
        if ptr not in bases and (count[ptr] > 1 or not t.is_contiguous()):
            whole = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage())
            bases[ptr] = convert(whole)
    return bases


def tensors_of(x, kind):
    """The tensors in a nested output or argument structure, in order."""
    if isinstance(x, kind):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in tensors_of(v, kind)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in tensors_of(v, kind)]
    return []


@dataclasses.dataclass
class Outcome:
    op: str
    sample: int
    status: str    # ok, mismatch, raises, skipped
    detail: str = ""


def call(fn, is_method, args, kwargs):
    if is_method:   # unbound, as op_db calls ``torch.Tensor.__radd__(2, t)``
        return getattr(tensorgrad.Tensor, fn)(*args, **kwargs)
    return fn(*args, **kwargs)


# ops whose values are undefined (uninitialized memory): their outputs' dtypes and shapes are compared
UNINITIALIZED = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted"}
# decompositions unique only up to the sign or phase of their vectors
GAUGE = ("linalg.eig", "linalg.svd", "svd", "svd_lowrank", "pca_lowrank")


def _partial_view(t):
    """Whether ``t`` shows only part of its storage (a slice, an offset view)."""
    return t.storage_offset() != 0 or t.untyped_storage().nbytes() != t.numel() * t.element_size()


def compare_outputs(ours, theirs, values=True):
    """The first difference between two outputs, or None (with ``values=False``, of structure,
    dtypes and shapes only)."""
    if isinstance(theirs, torch.Tensor):
        if not isinstance(ours, tensorgrad.Tensor):
            return f"a {type(ours).__name__} where PyTorch returns a Tensor"
        if str(ours.dtype) != str(theirs.dtype) or tuple(ours.shape) != tuple(theirs.shape):
            return f"{ours.dtype}{tuple(ours.shape)} where PyTorch has {theirs.dtype}{tuple(theirs.shape)}"
        if not values:
            return None
        expected = theirs.detach().numpy(force=True) if theirs.dtype != torch.bfloat16 else \
            theirs.detach().float().numpy()
        got = np.asarray(ours.detach().numpy(force=True)).astype(expected.dtype)
        # a complex result is compared with its real dtype's tolerance
        ok, _ = close(got, expected, str(theirs.dtype).replace("complex64", "float32").replace("complex128", "float64"))
        return None if ok else f"values {got.ravel()[:6]} where PyTorch has {expected.ravel()[:6]}"
    if isinstance(theirs, (list, tuple)):
        if not isinstance(ours, (list, tuple)) or len(ours) != len(theirs):
            return f"{type(ours).__name__} of {len(ours) if isinstance(ours, (list, tuple)) else '-'} " \
                   f"where PyTorch returns {type(theirs).__name__} of {len(theirs)}"
        for k, (o, t) in enumerate(zip(ours, theirs)):
            found = compare_outputs(o, t, values)
            if found:
                return f"[{k}] {found}"
        return None
    if isinstance(theirs, (bool, int, float)) and isinstance(ours, (bool, int, float)):
        return None if np.isclose(ours, theirs, rtol=1e-4, atol=1e-5, equal_nan=True) else f"{ours} != {theirs}"
    return None if ours == theirs else f"{ours!r} where PyTorch returns {theirs!r}"


def deterministic(first, second):
    """Whether two PyTorch results are equal (a random op's are not)."""
    a, b = tensors_of(first, torch.Tensor), tensors_of(second, torch.Tensor)
    return len(a) == len(b) and all(x.shape == y.shape and torch.equal(x.detach().nan_to_num(), y.detach().nan_to_num())
                                    for x, y in zip(a, b))


def gradients(module, outputs, inputs):
    """Gradients of the float outputs (fixed cotangents) w.r.t. ``inputs``, as numpy (zeros for
    an unused input)."""
    outs = [t for t in tensors_of(outputs, module.Tensor) if t.requires_grad]
    if not outs or not inputs:
        return None
    rng = np.random.default_rng(0)
    cts = []
    for t in outs:
        ct = rng.uniform(-1, 1, tuple(t.shape)).astype(np.float32)
        if t.is_complex():
            ct = ct + 1j * rng.uniform(-1, 1, tuple(t.shape)).astype(np.float32)
        cts.append(module.tensor(ct, dtype=t.dtype))
    grads = module.autograd.grad(outs, inputs, cts, allow_unused=True)
    return [np.zeros(tuple(x.shape), np.float32) if g is None else np.asarray(g.detach().numpy(force=True))
            for g, x in zip(grads, inputs)]


def label(info):
    """The OpInfo's name with its variant (``max.reduction_with_dim``)."""
    return f"{info.name}.{info.variant_test_name}" if info.variant_test_name else info.name


def run_sample(info, fn, is_method, index, sample):
    """One sample: PyTorch's result and gradients, tensorgrad's, compared (warnings, which this
    sweep does not compare, are silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome = _run_sample(info, fn, is_method, sample)
    return Outcome(label(info), index, *outcome)


def _run_sample(info, fn, is_method, sample):
    try:
        args = [sample.input, *sample.args]
        if info.name.startswith("as_strided") and any(_partial_view(t) for t in tensors_of(args, torch.Tensor)):
            raise Unconvertible("a view that as_strided reads through to its storage (converted alone)")
        ours_args, ours_kwargs = convert(args), convert(sample.kwargs)
        theirs = call(info.op, False, args, sample.kwargs)
        if not deterministic(call(info.op, False, args, sample.kwargs), theirs):
            return ("skipped", "random: PyTorch's own two calls differ")
        processed = sample.output_process_fn_grad(theirs)
        theirs_inputs = [t for t in tensors_of(args, torch.Tensor) if t.requires_grad]
        theirs_grads = gradients(torch, processed, theirs_inputs)
    except Unconvertible as e:
        return ("skipped", str(e))
    except Exception as e:  # noqa: BLE001 - a sample PyTorch itself rejects says nothing
        return ("skipped", f"PyTorch raises {type(e).__name__}")
    try:
        ours = call(fn, is_method, ours_args, ours_kwargs)
    except Exception as e:  # noqa: BLE001 - reported as a missing feature
        return ("raises", f"{type(e).__name__}: {str(e)[:120]}")
    found = compare_outputs(ours, theirs, values=info.name not in UNINITIALIZED)
    if found and info.name.startswith(GAUGE):
        # eigenvectors and singular vectors are unique up to sign or phase: compare what the
        # OpInfo's own processing keeps (``abs``, products that cancel the phase)
        found = compare_outputs(sample.output_process_fn_grad(ours), processed)
    if found and getattr(fn, "seeded", False):
        return ("skipped", "random: op_db seeds PyTorch's generator, whose stream tensorgrad's is not")
    if found and compare_outputs(call(fn, is_method, convert(args), convert(sample.kwargs)), theirs) != found:
        return ("skipped", "random: tensorgrad's own two calls differ (PyTorch's OpInfo seeds its RNG)")
    wide = None
    if found:
        wide = _wide_reference(info, args, sample)
        if wide is None or compare_outputs(ours, _narrowed_like(wide[0], theirs)):
            return ("mismatch", f"forward: {found}")
    if theirs_grads is None:
        return ("ok",)
    try:
        ours_inputs = [t for t in tensors_of(ours_args, tensorgrad.Tensor) if t.requires_grad]
        ours_grads = gradients(tensorgrad, sample.output_process_fn_grad(ours), ours_inputs)
    except Exception as e:  # noqa: BLE001 - reported as a missing feature
        return ("raises", f"backward: {type(e).__name__}: {str(e)[:120]}")
    if ours_grads is None:
        return ("mismatch", "backward: no output requires grad")
    found = _grads_differ(ours_grads, theirs_grads)
    if found:
        wide = wide or _wide_reference(info, args, sample)
        if wide is None or wide[1] is None or (_grads_differ(ours_grads, wide[1])
                                               and not _no_farther(ours_grads, theirs_grads, wide[1])):
            numerical = _numerical_gradients(info, args, sample)
            if numerical is None or _grads_differ(ours_grads, numerical) or not _grads_differ(theirs_grads, numerical):
                return ("mismatch", found)
    return ("ok",)


def _numerical_gradients(info, args, sample, limit=2000, h=1e-6):
    """Central differences of ``sum(cotangent * output)`` in float64 (PyTorch computing), for
    real inputs of at most ``limit`` elements in all: where PyTorch's analytical gradient
    disagrees with these and tensorgrad's agrees, the bug is PyTorch's (``as_strided_scatter``'s
    gradient fails PyTorch's own gradcheck); None where they cannot be computed."""
    try:
        wide_args = _widened(args)
        wide_kwargs = _widened(sample.kwargs)
        inputs = [t for t in tensors_of(wide_args, torch.Tensor) if t.requires_grad]
        if not inputs or any(t.is_complex() for t in inputs) or sum(t.numel() for t in inputs) > limit:
            return None

        def loss():
            with torch.no_grad():
                outs = tensors_of(sample.output_process_fn_grad(call(info.op, False, wide_args, wide_kwargs)),
                                  torch.Tensor)
                outs = [o for o in outs if o.dtype.is_floating_point]
                rng = np.random.default_rng(0)
                return sum(float((o.double() * torch.from_numpy(rng.uniform(-1, 1, tuple(o.shape)))).sum())
                           for o in outs)
        grads = []
        for t in inputs:
            flat, g = t.data.view(-1), np.zeros(t.numel())
            for k in range(t.numel()):
                keep = float(flat[k])
                flat[k] = keep + h
                up = loss()
                flat[k] = keep - h
                down = loss()
                flat[k] = keep
                g[k] = (up - down) / (2 * h)
            grads.append(g.reshape(tuple(t.shape)))
        return grads
    except Exception:  # noqa: BLE001 - no numerical reference
        return None


def _no_farther(ours, theirs, reference):
    """Whether every gradient of tensorgrad's is as close to the float64 ``reference`` as
    PyTorch's float32 one is (an ill-conditioned sample, where float32 itself cannot agree)."""
    for g, h, r in zip(ours, theirs, reference):
        if g.shape != r.shape or not np.all(np.isfinite(g) == np.isfinite(r)):
            return False
        mine = np.nan_to_num(np.abs(g.astype(np.float64) - r)).max(initial=0)
        pytorch = np.nan_to_num(np.abs(h.astype(np.float64) - r)).max(initial=0)
        if mine > pytorch:
            return False
    return True


def _grads_differ(ours, theirs):
    for k, (g, h) in enumerate(zip(ours, theirs)):
        ok, _ = close(g.astype(h.dtype), h, "float32")
        if not ok or g.shape != h.shape:
            return f"grad of input {k}: {g.ravel()[:6]} where PyTorch has {h.ravel()[:6]}"
    return None


def _wide_reference(info, args, sample):
    """PyTorch's outputs and gradients with the float32 inputs in float64: where tensorgrad's
    float32 answer differs from PyTorch's float32 one but agrees with this, PyTorch's float32
    kernel is the less accurate (``logcumsumexp`` next to 1e4); None where it cannot be computed."""
    try:
        wide_args, wide_kwargs = _widened(args), _widened(sample.kwargs)
        theirs = call(info.op, False, wide_args, wide_kwargs)
        inputs = [t for t in tensors_of(wide_args, torch.Tensor) if t.requires_grad]
        return theirs, gradients(torch, sample.output_process_fn_grad(theirs), inputs)
    except Exception:  # noqa: BLE001 - no wider reference (an op without float64, ...)
        return None


def _widened(x):
    if isinstance(x, torch.Tensor):
        wide = {torch.float32: torch.float64, torch.complex64: torch.complex128}.get(x.dtype)
        if wide is None:
            return x
        return x.detach().to(wide).requires_grad_(x.requires_grad)
    if isinstance(x, (list, tuple)):
        return type(x)(_widened(v) for v in x)
    if isinstance(x, dict):
        return {k: _widened(v) for k, v in x.items()}
    return x


def _narrowed_like(wide, narrow):
    """``wide``'s tensors in the dtypes of ``narrow``'s (its structure)."""
    if isinstance(wide, torch.Tensor) and isinstance(narrow, torch.Tensor):
        return wide.detach().to(narrow.dtype)
    if isinstance(wide, (list, tuple)) and isinstance(narrow, (list, tuple)) and len(wide) == len(narrow):
        return type(narrow)(_narrowed_like(w, n) for w, n in zip(wide, narrow)) if not hasattr(narrow, "_fields") \
            else [_narrowed_like(w, n) for w, n in zip(wide, narrow)]
    return wide


def covered():
    """``(OpInfo, callable, is_method)`` for every OpInfo tensorgrad has, in op_db's order."""
    found = []
    for info in load_op_db():
        target = resolve(info)
        if target is not None and sample_dtype(info) is not None:
            found.append((info, *target))
    return found


def sample_dtype(info):
    """The dtype of an OpInfo's samples: float32, or complex64 for an op without float32
    (``view_as_real``, ``imag``); None for neither."""
    dtypes = info.supported_dtypes("cpu")
    for d in (torch.float32, torch.complex64):
        if d in dtypes:
            return d
    return None


def sweep(entries, samples_per_op=None):
    """Every sample (or the first ``samples_per_op``) of each entry; the outcomes."""
    outcomes = []
    for info, fn, is_method in entries:
        try:
            samples = list(info.sample_inputs("cpu", sample_dtype(info), requires_grad=info.supports_autograd))
        except Exception as e:  # noqa: BLE001 - an OpInfo whose samples cannot be made here
            outcomes.append(Outcome(label(info), -1, "skipped", f"samples: {type(e).__name__}"))
            continue
        for index, sample in enumerate(samples[:samples_per_op]):
            outcomes.append(run_sample(info, fn, is_method, index, sample))
    return outcomes


def run_error_input(info, fn, is_method, index, error_input):
    """One of the OpInfo's ``error_inputs``: ``ok`` when tensorgrad raises PyTorch's exception
    type (or a subclass), ``wrong type`` or ``accepted`` otherwise; ``skipped`` when the input has
    no tensorgrad twin or PyTorch itself does not raise as the OpInfo says."""
    sample = error_input.sample_input
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            args = [sample.input, *sample.args]
            bases = shared_bases([args, sample.kwargs])
            ours_args, ours_kwargs = convert(args, bases), convert(sample.kwargs, bases)
        except Unconvertible as e:
            return Outcome(label(info), index, "skipped", str(e))
        except Exception as e:  # noqa: BLE001 - an input numpy cannot hold (a meta or sparse tensor)
            return Outcome(label(info), index, "skipped", f"unconvertible: {type(e).__name__}")
        try:
            call(info.op, False, args, sample.kwargs)
        except error_input.error_type:
            pass
        except Exception as e:  # noqa: BLE001 - PyTorch raises something else: says nothing
            return Outcome(label(info), index, "skipped", f"PyTorch raises {type(e).__name__}")
        else:
            return Outcome(label(info), index, "skipped", "PyTorch does not raise")
        try:
            call(fn, is_method, ours_args, ours_kwargs)
        except error_input.error_type:
            return Outcome(label(info), index, "ok")
        except Exception as e:  # noqa: BLE001 - compared below
            return Outcome(label(info), index, "wrong type",
                           f"{type(e).__name__}: {str(e)[:100]} where PyTorch raises {error_input.error_type.__name__}")
        return Outcome(label(info), index, "accepted", f"PyTorch raises {error_input.error_type.__name__}")


def error_sweep(entries):
    """Every ``error_inputs`` entry of the OpInfos that have them; the outcomes."""
    outcomes = []
    for info, fn, is_method in entries:
        if info.error_inputs_func is None:
            continue
        try:
            errors = list(info.error_inputs("cpu"))
        except Exception as e:  # noqa: BLE001 - an OpInfo whose error inputs cannot be made here
            outcomes.append(Outcome(label(info), -1, "skipped", f"error inputs: {type(e).__name__}"))
            continue
        for index, error_input in enumerate(errors):
            outcomes.append(run_error_input(info, fn, is_method, index, error_input))
    return outcomes


def cpu_ops():
    """op_db's ops (by name) that PyTorch's CPU build supports for some dtype, with their OpInfos."""
    ops = {}
    for info in load_op_db():
        if info.supported_dtypes("cpu"):
            ops.setdefault(info.name, []).append(info)
    return ops
