"""The checks that run one row of ``tests/op_table.py``, shared by the tests and the report.

Each check raises ``AssertionError`` with a message naming what differs. The ``torch``
argument is the real PyTorch module (the oracle); ``check_finite_differences`` and
``check_kink`` need only tensorgrad.
"""

import re
import warnings

import numpy as np

import tensorgrad

from op_table import CHECKED_DTYPES, Sample, maker, tolerance


# ====================================================================== running a row

def _is_tensor(m, x):
    return isinstance(x, m.Tensor)


def build(m, args, *, requires_grad=False, frozen=(), replace=None):
    """``args`` with numpy arrays turned into ``m`` tensors; returns ``(args, leaves)``.

    ``leaves`` lists the tensors made from arrays, in order. With ``requires_grad``, floating
    leaves whose position is not in ``frozen`` require grad. ``replace`` maps a leaf position
    to the array to use instead (finite differences).
    """
    leaves = []

    def convert(a):
        if isinstance(a, np.ndarray):
            pos = len(leaves)
            if replace is not None and pos in replace:
                a = replace[pos]
            grad = requires_grad and a.dtype.kind == "f" and pos not in frozen
            t = m.tensor(a, requires_grad=grad)
            leaves.append(t)
            return t
        if isinstance(a, list):
            return [convert(x) for x in a]
        if isinstance(a, tuple):
            return tuple(convert(x) for x in a)
        return a

    return tuple(convert(a) for a in args), leaves


def arrays_of(args):
    """The numpy arrays among ``args``, in the order ``build`` turns them into leaves."""
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(arrays_of(a))
    return out


def call(m, row, sample, *, requires_grad=False, replace=None, fn=None):
    args, leaves = build(m, sample.args, requires_grad=requires_grad, frozen=sample.frozen, replace=replace)
    out = (fn or row.call)(m, *args, **sample.kwargs)
    return out, leaves


def flat_tensors(m, out):
    if _is_tensor(m, out):
        return [out]
    if isinstance(out, (tuple, list)):
        flat = []
        for o in out:
            flat.extend(flat_tensors(m, o))
        return flat
    return []


def numpy_of(t):
    # force=True: PyTorch returns some gradients as ZeroTensors (sgn's), which a plain
    # numpy() refuses to read
    return np.asarray(t.detach().numpy(force=True))


def cotangent(k, shape, dtype):
    """The fixed cotangent for output ``k``: random, so that no gradient entry can hide."""
    rng = np.random.default_rng(1000 + k)
    return rng.uniform(-1.0, 1.0, tuple(shape)).astype(dtype)


def grads(m, row, sample):
    """Run ``row`` with grad on; return ``(out, diff_mask, grads)``.

    ``diff_mask[k]`` says whether flat output k requires grad; ``grads`` has one numpy array
    per array argument (zeros where it does not require grad or is unused).
    """
    out, leaves = call(m, row, sample, requires_grad=True)
    flat = flat_tensors(m, out)
    mask = [t.requires_grad for t in flat]
    outs = [t for t in flat if t.requires_grad]
    diff = [t for t in leaves if t.requires_grad]
    result = [np.zeros(tuple(t.shape), numpy_of(t).dtype) for t in leaves]
    if outs and diff:
        cts = [m.tensor(cotangent(k, t.shape, numpy_of(t).dtype)) for k, t in enumerate(outs)]
        gs = m.autograd.grad(outs, diff, cts, allow_unused=True)
        k = 0
        for i, t in enumerate(leaves):
            if t.requires_grad:
                if gs[k] is not None:
                    result[i] = numpy_of(gs[k])
                k += 1
    return out, mask, result


# ====================================================================== comparing results

def _builtin_type(cls):
    """The first builtin class in ``cls``'s MRO (``torch.OutOfMemoryError`` -> RuntimeError)."""
    for c in cls.__mro__:
        if c.__module__ == "builtins":
            return c
    return Exception


def assert_same(ours, theirs, torch, row, where="output"):
    """Same structure, dtypes, shapes and values (NaNs equal; tolerance by the output's dtype)."""
    if isinstance(theirs, torch.Tensor):
        assert _is_tensor(tensorgrad, ours), f"{where}: expected a Tensor, got {type(ours).__name__}"
        assert str(ours.dtype) == str(theirs.dtype), f"{where}: dtype {ours.dtype} != torch's {theirs.dtype}"
        assert tuple(ours.shape) == tuple(theirs.shape), (
            f"{where}: shape {tuple(ours.shape)} != torch's {tuple(theirs.shape)}")
        tol = tolerance(row, str(theirs.dtype).removeprefix("torch."))
        assert_values(numpy_of(ours), numpy_of(theirs), tol, where)
    elif isinstance(theirs, (tuple, list)):
        assert type(ours).__name__ == type(theirs).__name__, (
            f"{where}: {type(ours).__name__} != torch's {type(theirs).__name__}")
        fields = getattr(theirs, "_fields", None)
        if fields is not None:
            assert tuple(getattr(ours, "_fields", ())) == tuple(fields), f"{where}: fields differ"
        assert len(ours) == len(theirs), f"{where}: {len(ours)} items != torch's {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, torch, row, f"{where}[{i}]")
    else:
        assert type(ours) is type(theirs) and ours == theirs, f"{where}: {ours!r} != torch's {theirs!r}"


def assert_values(ours, theirs, tol, where="values"):
    if ours.dtype.kind in "fc":
        rtol, atol = tol
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=where)


def node_names(t):
    """``(grad_fn class name, ((next class name or None, output_nr), ...))`` of a tensor."""
    fn = t.grad_fn
    if fn is None:
        return None
    nxt = tuple((None if f is None else type(f).__name__, nr) for f, nr in fn.next_functions)
    return type(fn).__name__, nxt


# ====================================================================== the checks

def check_values(row, dtype, sample, torch):
    """(a) values, dtype, shape and output structure against PyTorch (no grad)."""
    ours, _ = call(tensorgrad, row, sample)
    theirs, _ = call(torch, row, sample)
    assert_same(ours, theirs, torch, row)


def check_grads_vs_torch(row, sample, torch):
    """(b) gradients (and the outputs that require grad) against PyTorch."""
    ours, our_mask, our_grads = grads(tensorgrad, row, sample)
    theirs, their_mask, their_grads = grads(torch, row, sample)
    assert_same(ours, theirs, torch, row)
    assert our_mask == their_mask, f"outputs requiring grad {our_mask} != torch's {their_mask}"
    for i, (a, b) in enumerate(zip(our_grads, their_grads)):
        assert_values(a, b, tolerance(row, a.dtype.name), f"gradient of argument {i}")


def check_finite_differences(row, sample):
    """(c) tensorgrad's gradients against float64 central differences of its own forward."""
    out, mask, analytic = grads(tensorgrad, row, sample)
    assert any(mask), "no output requires grad"
    eps, rtol, atol = row.fd
    flat = [t for t in flat_tensors(tensorgrad, out)]
    cts = {}
    k = 0
    for j, t in enumerate(flat):
        if mask[j]:
            cts[j] = cotangent(k, t.shape, numpy_of(t).dtype).astype(np.float64)
            k += 1

    def objective(replace):
        with tensorgrad.no_grad():
            res, _ = call(tensorgrad, row, sample, replace=replace)
        outs = flat_tensors(tensorgrad, res)
        return sum(float(np.sum(numpy_of(outs[j]).astype(np.float64) * ct)) for j, ct in cts.items())

    arrays = arrays_of(sample.args)
    for i, a in enumerate(arrays):
        if a.dtype != np.float64 or i in sample.frozen:
            continue
        numeric = np.zeros(a.shape)
        for idx in np.ndindex(a.shape):
            plus = a.copy()
            plus[idx] += eps
            minus = a.copy()
            minus[idx] -= eps
            numeric[idx] = (objective({i: plus}) - objective({i: minus})) / (2 * eps)
        np.testing.assert_allclose(analytic[i], numeric, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of argument {i} vs finite differences")


def check_grad_fn(row, sample, torch):
    """(d) ``type(out.grad_fn).__name__`` and the class names in ``next_functions``, as PyTorch."""
    ours, _ = call(tensorgrad, row, sample, requires_grad=True)
    theirs, _ = call(torch, row, sample, requires_grad=True)
    a = [node_names(t) for t in flat_tensors(tensorgrad, ours)]
    b = [node_names(t) for t in flat_tensors(torch, theirs)]
    assert a == b, f"grad_fn {a} != torch's {b}"


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - any exception is a result here
        return e
    return None


def check_error(row, err, torch):
    """(e) an input PyTorch rejects raises the same exception type in tensorgrad (with a message
    that ``err.match`` finds), and tensorgrad leaves the tensor arguments as they were."""
    sample = Sample(err.args, err.kwargs)
    theirs = raised(lambda: call(torch, row, sample, fn=err.call))
    assert theirs is not None, "PyTorch accepts this input: fix the table"
    expected = _builtin_type(type(theirs))
    args, leaves = build(tensorgrad, sample.args)
    before = [(numpy_of(t).copy(), t._version) for t in leaves]
    ours = raised(lambda: (err.call or row.call)(tensorgrad, *args, **sample.kwargs))
    assert ours is not None, f"tensorgrad accepts what PyTorch rejects with {expected.__name__}: {theirs}"
    assert _builtin_type(type(ours)) is expected, (
        f"tensorgrad raised {type(ours).__name__}: {ours}; PyTorch raises {expected.__name__}: {theirs}")
    if err.match is not None:
        assert re.search(err.match, str(ours)), f"tensorgrad's message {str(ours)!r} lacks {err.match!r}"
    for i, (t, (values, version)) in enumerate(zip(leaves, before)):
        np.testing.assert_array_equal(numpy_of(t), values, err_msg=f"argument {i} changed by a rejected call")
        assert t._version == version, f"argument {i}: version {version} -> {t._version} by a rejected call"


def rejected_dtypes(row):
    return [d for d in CHECKED_DTYPES if d not in row.dtypes]


def check_dtype_error(row, dtype, torch):
    """(e) a dtype PyTorch rejects for this op (its first sample in that dtype)."""
    sample = row.samples(maker(row, dtype))[0]
    theirs = raised(lambda: call(torch, row, sample))
    assert theirs is not None, f"PyTorch accepts {dtype}: add it to the row's dtypes"
    expected = _builtin_type(type(theirs))
    ours = raised(lambda: call(tensorgrad, row, sample))
    assert ours is not None, f"tensorgrad accepts {dtype}; PyTorch raises {expected.__name__}: {theirs}"
    assert _builtin_type(type(ours)) is expected, (
        f"tensorgrad raised {type(ours).__name__}: {ours}; PyTorch raises {expected.__name__}: {theirs}")


def kink_run(m, kink):
    """``kink.call``'s output and the gradients of its sum in float32, as numpy arrays; checks the
    warning."""
    inputs = [m.tensor(v, dtype=m.float32, requires_grad=True) for v in kink.inputs]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = kink.call(m, *inputs)
        out.sum().backward()
    messages = [str(w.message) for w in caught]
    if kink.warns is None:
        assert not messages, f"{m.__name__} warned: {messages}"
    else:
        assert any(kink.warns in text for text in messages), f"{m.__name__} gave no warning {kink.warns!r}"
    return numpy_of(out), [numpy_of(t.grad) for t in inputs]


def kink_grads(m, kink):
    """The gradients of ``kink.call(...).sum()`` in float32, as numpy arrays; checks the warning."""
    return kink_run(m, kink)[1]


def _assert_kink_equal(got, want, kink, where):
    if kink.tol is None:
        np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        rtol, atol = kink.tol
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)


def check_kink(kink):
    """A gradient at a kink equals the value PyTorch was observed to give (Appendix A)."""
    for i, (got, want) in enumerate(zip(kink_grads(tensorgrad, kink), kink.expected)):
        _assert_kink_equal(got, np.asarray(want, np.float32), kink, f"gradient of input {i}")


def check_kink_vs_torch(kink, torch):
    """The output and the gradients at a kink equal PyTorch's."""
    out, grads = kink_run(tensorgrad, kink)
    want_out, want_grads = kink_run(torch, kink)
    _assert_kink_equal(out, want_out, kink, "output")
    for i, (got, want) in enumerate(zip(grads, want_grads)):
        _assert_kink_equal(got, want, kink, f"gradient of input {i}")


# ====================================================================== coverage

class Reach:
    """Records which registered ops are applied while it is on: an op is reached when dispatch
    asks it for its compiled forward or for its pure function (in-place writes and the engine
    bind it directly)."""

    def __init__(self):
        from tensorgrad._ops.registry import OPS

        self.keys = {id(d): key for key, d in OPS.items()}
        self.seen = set()
        self.ran = 0        # cases run while on (counted by the caller)

    def __enter__(self):
        from tensorgrad._ops.registry import OpDef

        self.saved = OpDef.forward, OpDef.bind
        keys, seen = self.keys, self.seen

        def recording(method):
            def wrapper(op, *args):
                key = keys.get(id(op))
                if key is not None:
                    seen.add(key)
                return method(op, *args)
            return wrapper

        OpDef.forward, OpDef.bind = map(recording, self.saved)
        return self

    def __exit__(self, *exc):
        from tensorgrad._ops.registry import OpDef

        OpDef.forward, OpDef.bind = self.saved


def reached_ops(rows):
    """The registry keys of the ops that running ``rows`` (every sample; grad on for float64) applies."""
    with Reach() as reach:
        for row in rows:
            for dtype in row.dtypes:
                for sample in row.samples(maker(row, dtype)):
                    # a row that raises is reported by its checks; here it just reaches less
                    raised(lambda: call(tensorgrad, row, sample, requires_grad=row.grad and dtype == "float64"))
            for err in row.errors:
                raised(lambda: call(tensorgrad, row, Sample(err.args, err.kwargs), fn=err.call))
    return reach.seen


def cases(rows):
    """Every test case of the table: ``(check, row, key, payload)``.

    ``check`` is one of ``values``, ``grad_torch``, ``grad_fd``, ``grad_fn``, ``errors``;
    ``key`` names the case inside the row (a dtype and sample index, or an error index).
    """
    out = []
    for row in rows:
        for dtype in row.dtypes:
            for i, sample in enumerate(row.samples(maker(row, dtype))):
                out.append(("values", row, f"{dtype}-{i}", (dtype, sample)))
        if row.grad:
            for i, sample in enumerate(row.samples(maker(row, "float64"))):
                if sample.grad:
                    for check in ("grad_torch", "grad_fd", "grad_fn"):
                        out.append((check, row, i, sample))
        for i, err in enumerate(row.errors):
            out.append(("errors", row, i, err))
        for dtype in rejected_dtypes(row):
            out.append(("errors", row, dtype, dtype))
    return out


def params(cases, check=None):
    """pytest parameters ``(check, row, payload)`` in the table's order (all checks of a row
    together, so its compiled kernels are reused while they are cached), or those of one check;
    known failures as strict xfails."""
    import pytest

    out = []
    for c, row, key, payload in cases:
        if check is not None and c != check:
            continue
        reason = xfail_reason(c, row, key)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(c, row, payload, id=f"{c}-{row.name}-{key}", marks=marks))
    return out


def xfail_reason(check, row, key):
    return row.xfail.get((check, key)) or row.xfail.get(check)


def run_case(check, row, payload, torch):
    """Run one case; ``torch`` may be None only for ``grad_fd``."""
    if check == "values":
        dtype, sample = payload
        check_values(row, dtype, sample, torch)
    elif check == "grad_torch":
        check_grads_vs_torch(row, payload, torch)
    elif check == "grad_fd":
        check_finite_differences(row, payload)
    elif check == "grad_fn":
        check_grad_fn(row, payload, torch)
    elif isinstance(payload, str):
        check_dtype_error(row, payload, torch)
    else:
        check_error(row, payload, torch)
