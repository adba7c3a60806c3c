"""The declared surface against PyTorch: ``out=``, NumPy keyword names, unknown keywords.

Every declaration (``tensorgrad/_api/surface.py``) is checked against PyTorch's signatures, and
every row of the op table is rerun with ``out=`` in both libraries: the value written, ``out``
returned, the version counter moved, and the same exception type where PyTorch refuses.
"""

import functools
import warnings

import numpy as np
import pytest

import tensorgrad
from tensorgrad._api import surface

import op_checks as C
from op_table import OPS, maker
from oracle import torch, _oracle  # noqa: F401  (the autouse fixture skips without PyTorch)

if torch is not None:
    import torch_signatures as SIG

DECLARED = [(d.namespace, name, d) for d in surface.DECLARATIONS for name in d.names
            if d.namespace in ("torch", "linalg", "special")]
MODULES = {"torch": tensorgrad, "linalg": tensorgrad.linalg, "special": tensorgrad.special}


def _ids(cases):
    return [f"{ns}.{name}" for ns, name, _ in cases]


# ====================================================================== declarations vs signatures

@pytest.mark.parametrize("namespace, name, decl", DECLARED, ids=_ids(DECLARED))
def test_out_declared_as_in_torch(namespace, name, decl):
    expected = SIG.takes_out(namespace, name)
    if expected is None:
        pytest.skip(f"torch.{namespace}.{name}: absent from PyTorch or its signature is unreadable")
    assert bool(decl.out) == expected, f"{namespace}.{name}: declared out={decl.out}, PyTorch's signature: {expected}"


_NUMPY_TARGETS = set(surface.NUMPY_NAMES.values())


@pytest.mark.parametrize("namespace, name, decl", DECLARED, ids=_ids(DECLARED))
def test_numpy_names_declared_as_in_torch(namespace, name, decl):
    if SIG.function(namespace, name) is None:
        pytest.skip("absent from PyTorch")
    params = set(surface.inspect.signature(decl.fn).parameters)
    if not params & _NUMPY_TARGETS:
        pytest.skip("no parameter that NumPy's names rename")
    assert decl.numpy_names == SIG.is_native(namespace, name), (
        f"{namespace}.{name}: numpy_names={decl.numpy_names}, but PyTorch's function is "
        f"{'native' if SIG.is_native(namespace, name) else 'Python-level'}")


def test_every_public_function_is_declared_once_without_torch():
    names = [(d.namespace, n) for d in surface.DECLARATIONS for n in d.names]
    assert len(names) == len(set(names))
    for namespace, name in names:
        if namespace in MODULES:
            assert callable(getattr(MODULES[namespace], name)), f"{namespace}.{name} is not exported"


# ====================================================================== out= over the op table

class _Injector:
    """Stands in for a module: counts calls of declared ``out=`` functions, and passes ``out``
    to the ``target``-th one."""

    def __init__(self, module, namespace="torch", state=None):
        self._module = module
        self._namespace = namespace
        self._state = state if state is not None else {"calls": [], "target": None, "out": None}

    def __getattr__(self, name):
        attr = getattr(self._module, name)
        if name in ("linalg", "special") and self._namespace == "torch":
            return _Injector(attr, name, self._state)
        if (self._namespace, name) not in _OUT_NAMES:
            return attr
        state = self._state

        def call(*args, **kwargs):
            index = len(state["calls"])
            if index == state["target"]:
                kwargs = dict(kwargs, out=state["out"])
            result = attr(*args, **kwargs)
            state["calls"].append(result)
            return result
        return call


_OUT_NAMES = {(ns, name) for ns, name, d in DECLARED if d.out}


def _out_like(m, result, empty):
    if isinstance(result, (tuple, list)):
        return tuple(_out_like(m, r, empty) for r in result)
    return m.empty(0 if empty else tuple(result.shape), dtype=getattr(m, str(result.dtype).removeprefix("torch.")))


def _out_cases():
    cases = []
    for row in OPS:
        dtype = row.dtypes[-1] if "float32" not in row.dtypes else "float32"
        samples = row.samples(maker(row, dtype))
        if samples:
            cases.append(pytest.param(row, samples[0], id=row.name))
    return cases


def _run(m, row, sample, target=None, out=None):
    injector = _Injector(m)
    injector._state.update(target=target, out=out)
    args, _ = C.build(m, sample.args)
    return row.call(injector, *args, **sample.kwargs), injector._state["calls"]


def _version(out):
    return tuple(o._version for o in out) if isinstance(out, tuple) else out._version


@pytest.mark.parametrize("empty", [True, False], ids=["empty_out", "sized_out"])
@pytest.mark.parametrize("row, sample", _out_cases())
def test_out_writes_the_result_as_torch(row, sample, empty):
    """A row whose result comes from one declared ``out=`` function, rerun with ``out=``."""
    theirs, calls = _run(torch, row, sample)
    hits = [i for i, r in enumerate(calls) if r is theirs]
    if not hits:
        pytest.skip("the row's result is not the direct result of an out= function")
    target = hits[-1]
    out_t = _out_like(torch, theirs, empty)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got_t, _ = _run(torch, row, sample, target, out_t)
    except Exception as e:  # noqa: BLE001 (PyTorch refuses: so must tensorgrad)
        out_g = _out_like(tensorgrad, theirs, empty)
        with pytest.raises(C._builtin_type(type(e))):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _run(tensorgrad, row, sample, target, out_g)
        return
    out_g = _out_like(tensorgrad, theirs, empty)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got_g, _ = _run(tensorgrad, row, sample, target, out_g)
    if got_t is None:       # a list of tensors as out= (split_copy, unbind_copy, ...): PyTorch returns None
        assert got_g is None, f"PyTorch returns None, tensorgrad {type(got_g).__name__}"
    elif isinstance(out_t, tuple):
        assert all(a is b for a, b in zip(got_g, out_g, strict=True)), "the function must return out's tensors"
    else:
        assert got_g is out_g, "the function must return out itself"
    C.assert_same(out_g, out_t, torch, row, "out")
    # the counter moves; by how much is PyTorch's implementation detail (composite ops write twice)
    assert all(v >= 1 for v in _flat(_version(out_g))), "out's version counter did not move"


# ====================================================================== out=: PyTorch's rules and errors

def _both(fn):
    """``fn(m)`` in both libraries: the results, or the exception type and message of each."""
    outcomes = []
    for m in (tensorgrad, torch):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                outcomes.append(("ok", fn(m), [str(w.message) for w in caught]))
        except Exception as e:  # noqa: BLE001
            outcomes.append(("raised", type(e), str(e)))
    return outcomes


OUT_ERRORS = {
    "dtype_cannot_cast": lambda m: m.add(m.ones(3), 1, out=m.zeros(3, dtype=m.int64)),
    "input_requires_grad": lambda m: m.mul(m.ones(3, requires_grad=True), 2, out=m.zeros(3)),
    "out_requires_grad": lambda m: m.exp(m.ones(3), out=m.zeros(3, requires_grad=True)),
    "expanded_out": lambda m: m.add(m.ones(2, 3), 1, out=m.zeros(3).expand(2, 3)),
    "partial_overlap": lambda m: (lambda y: m.add(y[:3], 1, out=y[1:4]))(m.arange(6.0)),
    # a list of tensors as out= (PyTorch's Tensor(a!)[]): its own count check; split_copy copies
    # each piece in, so an empty out is not resized; unbind_copy refuses an out that requires grad
    "tensor_list_count": lambda m: m.split_copy(m.ones(2, 3), 2, 1, out=[m.zeros(2, 2)]),
    "tensor_list_count_resizing": lambda m: m.unbind_copy(m.ones(2, 3), 1, out=[m.zeros(0), m.zeros(0)]),
    "tensor_list_element": lambda m: m.split_copy(m.ones(2, 3), 2, 1, out=[m.zeros(2, 2), 5]),
    "tensor_list_not_a_list": lambda m: m.split_copy(m.ones(2, 3), 2, 1, out=m.zeros(2, 2)),
    "split_copy_empty_out": lambda m: m.split_copy(m.ones(2, 3), 2, 1, out=[m.zeros(0), m.zeros(0)]),
    "split_copy_out_does_not_broadcast": lambda m: m.split_copy(m.ones(2, 3), 2, 1, out=[m.zeros(2, 2), m.zeros(1)]),
    "unbind_copy_out_requires_grad": lambda m: m.unbind_copy(m.ones(2, 2), 1, out=[m.zeros(2, requires_grad=True),
                                                                                  m.zeros(2)]),
    "reshape_alias_copy_out_dtype": lambda m: m._reshape_alias_copy(m.ones(2, 3), (6,), (1,),
                                                                    out=m.empty(0, dtype=m.float64)),
    "split_with_sizes_copy_out_dtype": lambda m: m.split_with_sizes_copy(m.ones(2, 3), [2, 1], 1, out=[
        m.zeros(0, dtype=m.float64), m.zeros(0)]),
}


@pytest.mark.parametrize("name", OUT_ERRORS)
def test_out_refused_as_torch_and_left_unchanged(name):
    ours, theirs = _both(OUT_ERRORS[name])
    assert theirs[0] == "raised"
    assert ours[0] == "raised" and ours[1] is theirs[1] and ours[2] == theirs[2], (ours, theirs)


def test_split_copy_out_sharing_the_input_refused_without_torch():
    """PyTorch copies each piece from a view of the input, so an out that shares the input's
    memory gets values that depend on the copy order (``[[0, 0, 0], [3, 3, 3]]`` here): refused."""
    y = tensorgrad.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        tensorgrad.split_copy(y, 2, 1, out=[y[:, 1:], tensorgrad.zeros(2, 1)])
    assert y.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and y._version == 0


def test_out_left_unchanged_after_an_error():
    out = tensorgrad.full((3,), 7)
    with pytest.raises(RuntimeError):
        tensorgrad.add(tensorgrad.ones(3), 0.5, out=out)
    assert out.tolist() == [7, 7, 7] and out._version == 0
    out = tensorgrad.zeros(3)
    with pytest.raises(RuntimeError):
        tensorgrad.mul(tensorgrad.ones(3, requires_grad=True), 2, out=out)
    assert out.tolist() == [0.0, 0.0, 0.0] and out._version == 0


OUT_CASES = {
    "same_tensor_as_input": lambda m: (lambda y: (m.add(y, 1, out=y), y._version))(m.arange(4.0)),
    "resize_warns": lambda m: (lambda c: (m.add(m.ones(3), 1, out=c), c._version))(m.zeros(2)),
    "zero_numel_resizes_silently": lambda m: (lambda c: (m.add(m.ones(3), 1, out=c), c._version))(m.zeros(0)),
    "int_result_into_float": lambda m: m.add(m.ones(3, dtype=m.int64), 1, out=m.zeros(3)),
    "float32_result_into_float64": lambda m: m.sum(m.ones(2, 3), 1, out=m.zeros(0, dtype=m.float64)),
    "factory_takes_out_dtype": lambda m: m.zeros(3, out=m.empty(0, dtype=m.int64)),
    "arange_takes_out_dtype": lambda m: m.arange(3, out=m.empty(0, dtype=m.float64)),
    "tuple_out": lambda m: (lambda v, i: (m.max(m.tensor([[1., 5.], [7., 2.]]), 1, out=(v, i)), v, i))(
        m.empty(0), m.empty(0, dtype=m.long)),
    "no_grad_out_that_requires_grad": lambda m: (lambda a: (m.no_grad().__enter__(), m.add(m.ones(3), 1, out=a),
                                                           m.set_grad_enabled(True), a._version))(
        m.ones(3, requires_grad=True))[1:],
    "view_out": lambda m: (lambda base: (m.mul(m.ones(2), 3, out=base[1]), base, base._version))(m.zeros(2, 2)),
    # a list of tensors as out=: None returned, written without a graph (an input or an out that
    # requires grad is allowed); split_copy copies each piece in (broadcast, cast, no resize)
    "split_copy_out_broadcasts_and_casts": lambda m: (lambda o: (m.split_copy(
        m.arange(6.0, requires_grad=True).reshape(2, 3), 2, 1, out=o) is None, o, [t.requires_grad for t in o]))(
        [m.zeros(3, 2, 2, dtype=m.int64), m.zeros(2, 3, requires_grad=True)]),
    "split_with_sizes_copy_out_resizes": lambda m: (lambda o: (m.split_with_sizes_copy(
        m.arange(6.0, requires_grad=True).reshape(2, 3), [2, 1], 1, out=o) is None, o, [t.requires_grad for t in o]))(
        [m.zeros(0), m.zeros(2, 1)]),
    "unbind_copy_out_resizes": lambda m: (lambda o: (m.unbind_copy(m.arange(6.0).reshape(2, 3), 1, out=o) is None,
                                                     o))((m.zeros(0), m.zeros(0), m.zeros(0))),
}


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [y for item in x for y in _flat(item)]
    return [x]


@pytest.mark.parametrize("name", OUT_CASES)
def test_out_as_torch(name):
    ours, theirs = _both(OUT_CASES[name])
    assert theirs[0] == "ok" and ours[0] == "ok", (ours, theirs)
    assert ours[2] == theirs[2], "warnings"
    for a, b in zip(_flat(ours[1]), _flat(theirs[1]), strict=True):
        if isinstance(b, torch.Tensor):
            assert str(a.dtype) == str(b.dtype) and a.tolist() == b.tolist(), (a, b)
        elif not isinstance(b, (torch.autograd.grad_mode.set_grad_enabled, type(None))):
            assert a == b


# ====================================================================== NumPy's keyword names

NUMPY_CALLS = {
    "sum_axis": lambda m, x: m.sum(x, axis=0),
    "method_sum_axis_keepdims": lambda m, x: x.sum(axis=1, keepdims=True),
    "argmax_axis": lambda m, x: x.argmax(axis=1),
    "mean_axis_tuple": lambda m, x: m.mean(x, axis=(0, 1), keepdims=True),
    "max_axis": lambda m, x: m.max(x, axis=1),
    "std_axis": lambda m, x: x.std(axis=0),
    "cumsum_axis": lambda m, x: m.cumsum(x, axis=1),
    "cat_axis": lambda m, x: m.cat([x, x], axis=0),
    "softmax_axis": lambda m, x: m.softmax(x, axis=0),
    "linalg_norm_axis": lambda m, x: m.linalg.norm(x, axis=0),
    "add_x_x2": lambda m, x: m.add(x=x, x2=x),
    "mul_input_keyword": lambda m, x: m.mul(input=x, other=2.0),
    "squeeze_axis": lambda m, x: x[None].squeeze(axis=0),
    # refused by PyTorch (TypeError): Python-level functions, and a name given twice
    "norm_axis": lambda m, x: m.norm(x, axis=0),
    "sum_dim_and_axis": lambda m, x: m.sum(x, dim=0, axis=0),
    "sum_positional_and_axis": lambda m, x: m.sum(x, 0, axis=0),
    "split_axis": lambda m, x: m.split(x, 1, axis=0),
}


@pytest.mark.parametrize("name", NUMPY_CALLS)
def test_numpy_keyword_names_as_torch(name):
    data = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    ours, theirs = _both(lambda m: NUMPY_CALLS[name](m, m.tensor(data)))
    assert ours[0] == theirs[0], (ours, theirs)
    if theirs[0] == "raised":
        assert ours[1] is theirs[1], (ours, theirs)
        return
    for a, b in zip(_flat(ours[1]), _flat(theirs[1]), strict=True):
        np.testing.assert_allclose(C.numpy_of(a), C.numpy_of(b), rtol=1e-6)


# ====================================================================== unknown keywords

FACTORIES = {
    "zeros": lambda m, **k: m.zeros(2, 3, **k), "ones": lambda m, **k: m.ones(2, **k),
    "empty": lambda m, **k: m.empty(2, **k), "full": lambda m, **k: m.full((2,), 1.5, **k),
    "rand": lambda m, **k: m.rand(2, **k), "randn": lambda m, **k: m.randn(2, **k),
    "randint": lambda m, **k: m.randint(0, 5, (2,), **k), "randperm": lambda m, **k: m.randperm(4, **k),
    "arange": lambda m, **k: m.arange(5, **k), "linspace": lambda m, **k: m.linspace(0, 1, 5, **k),
    "eye": lambda m, **k: m.eye(3, **k), "tensor": lambda m, **k: m.tensor([1.0], **k),
    "as_tensor": lambda m, **k: m.as_tensor([1.0], **k), "normal": lambda m, **k: m.normal(0.0, 1.0, (2,), **k),
    "zeros_like": lambda m, **k: m.zeros_like(m.ones(2), **k), "ones_like": lambda m, **k: m.ones_like(m.ones(2), **k),
    "empty_like": lambda m, **k: m.empty_like(m.ones(2), **k),
    "full_like": lambda m, **k: m.full_like(m.ones(2), 3.0, **k),
    "rand_like": lambda m, **k: m.rand_like(m.ones(2), **k), "randn_like": lambda m, **k: m.randn_like(m.ones(2), **k),
    "bernoulli": lambda m, **k: m.bernoulli(m.full((2,), 0.5), **k),
    "multinomial": lambda m, **k: m.multinomial(m.ones(3), 2, **k),
    "new_zeros": lambda m, **k: m.ones(2).new_zeros(3, **k), "new_ones": lambda m, **k: m.ones(2).new_ones(3, **k),
    "new_full": lambda m, **k: m.ones(2).new_full((3,), 1.0, **k),
    "new_tensor": lambda m, **k: m.ones(2).new_tensor([1.0], **k),
    "tril_indices": lambda m, **k: m.tril_indices(3, 3, **k),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_factory_refuses_unknown_keyword_without_torch(name):
    factory = FACTORIES[name]
    factory(tensorgrad)    # valid without the misspelt keyword
    state = tensorgrad.get_rng_state()
    with pytest.raises(TypeError, match="requires_gard"):
        factory(tensorgrad, requires_gard=True)
    assert tensorgrad.get_rng_state().tolist() == state.tolist(), "a refused call drew random numbers"


@pytest.mark.parametrize("name", FACTORIES)
def test_factory_unknown_keyword_as_torch(name):
    ours, theirs = _both(lambda m: FACTORIES[name](m, requires_gard=True))
    assert theirs[0] == "raised" and ours[0] == "raised" and ours[1] is theirs[1] is TypeError


CALLS = {
    "add": lambda m, x: m.add(x, x, alpah=2), "sum": lambda m, x: m.sum(x, dims=0),
    "method_add": lambda m, x: x.add(x, alpah=2), "method_sum": lambda m, x: x.sum(keep_dim=True),
    "mean": lambda m, x: m.mean(x, dim=0, keepdim=True, dtyp=None), "exp": lambda m, x: m.exp(x, outt=x),
    "cat": lambda m, x: m.cat([x, x], dims=0), "softmax": lambda m, x: m.softmax(x, 0, dtpe=None),
    "linalg_norm": lambda m, x: m.linalg.norm(x, ordd=2), "special_erf": lambda m, x: m.special.erf(x, outt=x),
    "view": lambda m, x: x.view(6, size=3), "matmul": lambda m, x: m.matmul(x, x.t(), bogus=1),
    "where": lambda m, x: m.where(x > 0, x, 0.0, bogus=1), "clamp": lambda m, x: m.clamp(x, mn=0),
    "sort": lambda m, x: m.sort(x, descend=True), "index_select": lambda m, x: x.index_select(0, m.tensor([0]), d=1),
    "in_place": lambda m, x: x.clone().add_(1, alpah=2), "to": lambda m, x: x.to(m.float64, copyy=True),
}


@pytest.mark.parametrize("name", CALLS)
def test_unknown_keyword_raises_type_error_as_torch(name):
    data = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    ours, theirs = _both(lambda m: CALLS[name](m, m.tensor(data)))
    assert theirs[0] == "raised" and theirs[1] is TypeError, theirs
    assert ours[0] == "raised" and ours[1] is TypeError, ours



class _Recorder:
    """Stands in for a module and records the calls of declared functions: ``(namespace, name, args, kwargs)``."""

    def __init__(self, module, namespace="torch", calls=None):
        self._module = module
        self._namespace = namespace
        self.calls = [] if calls is None else calls

    def __getattr__(self, name):
        attr = getattr(self._module, name)
        if name in ("linalg", "special") and self._namespace == "torch":
            return _Recorder(attr, name, self.calls)
        if (self._namespace, name) not in _DECLS:
            return attr

        def call(*args, **kwargs):
            self.calls.append((self._namespace, name, args, kwargs))
            return attr(*args, **kwargs)
        return call


_DECLS = {(ns, name): d for ns, name, d in DECLARED}


# the declared functions with a ``dim`` or ``keepdim``: each is called as an op-table row calls it
_DIM_FUNCTIONS = [(ns, name) for ns, name, d in DECLARED
                  if {"dim", "keepdim"} & set(surface.inspect.signature(d.fn).parameters)]


@functools.cache
def _first_calls():
    """``(ns, name) -> (row, sample, k)``: the first call of each function in ``_DIM_FUNCTIONS``
    that an op-table row makes (its first sample, the ``k``-th declared call). It runs every row,
    about a minute: once, in the process that runs these tests, not at each collection."""
    wanted = set(_DIM_FUNCTIONS)
    found = {}
    for row in OPS:
        dtype = "float32" if "float32" in row.dtypes else row.dtypes[-1]
        samples = row.samples(maker(row, dtype))
        if not samples:
            continue
        recorder = _Recorder(tensorgrad)
        try:
            C.call(recorder, row, samples[0])
        except Exception:  # noqa: BLE001 (rows whose first sample is an error case)
            continue
        for k, (ns, name, args, kwargs) in enumerate(recorder.calls):
            if (ns, name) in wanted and (ns, name) not in found:
                found[ns, name] = (row, samples[0], k)
    return found


def _as_numpy_names(fn, args, kwargs):
    """``args``/``kwargs`` of a call of ``fn`` with ``dim``/``keepdim`` passed as ``axis``/``keepdims``."""
    bound = surface.inspect.signature(fn).bind(*args, **kwargs)
    names = list(bound.arguments)
    moved = {}
    for name in ("dim", "keepdim"):
        if name in bound.arguments:
            moved[{"dim": "axis", "keepdim": "keepdims"}[name]] = bound.arguments[name]
    if not moved:
        return None
    first = min(names.index(n) for n in ("dim", "keepdim") if n in bound.arguments)
    positional = [bound.arguments[n] for n in names[:first] if n not in kwargs]
    rest = {n: bound.arguments[n] for n in names[first:] if n not in ("dim", "keepdim")}
    rest.update({n: v for n, v in kwargs.items() if n not in ("dim", "keepdim")})
    return positional, dict(rest, **moved)


@pytest.mark.parametrize("ns, name", _DIM_FUNCTIONS, ids=[f"{ns}.{name}" for ns, name in _DIM_FUNCTIONS])
def test_numpy_names_accepted_as_torch(ns, name):
    """A declared function called by an op-table row, called again with ``axis=``/``keepdims=``."""
    if (ns, name) not in _first_calls():
        pytest.skip("no op-table row calls it as a function")
    row, sample, k = _first_calls()[ns, name]
    outcomes = []
    for m in (tensorgrad, torch):
        recorder = _Recorder(m)
        C.call(recorder, row, sample)
        ns, name, args, kwargs = recorder.calls[k]
        fn = _DECLS[ns, name].fn
        converted = _as_numpy_names(fn, args, kwargs)
        if converted is None or isinstance(converted[1].get("axis"), m.Tensor):
            pytest.skip("the row passes no dim or keepdim (a tensor there is max's other)")
        target = getattr(m if ns == "torch" else getattr(m, ns), name)
        try:
            outcomes.append(("ok", target(*converted[0], **converted[1])))
        except Exception as e:  # noqa: BLE001
            outcomes.append(("raised", C._builtin_type(type(e))))
    (ours, got), (theirs, expected) = outcomes
    assert ours == theirs, outcomes
    if theirs == "ok":
        C.assert_same(got, expected, torch, row)
    else:
        assert got is expected
