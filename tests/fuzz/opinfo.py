"""PyTorch's OpInfo samples run through tensorgrad: a second source of fuzz inputs.

For every OpInfo whose op tensorgrad has (by name: ``torch.add`` -> ``tensorgrad.add``,
``nn.functional.relu`` -> ``tensorgrad.nn.functional.relu``; a method-only name such as
``__radd__`` as a Tensor method; an OpInfo whose op is a lambda over Tensor methods, the lambda
itself, unless it names ``torch``), each float32 sample (complex64 for an op without float32) from ``op.sample_inputs("cpu", torch.float32, requires_grad=True)``
is converted to tensorgrad (tensors through numpy, dtypes by name), called, and compared:
output structure, dtypes, shapes and values, then the gradients of the outputs (weighted by
fixed random cotangents) with respect to every input that requires grad.

A sample ends in one of: ``ok``, ``mismatch`` (a silent wrong answer: value, dtype, shape or
gradient), ``raises`` (tensorgrad rejects what PyTorch accepts: a missing feature, reported but
not failed), ``skipped`` (the sample holds something that has no tensorgrad twin, PyTorch itself
raises, or the op is random: two calls differ).
"""

import dataclasses
import types
import warnings

import numpy as np

import tensorgrad

from fuzz.interpret import close
from oracle import torch

try:
    from torch.testing._internal.common_methods_invocations import op_db
except ImportError:  # PyTorch absent, or its test helpers' dependency (expecttest) missing
    op_db = None


class Unconvertible(Exception):
    """A sample argument without a tensorgrad twin (a memory format, a generator, ...)."""


def resolve(info):
    """``(callable, is_method)`` for the OpInfo in tensorgrad, or None."""
    obj = tensorgrad
    for part in info.name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            break
    if obj is not None and not isinstance(obj, types.ModuleType):
        return obj, False
    if "." not in info.name and hasattr(tensorgrad.Tensor, info.name):
        return info.name, True
    if getattr(info.op, "__name__", "") == "<lambda>" and "torch" not in info.op.__code__.co_names:
        return info.op, False  # a lambda over Tensor methods only (``lambda x, *a: x.view(*a)``)
    names = getattr(getattr(info.op, "__code__", None), "co_names", ())
    if names[:3] == ("wrapper_set_seed", "torch", "Tensor") and len(names) == 4 \
            and hasattr(tensorgrad.Tensor, names[3]):
        return names[3], True  # ``wrapper_set_seed(torch.Tensor.cauchy_, x, ...)``: the method
    return None


def convert(x):
    """A sample argument in tensorgrad's terms (tensors through numpy, dtypes by name)."""
    if isinstance(x, torch.Tensor):
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
        return type(x)(convert(v) for v in x)
    if isinstance(x, dict):
        return {k: convert(v) for k, v in x.items()}
    if x is None or isinstance(x, (bool, int, float, str, slice, type(Ellipsis))):
        return x
    raise Unconvertible(f"a {type(x).__name__} argument")


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
    if is_method:
        return getattr(args[0], fn)(*args[1:], **kwargs)
    return fn(*args, **kwargs)


def compare_outputs(ours, theirs):
    """The first difference between two outputs, or None."""
    if isinstance(theirs, torch.Tensor):
        if not isinstance(ours, tensorgrad.Tensor):
            return f"a {type(ours).__name__} where PyTorch returns a Tensor"
        if str(ours.dtype) != str(theirs.dtype) or tuple(ours.shape) != tuple(theirs.shape):
            return f"{ours.dtype}{tuple(ours.shape)} where PyTorch has {theirs.dtype}{tuple(theirs.shape)}"
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
            found = compare_outputs(o, t)
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
    found = compare_outputs(ours, theirs)
    if found and compare_outputs(call(fn, is_method, convert(args), convert(sample.kwargs)), theirs) != found:
        return ("skipped", "random: tensorgrad's own two calls differ (PyTorch's OpInfo seeds its RNG)")
    if found:
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
    for k, (g, h) in enumerate(zip(ours_grads, theirs_grads)):
        ok, _ = close(g.astype(h.dtype), h, "float32")
        if not ok or g.shape != h.shape:
            return ("mismatch", f"grad of input {k}: {g.ravel()[:6]} where PyTorch has "
                                                         f"{h.ravel()[:6]}")
    return ("ok",)


def covered():
    """``(OpInfo, callable, is_method)`` for every OpInfo tensorgrad has, in op_db's order."""
    found = []
    for info in op_db:
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
            ours_args, ours_kwargs = convert(args), convert(sample.kwargs)
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
    for info in op_db:
        if info.supported_dtypes("cpu"):
            ops.setdefault(info.name, []).append(info)
    return ops
