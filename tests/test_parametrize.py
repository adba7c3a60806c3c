"""``nn.utils.parametrize``, ``nn.utils.parametrizations`` and the hook-based ``weight_norm`` /
``spectral_norm`` against PyTorch.

Each check builds the same module in both libraries, gives the tensorgrad one PyTorch's values
(``load_state_dict`` of numpy arrays, which also copies the random vectors of the power method and
the random ``base`` of ``orthogonal``) and compares outputs, the gradients of the original tensors,
buffers after training-mode forwards, state dicts, reprs, class names and errors.
"""

import copy
import pickle
import warnings

import numpy as np
import pytest

import tensorgrad as tg
from oracle import raises_alike, torch, _oracle  # noqa: F401

RNG = np.random.default_rng(0)


def _np(t):
    return np.asarray(t.detach().numpy())


def _close(ours, theirs, rtol=1e-5, atol=1e-6):
    """Equal to rounding: ``atol`` is relative to the largest magnitude (a float32 gradient summed
    from terms of size 100 may be off by 1e-5 where it is near 0)."""
    b = _np(theirs)
    scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
    np.testing.assert_allclose(_np(ours), b, rtol=rtol, atol=atol * scale)


def _sync(ours, theirs):
    """Give ``ours`` every parameter and persistent buffer value of ``theirs``."""
    ours.load_state_dict({k: _np(v) for k, v in theirs.state_dict().items()})


def _same_state(ours, theirs, rtol=1e-5, atol=1e-6):
    a, b = ours.state_dict(), theirs.state_dict()
    assert list(a) == list(b)
    for key in b:
        _close(a[key], b[key], rtol, atol)


def _same_module(ours, theirs):
    """Same class name, repr, state-dict keys and parameter names."""
    assert type(ours).__name__ == type(theirs).__name__
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert len(list(ours.parameters())) == len(list(theirs.parameters()))


def _pair(build):
    """``build(lib)`` in both libraries, the tensorgrad one holding PyTorch's values."""
    theirs, ours = build(torch), build(tg)
    _sync(ours, theirs)
    return ours, theirs


def _input(*shape, dtype=np.float32):
    x = RNG.standard_normal(shape).astype(dtype)
    return tg.tensor(x), torch.tensor(x)


def _same_step(ours, theirs, x_ours, x_theirs, rtol=1e-5, atol=1e-5):
    """Forward and backward in both; the outputs and every parameter's gradient agree."""
    out_ours, out_theirs = ours(x_ours), theirs(x_theirs)
    _close(out_ours, out_theirs, rtol, atol)
    (out_ours ** 2).sum().backward()
    (out_theirs ** 2).sum().backward()
    grads_theirs = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        q = grads_theirs[name]
        assert (p.grad is None) == (q.grad is None), name
        if q.grad is not None:
            _close(p.grad, q.grad, rtol, atol)


def _classes(lib):
    """The same user parametrizations in ``lib``."""

    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()

    class Scale(lib.nn.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor

        def forward(self, X):
            return X * self.factor

        def right_inverse(self, X):
            return X / self.factor

    class RankOne(lib.nn.Module):
        def forward(self, x, y):
            return x.unsqueeze(-1) @ y.unsqueeze(-2)

        def right_inverse(self, Z):
            return Z[:, 0].clone(), Z[0, :].clone()

    class Counting(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, X):
            self.calls += 1
            return X * 2

    def simple(name, forward, right_inverse=None):
        namespace = {"forward": lambda self, X: forward(X)}
        if right_inverse is not None:
            namespace["right_inverse"] = lambda self, X: right_inverse(X)
        return type(name, (lib.nn.Module,), namespace)

    NoInverse = simple("NoInverse", lib.tanh)
    ToDouble = simple("ToDouble", lambda X: X.double())
    Flatten = simple("Flatten", lambda X: X.flatten())
    BadInverse = simple("BadInverse", lambda X: X, lambda X: 3)

    return dict(Symmetric=Symmetric, Scale=Scale, RankOne=RankOne, NoInverse=NoInverse, Counting=Counting,
                ToDouble=ToDouble, Flatten=Flatten, BadInverse=BadInverse)


def _P(lib):
    return lib.nn.utils.parametrize


def _remove(ours, theirs, name, leave=True):
    for lib, m in ((tg, ours), (torch, theirs)):
        _P(lib).remove_parametrizations(m, name, leave_parametrized=leave)


def _symmetric_linear(n):
    """A build function: a Linear(n, n) with a symmetric weight."""
    return lambda lib: _P(lib).register_parametrization(lib.nn.Linear(n, n), "weight", _classes(lib)["Symmetric"]())


# ---------------------------------------------------------------- register_parametrization

def test_register_one_parametrization():
    ours, theirs = _pair(_symmetric_linear(4))
    _same_module(ours, theirs)
    assert type(ours).__name__ == "ParametrizedLinear"
    assert isinstance(ours.parametrizations.weight.original, tg.nn.Parameter)
    assert type(ours.parametrizations.weight).__name__ == "ParametrizationList"
    _close(ours.weight, theirs.weight)
    assert _P(tg).type_before_parametrizations(ours) is tg.nn.Linear
    assert _P(tg).is_parametrized(ours) and _P(tg).is_parametrized(ours, "weight")
    assert not _P(tg).is_parametrized(ours, "bias") and not _P(tg).is_parametrized(tg.nn.Linear(2, 2))
    x_ours, x_theirs = _input(3, 4)
    _same_step(ours, theirs, x_ours, x_theirs)
    _same_state(ours, theirs)


def test_right_inverse_runs_at_registration_and_on_assignment():
    ours, theirs = _pair(lambda lib: lib.nn.Linear(4, 4))
    original_ours = ours.weight
    _P(tg).register_parametrization(ours, "weight", _classes(tg)["Symmetric"]())
    _P(torch).register_parametrization(theirs, "weight", _classes(torch)["Symmetric"]())
    assert ours.parametrizations.weight.original is original_ours      # the same Parameter, new value
    _close(ours.parametrizations.weight.original, theirs.parametrizations.weight.original)
    ours.weight, theirs.weight = _input(4, 4)
    assert ours.parametrizations.weight.original is original_ours
    _close(ours.parametrizations.weight.original, theirs.parametrizations.weight.original)
    _close(ours.weight, theirs.weight)


def test_chained_parametrizations():
    def build(lib):
        c = _classes(lib)
        m = lib.nn.Linear(3, 3)
        _P(lib).register_parametrization(m, "weight", c["Symmetric"]())
        _P(lib).register_parametrization(m, "weight", c["Scale"](2.0))
        return _P(lib).register_parametrization(m, "weight", c["NoInverse"]())

    ours, theirs = _pair(build)
    _same_module(ours, theirs)
    assert len(ours.parametrizations.weight) == 3
    _close(ours.weight, theirs.weight)
    x_ours, x_theirs = _input(2, 3)
    _same_step(ours, theirs, x_ours, x_theirs)
    # NoInverse has no right_inverse: assigning raises PyTorch's error
    raises_alike(lambda lib: setattr(build(lib), "weight", lib.ones(3, 3)))


def test_several_tensors_parametrized():
    def build(lib):
        c = _classes(lib)
        m = lib.nn.Linear(3, 3)
        _P(lib).register_parametrization(m, "weight", c["Symmetric"]())
        return _P(lib).register_parametrization(m, "bias", c["Scale"](3.0))

    ours, theirs = _pair(build)
    _same_module(ours, theirs)
    x_ours, x_theirs = _input(2, 3)
    _same_step(ours, theirs, x_ours, x_theirs)
    _remove(ours, theirs, "weight")
    _same_module(ours, theirs)
    assert type(ours).__name__ == "ParametrizedLinear"
    _remove(ours, theirs, "bias", False)
    _same_module(ours, theirs)
    assert type(ours) is tg.nn.Linear and not hasattr(ours, "parametrizations")
    _same_state(ours, theirs)


def _registered(make, name, parametrization, *args):
    """``build(lib)``: the module ``make(lib)`` with the test parametrization of that name on ``name``."""
    def build(lib):
        return _P(lib).register_parametrization(make(lib), name, _classes(lib)[parametrization](*args))
    return build


def test_right_inverse_returning_a_tuple():
    build = _registered(lambda lib: lib.nn.Linear(4, 3), "weight", "RankOne")

    ours, theirs = _pair(build)
    _same_module(ours, theirs)
    assert list(ours.state_dict())[1:] == ["parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert not hasattr(ours.parametrizations.weight, "original")
    _close(ours.weight, theirs.weight)
    x_ours, x_theirs = _input(2, 4)
    _same_step(ours, theirs, x_ours, x_theirs)
    raises_alike(lambda lib: _P(lib).remove_parametrizations(build(lib), "weight", leave_parametrized=False))
    _remove(ours, theirs, "weight")
    _same_module(ours, theirs)
    assert isinstance(ours.weight, tg.nn.Parameter) and ours.weight.grad_fn is None
    _same_state(ours, theirs)


def test_parametrized_buffer():
    build = _registered(lambda lib: lib.nn.BatchNorm1d(3), "running_var", "Scale", 2.0)

    ours, theirs = _pair(build)
    _same_module(ours, theirs)
    assert "running_var" not in ours._buffers
    _close(ours.running_var, theirs.running_var)
    _remove(ours, theirs, "running_var", False)
    _same_module(ours, theirs)
    _same_state(ours, theirs)


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_keeps_the_parameter(leave):
    ours, theirs = _pair(_symmetric_linear(3))
    original = ours.parametrizations.weight.original
    _remove(ours, theirs, "weight", leave)
    assert ours.weight is original
    _same_module(ours, theirs)
    assert type(ours) is tg.nn.Linear
    assert not hasattr(tg.nn.Linear, "weight")
    _same_state(ours, theirs)


def test_cached_computes_once():
    build = _registered(lambda lib: lib.nn.Linear(3, 3), "weight", "Counting")

    ours, theirs = _pair(build)
    counts = []
    for lib, m in ((tg, ours), (torch, theirs)):
        p = m.parametrizations.weight[0]
        start = p.calls
        with _P(lib).cached():
            first = m.weight
            same = m.weight is first
            with _P(lib).cached():
                m.weight
            inside = p.calls - start
        m.weight, m.weight
        counts.append((same, inside, p.calls - start))
    assert counts[0] == counts[1] == (True, 1, 3)


def test_transfer_parametrizations_and_params():
    def build(lib):
        c = _classes(lib)
        source = lib.nn.Linear(3, 3)
        _P(lib).register_parametrization(source, "weight", c["Symmetric"]())
        _P(lib).register_parametrization(source, "weight", c["Scale"](2.0))
        target = lib.nn.Linear(3, 3)
        _P(lib).transfer_parametrizations_and_params(source, target)
        return source, target

    (s_ours, t_ours), (s_theirs, t_theirs) = build(tg), build(torch)
    _sync(s_ours, s_theirs)
    _same_module(t_ours, t_theirs)
    assert t_ours.parametrizations.weight.original is s_ours.parametrizations.weight.original
    assert t_ours.parametrizations.weight[0] is s_ours.parametrizations.weight[0]
    _close(t_ours.weight, t_theirs.weight)
    # a tensor the target lacks is created, then parametrized
    for lib in (tg, torch):
        source = lib.nn.Linear(2, 2)
        _P(lib).register_parametrization(source, "weight", _classes(lib)["Scale"](2.0))
        target = _P(lib).transfer_parametrizations_and_params(source, lib.nn.Identity(), "weight")
        assert type(target).__name__ == "ParametrizedIdentity"
        assert list(target.state_dict()) == ["parametrizations.weight.original"]


def test_deepcopy_copies_and_pickle_refuses():
    ours, theirs = _pair(_symmetric_linear(3))
    dup = copy.deepcopy(ours)
    assert type(dup) is type(ours)
    assert dup.parametrizations.weight.original is not ours.parametrizations.weight.original
    _close(dup.weight, theirs.weight)
    raises_alike(lambda lib: pickle.dumps(ours if lib is tg else theirs))


def test_parametrization_errors():
    c = {lib: _classes(lib) for lib in (tg, torch)}
    P = _P
    raises_alike(lambda lib: P(lib).register_parametrization(lib.nn.Linear(2, 2), "nope", c[lib]["Symmetric"]()))
    raises_alike(lambda lib: P(lib).remove_parametrizations(lib.nn.Linear(2, 2), "weight"))
    raises_alike(lambda lib: P(lib).register_parametrization(lib.nn.Linear(2, 2), "weight", c[lib]["ToDouble"]()))
    raises_alike(lambda lib: P(lib).register_parametrization(lib.nn.Linear(2, 2), "weight", c[lib]["Flatten"]()))
    raises_alike(lambda lib: P(lib).register_parametrization(lib.nn.Linear(2, 2), "weight",
                                                             c[lib]["BadInverse"]()))

    def chained(lib, name):
        m = P(lib).register_parametrization(lib.nn.Linear(2, 2), "weight", c[lib]["Symmetric"]())
        return P(lib).register_parametrization(m, "weight", c[lib][name]())

    raises_alike(lambda lib: chained(lib, "ToDouble"))
    raises_alike(lambda lib: chained(lib, "Flatten"))
    # with unsafe=True the shape may change
    for lib in (tg, torch):
        m = P(lib).register_parametrization(lib.nn.Linear(2, 3), "weight", c[lib]["Flatten"](), unsafe=True)
        assert tuple(m.weight.shape) == (6,) and m.parametrizations.weight.unsafe
    raises_alike(lambda lib: P(lib).ParametrizationList([], lib.ones(2)))

    def assign_param(lib):
        m = P(lib).register_parametrization(lib.nn.Linear(2, 2), "weight", c[lib]["Symmetric"]())
        m.weight = lib.nn.Parameter(lib.ones(2, 2))

    raises_alike(assign_param)
    with pytest.raises(TypeError):
        P(tg).register_parametrization(tg.nn.Linear(2, 2), "weight", c[tg]["Symmetric"](), unsafee=True)


# ---------------------------------------------------------------- parametrizations.weight_norm

@pytest.mark.parametrize("kind,dim", [("linear", 0), ("linear", 1), ("linear", None), ("linear", -1),
                                      ("linear", -2), ("conv", 0), ("conv", 1), ("conv", 3), ("conv", None)])
def test_weight_norm_parametrization(kind, dim):
    ours, theirs = _pair(lambda lib: lib.nn.Linear(4, 5) if kind == "linear" else lib.nn.Conv2d(2, 3, 3))
    ours = tg.nn.utils.parametrizations.weight_norm(ours, dim=dim)
    theirs = torch.nn.utils.parametrizations.weight_norm(theirs, dim=dim)
    _same_module(ours, theirs)
    _same_state(ours, theirs)       # g computed from the weight by each library
    g = ours.parametrizations.weight.original0
    assert tuple(g.shape) == tuple(theirs.parametrizations.weight.original0.shape)
    _close(ours.weight, theirs.weight)
    with tg.no_grad(), torch.no_grad():         # g and v independent of each other
        ours.parametrizations.weight.original0.mul_(1.5)
        theirs.parametrizations.weight.original0.mul_(1.5)
    x_ours, x_theirs = _input(2, 4) if kind == "linear" else _input(1, 2, 5, 5)
    _same_step(ours, theirs, x_ours, x_theirs)
    _remove(ours, theirs, "weight")
    _same_module(ours, theirs)
    _same_state(ours, theirs)


def test_weight_norm_loads_the_old_state_dict():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = torch.nn.utils.weight_norm(torch.nn.Linear(3, 4))
    saved = {k: _np(v) for k, v in old.state_dict().items()}
    assert "weight_g" in saved
    theirs = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 4))
    ours = tg.nn.utils.parametrizations.weight_norm(tg.nn.Linear(3, 4))
    assert repr(ours.load_state_dict(saved)) == repr(theirs.load_state_dict({k: torch.tensor(v)
                                                                           for k, v in saved.items()}))
    _same_state(ours, theirs)


# ---------------------------------------------------------------- parametrizations.spectral_norm

SPECTRAL_CASES = {
    "linear": (lambda lib: lib.nn.Linear(5, 4), {}, (3, 5)),
    "linear_dim1_3iters": (lambda lib: lib.nn.Linear(5, 4), {"dim": 1, "n_power_iterations": 3}, (3, 5)),
    "linear_eps": (lambda lib: lib.nn.Linear(5, 4), {"eps": 1e-3, "dim": -1}, (3, 5)),
    "conv2d": (lambda lib: lib.nn.Conv2d(2, 3, 3), {}, (1, 2, 5, 5)),
    "conv_transpose2d": (lambda lib: lib.nn.ConvTranspose2d(2, 3, 3), {}, (1, 2, 4, 4)),
}


@pytest.mark.parametrize("case", sorted(SPECTRAL_CASES))
def test_spectral_norm_parametrization(case):
    make, kwargs, shape = SPECTRAL_CASES[case]

    ours, theirs = _pair(make)
    tg.manual_seed(7)
    ours = tg.nn.utils.parametrizations.spectral_norm(ours, **kwargs)
    theirs = torch.nn.utils.parametrizations.spectral_norm(theirs, **kwargs)
    # registration draws u and v at random, then runs 15 power iterations and n_power_iterations
    # more in the check of the parametrization (training mode): PyTorch's, from our draws, give ours
    snorm, theirs_snorm = ours.parametrizations.weight[0], theirs.parametrizations.weight[0]
    tg.manual_seed(7)
    starts = [tg.empty(len(b)).normal_(0, 1) for b in (snorm._u, snorm._v)]
    with torch.no_grad():
        for buf, start in zip((theirs_snorm._u, theirs_snorm._v), starts):
            buf.copy_(torch.nn.functional.normalize(torch.tensor(_np(start)), dim=0, eps=theirs_snorm.eps))
        mat = theirs_snorm._reshape_weight_to_matrix(theirs.parametrizations.weight.original)
        theirs_snorm._power_method(mat, 15 + theirs_snorm.n_power_iterations)
    _close(snorm._u, theirs_snorm._u, 1e-4, 1e-5)
    _close(snorm._v, theirs_snorm._v, 1e-4, 1e-5)
    _sync(ours, theirs)
    _same_module(ours, theirs)
    assert list(ours.state_dict())[-2:] == ["parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    assert snorm.dim == theirs.parametrizations.weight[0].dim
    for _ in range(4):      # training mode: each access is a power iteration
        x_ours, x_theirs = _input(*shape)
        _same_step(ours, theirs, x_ours, x_theirs, rtol=1e-4, atol=1e-5)
        _same_state(ours, theirs, rtol=1e-4, atol=1e-5)
    ours.eval()
    theirs.eval()
    u = _np(snorm._u)
    for _ in range(2):
        x_ours, x_theirs = _input(*shape)
        _close(ours(x_ours), theirs(x_theirs), 1e-4, 1e-5)
    np.testing.assert_array_equal(_np(snorm._u), u)
    _same_state(ours, theirs, rtol=1e-4, atol=1e-5)
    _remove(ours, theirs, "weight")
    _same_module(ours, theirs)
    _same_state(ours, theirs, rtol=1e-4, atol=1e-5)


def test_spectral_norm_of_a_vector_is_exact():
    def build(lib):
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(lib.tensor([3.0, -4.0, 12.0]))
        return lib.nn.utils.parametrizations.spectral_norm(m, "w")

    ours, theirs = _pair(build)
    _same_module(ours, theirs)
    _close(ours.w, theirs.w)
    assert not hasattr(ours.parametrizations.w[0], "_u")


def test_weight_norm_and_spectral_norm_errors():
    raises_alike(lambda lib: lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 4), dim=2))
    raises_alike(lambda lib: lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 4), name="nope"))
    SN = lambda lib: lib.nn.utils.parametrizations.spectral_norm  # noqa: E731
    raises_alike(lambda lib: SN(lib)(lib.nn.Linear(3, 4), dim=2))
    raises_alike(lambda lib: SN(lib)(lib.nn.Linear(3, 4), dim=-3))
    raises_alike(lambda lib: SN(lib)(lib.nn.Linear(3, 4), n_power_iterations=0))
    raises_alike(lambda lib: SN(lib)(lib.nn.Linear(3, 4), name="nope"))


# ---------------------------------------------------------------- parametrizations.orthogonal

def _orth_build(shape, orthogonal_map, trivial):
    def build(lib):
        m = lib.nn.Linear(shape[1], shape[0])
        return lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map,
                                                        use_trivialization=trivial)
    return build


ORTH_CASES = [(shape, omap, trivial) for shape in [(4, 4), (5, 3), (3, 5)]
              for omap in [None, "matrix_exp", "cayley", "householder"] for trivial in [True, False]]


@pytest.mark.parametrize("shape,omap,trivial", ORTH_CASES, ids=[f"{s[0]}x{s[1]}-{m}-{t}" for s, m, t in ORTH_CASES])
def test_orthogonal(shape, omap, trivial):
    # in float64: the gradients of the maps cancel much, float32 leaves 1e-4 of their size
    ours, theirs = _pair(lambda lib: lib.nn.Linear(shape[1], shape[0]).double())
    ours = tg.nn.utils.parametrizations.orthogonal(ours, orthogonal_map=omap, use_trivialization=trivial)
    theirs = torch.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map=omap, use_trivialization=trivial)
    _same_module(ours, theirs)
    if not trivial or shape[0] == shape[1]:
        # no random completion: the initial values are computed, not copied
        _same_state(ours, theirs, rtol=1e-9, atol=1e-10)
    _sync(ours, theirs)
    w = _np(ours.weight)
    gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-9)
    _close(ours.weight, theirs.weight, 1e-9, 1e-10)
    x_ours, x_theirs = _input(2, shape[1], dtype=np.float64)
    _same_step(ours, theirs, x_ours, x_theirs, rtol=1e-9, atol=1e-10)


def test_orthogonal_assignment():
    q = np.linalg.qr(RNG.standard_normal((4, 4)))[0].astype(np.float32)
    for omap, trivial in [("matrix_exp", True), ("householder", False), ("cayley", True)]:
        mods = {lib: _orth_build((4, 4), omap, trivial)(lib) for lib in (tg, torch)}
        _sync(mods[tg], mods[torch])
        for lib, m in mods.items():
            m.weight = lib.tensor(q)
        _same_state(mods[tg], mods[torch], rtol=1e-4, atol=1e-5)
        _close(mods[tg].weight, mods[torch].weight, 1e-4, 1e-5)
    raises_alike(lambda lib: setattr(_orth_build((4, 4), "matrix_exp", False)(lib), "weight", lib.eye(4)))
    raises_alike(lambda lib: setattr(_orth_build((4, 4), "cayley", True)(lib), "weight", lib.eye(3)))


def test_orthogonal_errors():
    O = lambda lib: lib.nn.utils.parametrizations.orthogonal  # noqa: E731
    raises_alike(lambda lib: O(lib)(lib.nn.Linear(3, 4), orthogonal_map="svd"))
    raises_alike(lambda lib: O(lib)(lib.nn.Linear(3, 4), name="bias"))
    raises_alike(lambda lib: O(lib)(lib.nn.Linear(3, 4), name="nope"))

    def complex_householder(lib):
        m = lib.nn.Module()
        m.weight = lib.nn.Parameter(lib.ones(3, 3, dtype=lib.complex64))
        O(lib)(m, orthogonal_map="householder")

    raises_alike(complex_householder)


# ---------------------------------------------------------------- the hook-based weight_norm

@pytest.mark.parametrize("dim", [0, 1, None])
def test_old_weight_norm(dim):
    mods, messages = dict(zip((tg, torch), _pair(lambda lib: lib.nn.Linear(4, 3)))), []
    for lib, m in mods.items():
        with pytest.warns(FutureWarning) as record:
            assert lib.nn.utils.weight_norm(m, dim=dim) is m
        messages.append(str(record[0].message))
    ours, theirs = mods[tg], mods[torch]
    assert messages[0] == messages[1]
    _same_module(ours, theirs)
    _same_state(ours, theirs)       # g computed from the weight by each library
    assert list(ours.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert tuple(ours.weight_g.shape) == tuple(theirs.weight_g.shape)
    with tg.no_grad(), torch.no_grad():
        ours.weight_g.mul_(2.0)
        theirs.weight_g.mul_(2.0)
    x_ours, x_theirs = _input(2, 4)
    _same_step(ours, theirs, x_ours, x_theirs)
    _close(ours.weight, theirs.weight)
    tg.nn.utils.remove_weight_norm(ours)
    torch.nn.utils.remove_weight_norm(theirs)
    _same_module(ours, theirs)
    assert not ours._forward_pre_hooks
    _same_state(ours, theirs)


def test_old_weight_norm_errors():
    def twice(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            lib.nn.utils.weight_norm(lib.nn.utils.weight_norm(lib.nn.Linear(2, 2)))

    raises_alike(twice)
    raises_alike(lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.Linear(2, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        raises_alike(lambda lib: lib.nn.utils.weight_norm(lib.nn.Linear(2, 2), name="nope"))


# ---------------------------------------------------------------- the hook-based spectral_norm

OLD_SPECTRAL_CASES = dict(SPECTRAL_CASES, linear_eps=(lambda lib: SPECTRAL_CASES["linear"][0](lib), {"eps": 1e-3},
                                                       (3, 5)))


@pytest.mark.parametrize("case", sorted(OLD_SPECTRAL_CASES))
def test_old_spectral_norm(case):
    make, kwargs, shape = OLD_SPECTRAL_CASES[case]

    def build(lib):
        return lib.nn.utils.spectral_norm(make(lib), **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no deprecation warning, as in PyTorch
        ours, theirs = _pair(build)
    _same_module(ours, theirs)
    assert ours.state_dict()._metadata[""] == theirs.state_dict()._metadata[""]
    for _ in range(4):
        x_ours, x_theirs = _input(*shape)
        _same_step(ours, theirs, x_ours, x_theirs, rtol=1e-4, atol=1e-5)
        _same_state(ours, theirs, rtol=1e-4, atol=1e-5)
        _close(ours.weight, theirs.weight, 1e-4, 1e-5)
    ours.eval()
    theirs.eval()
    u = _np(ours.weight_u)
    x_ours, x_theirs = _input(*shape)
    _close(ours(x_ours), theirs(x_theirs), 1e-4, 1e-5)
    np.testing.assert_array_equal(_np(ours.weight_u), u)
    tg.nn.utils.remove_spectral_norm(ours)
    torch.nn.utils.remove_spectral_norm(theirs)
    _same_module(ours, theirs)
    assert not ours._forward_pre_hooks and not ours._state_dict_hooks
    _same_state(ours, theirs, rtol=1e-4, atol=1e-5)


def test_old_spectral_norm_errors():
    raises_alike(lambda lib: lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2))))
    raises_alike(lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 2)))
    raises_alike(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0))
    raises_alike(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2, bias=False), name="bias"))
    raises_alike(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), name="nope"))
