"""``tensorgrad.distributions`` against ``torch.distributions``: densities, entropies, moments,
cdf/icdf and KL divergences (values and gradients in the parameters), sample shapes, dtypes and
statistics, reparameterized gradients, validation errors, ``repr``, and a VAE step.
"""

import math

import numpy as np
import pytest

import tensorgrad as tg
from oracle import torch, _oracle  # noqa: F401

TD = tg.distributions

RNG = np.random.default_rng(0)
LOC = np.array([0.3, -1.2, 2.0])
SCALE = np.array([0.7, 1.5, 0.4])
POS_A = np.array([0.8, 2.5, 4.0])
POS_B = np.array([1.7, 0.6, 3.0])
PROBS = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
LOGITS = np.array([[0.4, -1.0, 2.0], [0.0, 0.5, -0.5]])
L = np.array([[1.2, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.4, 0.5, 1.1]])
COV = L @ L.T


def _lib_params(lib, params):
    return [lib.tensor(p, dtype=lib.float64, requires_grad=True) for p in params]


def _np(t):
    return np.asarray(t.detach().numpy())


# (name, builder(D, *params), params, value for log_prob/cdf or None, which of cdf/icdf apply)
CASES = [
    ("normal", lambda D, a, b: D.Normal(a, b), [LOC, SCALE], np.array([0.1, -2.0, 2.5]), ("cdf", "icdf")),
    ("uniform", lambda D, a, b: D.Uniform(a, a + b), [LOC, SCALE], LOC + 0.3 * SCALE, ("cdf", "icdf")),
    ("laplace", lambda D, a, b: D.Laplace(a, b), [LOC, SCALE], np.array([0.1, -2.0, 2.5]), ("cdf", "icdf")),
    ("exponential", lambda D, a: D.Exponential(a), [POS_A], np.array([0.5, 0.1, 2.0]), ("cdf", "icdf")),
    ("gamma", lambda D, a, b: D.Gamma(a, b), [POS_A, POS_B], np.array([0.5, 0.1, 2.0]), ()),
    ("beta", lambda D, a, b: D.Beta(a, b), [POS_A, POS_B], np.array([0.5, 0.1, 0.9]), ()),
    ("dirichlet", lambda D, a: D.Dirichlet(a), [POS_A], np.array([0.2, 0.3, 0.5]), ()),
    ("lognormal", lambda D, a, b: D.LogNormal(a, b), [LOC, SCALE], np.array([0.5, 0.1, 2.0]), ("cdf", "icdf")),
    ("bernoulli_probs", lambda D, p: D.Bernoulli(probs=p), [PROBS], np.array([1.0, 0.0, 1.0]), ()),
    ("bernoulli_logits", lambda D, p: D.Bernoulli(logits=p), [LOGITS], np.array([1.0, 0.0, 1.0]), ()),
    ("categorical_probs", lambda D, p: D.Categorical(probs=p), [PROBS], np.array([2, 0]), ()),
    ("categorical_logits", lambda D, p: D.Categorical(logits=p), [LOGITS], np.array([1, 2]), ()),
    ("onehot", lambda D, p: D.OneHotCategorical(logits=p), [LOGITS], np.eye(3)[[1, 2]], ()),
    ("poisson", lambda D, a: D.Poisson(a), [POS_A], np.array([0.0, 3.0, 5.0]), ()),
    ("mvn_cov", lambda D, m, c: D.MultivariateNormal(m, covariance_matrix=c), [LOC, COV], LOC[::-1].copy(), ()),
    ("mvn_tril", lambda D, m, s: D.MultivariateNormal(m, scale_tril=s), [LOC, L], LOC[::-1].copy(), ()),
    ("mvn_prec", lambda D, m, c: D.MultivariateNormal(m, precision_matrix=c), [LOC, COV], LOC[::-1].copy(), ()),
    ("independent", lambda D, a, b: D.Independent(D.Normal(a, b), 1), [LOC, SCALE], np.array([0.1, -2.0, 2.5]), ()),
    ("tanh_affine", lambda D, a, b: D.TransformedDistribution(
        D.Normal(a, b), [D.AffineTransform(0.5, 2.0), D.TanhTransform()]), [LOC, SCALE], np.array([0.1, -0.6, 0.9]),
     ("cdf",)),
    ("sigmoid_exp", lambda D, a, b: D.TransformedDistribution(
        D.Normal(a, b), D.transforms.ComposeTransform([D.ExpTransform().inv.inv, D.SigmoidTransform()])),
     [LOC, SCALE], np.array([0.6, 0.7, 0.9]), ()),
]

_NO_ENTROPY = {"poisson", "tanh_affine", "sigmoid_exp"}
_NO_MOMENTS = {"tanh_affine", "sigmoid_exp", "categorical_probs", "categorical_logits"}


def _quantities(D, lib, case):
    name, build, params, value, extra = case
    ps = _lib_params(lib, params)
    d = build(D, *ps)
    v = lib.tensor(value, dtype=lib.int64 if value.dtype.kind == "i" else lib.float64)
    out = {"log_prob": d.log_prob(v)}
    if name not in _NO_ENTROPY:
        out["entropy"] = d.entropy()
    if name not in _NO_MOMENTS:
        out["mean"] = d.mean
        out["variance"] = d.variance
        out["stddev"] = d.stddev
    if "cdf" in extra:
        out["cdf"] = d.cdf(v)
    if "icdf" in extra:
        out["icdf"] = d.icdf(lib.tensor([0.2, 0.5, 0.9], dtype=lib.float64))
    total = sum((q.double() * (k + 1)).sum() for k, q in enumerate(out.values()))
    grads = lib.autograd.grad(total, ps, allow_unused=True)
    return d, out, grads


# the default run keeps one case per kind of code path; the rest run with --long (compile time)
_LONG_CASES = {"uniform", "laplace", "exponential", "beta", "lognormal", "bernoulli_probs", "categorical_probs",
               "onehot", "poisson", "mvn_cov", "mvn_prec", "independent", "sigmoid_exp"}


def _params(rows, long_names):
    return [pytest.param(r, id=r[0], marks=[pytest.mark.long] if r[0] in long_names else []) for r in rows]


@pytest.mark.parametrize("case", _params(CASES, _LONG_CASES))
def test_values_and_gradients_match_pytorch(case):
    d, mine, my_grads = _quantities(TD, tg, case)
    _, theirs, their_grads = _quantities(torch.distributions, torch, case)
    assert list(mine) == list(theirs)
    for key in mine:
        assert tuple(mine[key].shape) == tuple(theirs[key].shape), key
        assert mine[key].dtype.name == str(theirs[key].dtype).split(".")[1], key
        np.testing.assert_allclose(_np(mine[key]), _np(theirs[key]), rtol=1e-6, atol=1e-8, err_msg=key)
    for g, h in zip(my_grads, their_grads):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(_np(g), _np(h), rtol=1e-6, atol=1e-8)
    assert tuple(d.batch_shape) == tuple(_quantities(torch.distributions, torch, case)[0].batch_shape)


def test_gamma_cdf_matches_pytorch():
    def run(lib):
        conc, rate, value = _lib_params(lib, [POS_A, POS_B, np.array([0.5, 0.1, 2.0])])
        cdf = lib.distributions.Gamma(conc.detach(), rate).cdf(value)
        return [cdf] + list(lib.autograd.grad(cdf.sum(), [rate, value]))
    for a, b in zip(run(tg), run(torch)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9)


KL_PAIRS = [
    ("normal", lambda D, a, b: (D.Normal(a, b), D.Normal(b, a + 1))),
    ("laplace", lambda D, a, b: (D.Laplace(a, b), D.Laplace(b, a + 1))),
    ("exponential", lambda D, a, b: (D.Exponential(a), D.Exponential(b))),
    ("gamma", lambda D, a, b: (D.Gamma(a, b), D.Gamma(b, a))),
    ("beta", lambda D, a, b: (D.Beta(a, b), D.Beta(b, a))),
    ("dirichlet", lambda D, a, b: (D.Dirichlet(a), D.Dirichlet(b))),
    ("poisson", lambda D, a, b: (D.Poisson(a), D.Poisson(b))),
    ("uniform", lambda D, a, b: (D.Uniform(a - 1, a), D.Uniform(a - 2, a + b))),
    ("bernoulli", lambda D, a, b: (D.Bernoulli(a / 5), D.Bernoulli(b / 4))),
    ("categorical", lambda D, a, b: (D.Categorical(a), D.Categorical(logits=b))),
    ("onehot", lambda D, a, b: (D.OneHotCategorical(a), D.OneHotCategorical(logits=b))),
    ("independent", lambda D, a, b: (D.Independent(D.Normal(a, b), 1), D.Independent(D.Normal(b, a), 1))),
    ("lognormal", lambda D, a, b: (D.LogNormal(a, b), D.LogNormal(b, a))),
    ("mvn", lambda D, a, b: (D.MultivariateNormal(a, scale_tril=b.diag() + 0.1 * b.outer(b).tril()),
                             D.MultivariateNormal(b, covariance_matrix=a.diag() + 0.2))),
    ("gamma_exponential", lambda D, a, b: (D.Gamma(a, b), D.Exponential(b))),
    ("normal_laplace", lambda D, a, b: (D.Normal(a, b), D.Laplace(b, a))),
    ("uniform_normal", lambda D, a, b: (D.Uniform(a - 1, a), D.Normal(b, a))),
    ("beta_gamma", lambda D, a, b: (D.Beta(a, b), D.Gamma(b, a))),
    ("normal_gamma_infinite", lambda D, a, b: (D.Normal(a, b), D.Gamma(b, a))),
]


def _kl(lib, build):
    a, b = _lib_params(lib, [POS_A, POS_B])
    p, q = build(lib.distributions, a, b)
    kl = lib.distributions.kl_divergence(p, q)
    finite = kl.isfinite()
    grads = lib.autograd.grad(kl[finite].sum(), [a, b], allow_unused=True) if finite.any() else (None, None)
    return kl, grads


@pytest.mark.parametrize("pair", _params(KL_PAIRS, {"mvn", "dirichlet", "categorical", "onehot"}))
def test_kl_divergence_matches_pytorch(pair):
    mine, my_grads = _kl(tg, pair[1])
    theirs, their_grads = _kl(torch, pair[1])
    np.testing.assert_allclose(_np(mine), _np(theirs), rtol=1e-6, atol=1e-9)
    for g, h in zip(my_grads, their_grads):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(_np(g), _np(h), rtol=1e-6, atol=1e-9)


def test_kl_exponential_family_bregman_and_unregistered_pairs():
    for lib in (tg, torch):
        D = lib.distributions
        a, b = _lib_params(lib, [POS_A, POS_B])
        with pytest.raises(NotImplementedError, match="No KL"):
            D.kl_divergence(D.Poisson(a), D.Uniform(a, a + b))
        with pytest.raises(NotImplementedError, match="Bregman"):
            D.kl_divergence(D.Poisson(a), D.Exponential(b))
    # a user registration wins over the family rule, for a subclass too
    class MyNormal(TD.Normal):
        pass

    @TD.register_kl(MyNormal, TD.Normal)
    def _kl(p, q):
        return p.loc * 0 + 42.0

    assert float(TD.kl_divergence(MyNormal(0.0, 1.0), TD.Normal(0.0, 1.0))) == 42.0
    with pytest.raises(TypeError, match="Distribution subclass"):
        TD.register_kl(int, TD.Normal)


# ---------------------------------------------------------------- samples

_LONG = pytest.mark.long      # compiles the gamma/poisson/categorical samplers once more each

_LN_LOC, _LN_SCALE = np.array([0.0, 0.3]), np.array([0.25, 0.5])

SAMPLERS = [
    ("normal", lambda D, t: D.Normal(t([1.0, -2.0]), t([0.5, 2.0])), np.array([1.0, -2.0]), np.array([0.25, 4.0])),
    ("gamma", lambda D, t: D.Gamma(t([0.5, 4.0]), t([2.0, 1.0])), np.array([0.25, 4.0]), np.array([0.125, 4.0])),
    ("bernoulli", lambda D, t: D.Bernoulli(t([0.1, 0.7])), np.array([0.1, 0.7]), np.array([0.09, 0.21])),
    pytest.param("uniform", lambda D, t: D.Uniform(t([0.0, 1.0]), t([1.0, 4.0])), np.array([0.5, 2.5]),
                 np.array([1 / 12, 0.75]), marks=_LONG),
    pytest.param("laplace", lambda D, t: D.Laplace(t([1.0, 0.0]), t([0.5, 2.0])), np.array([1.0, 0.0]),
                 np.array([0.5, 8.0]), marks=_LONG),
    pytest.param("exponential", lambda D, t: D.Exponential(t([0.5, 3.0])), np.array([2.0, 1 / 3]),
                 np.array([4.0, 1 / 9]), marks=_LONG),
    pytest.param("beta", lambda D, t: D.Beta(t([0.5, 3.0]), t([2.0, 3.0])), np.array([0.2, 0.5]),
                 np.array([0.0457, 1 / 28]), marks=_LONG),
    pytest.param("poisson", lambda D, t: D.Poisson(t([0.5, 7.0])), np.array([0.5, 7.0]), np.array([0.5, 7.0]),
                 marks=_LONG),
    pytest.param("categorical", lambda D, t: D.Categorical(t([0.2, 0.3, 0.5])), np.array(1.3), np.array(0.61),
                 marks=_LONG),
    pytest.param("lognormal", lambda D, t: D.LogNormal(t(list(_LN_LOC)), t(list(_LN_SCALE))),
                 np.exp(_LN_LOC + _LN_SCALE ** 2 / 2),
                 np.expm1(_LN_SCALE ** 2) * np.exp(2 * _LN_LOC + _LN_SCALE ** 2), marks=_LONG),
]


@pytest.mark.parametrize("name, build, mean, var", SAMPLERS)
def test_sample_shapes_dtypes_and_statistics_without_torch(name, build, mean, var):
    d = build(TD, tg.tensor)
    tg.manual_seed(0)
    x = d.sample((20000,))
    assert tuple(x.shape) == (20000,) + tuple(d.batch_shape) + tuple(d.event_shape)
    assert x.dtype is (tg.int64 if name == "categorical" else tg.float32)
    assert not x.requires_grad
    values = _np(x).astype(np.float64)
    np.testing.assert_allclose(values.mean(0), mean, rtol=0.05, atol=0.02)
    np.testing.assert_allclose(values.var(0), var, rtol=0.08, atol=0.01)
    assert bool(d.support.check(x).all())
    tg.manual_seed(0)
    assert np.array_equal(_np(d.sample((20000,))), _np(x))         # reproducible under manual_seed


@pytest.mark.long
def test_sample_shapes_of_multivariate_and_one_hot_without_torch():
    tg.manual_seed(1)
    mvn = TD.MultivariateNormal(tg.tensor(LOC, dtype=tg.float32), covariance_matrix=tg.tensor(COV, dtype=tg.float32))
    x = mvn.sample((4000, 2))
    assert tuple(x.shape) == (4000, 2, 3)
    flat = _np(x).reshape(-1, 3).astype(np.float64)
    np.testing.assert_allclose(flat.mean(0), LOC, atol=0.08)
    np.testing.assert_allclose(np.cov(flat.T), COV, atol=0.12)
    oh = TD.OneHotCategorical(tg.tensor(PROBS, dtype=tg.float32))
    y = oh.sample((3,))
    assert tuple(y.shape) == (3, 2, 3) and y.dtype is tg.float32
    assert np.array_equal(_np(y).sum(-1), np.ones((3, 2)))
    dirichlet = TD.Dirichlet(tg.tensor([[0.5, 1.0, 2.0]]).expand(4, 3))
    z = dirichlet.rsample((5,))
    assert tuple(z.shape) == (5, 4, 3)
    np.testing.assert_allclose(_np(z).sum(-1), 1.0, rtol=1e-5)
    assert tuple(TD.Normal(0.0, 1.0).sample().shape) == ()
    assert tuple(TD.Normal(0.0, 1.0).expand((2, 5)).rsample((3,)).shape) == (3, 2, 5)


def test_rsample_gradients_match_the_expected_values_without_torch():
    """E[d/dθ f(x)] by reparameterized draws against the analytic derivative (as PyTorch's)."""
    tg.manual_seed(3)
    loc = tg.tensor([0.5, -1.0], requires_grad=True)
    scale = tg.tensor([1.5, 0.5], requires_grad=True)
    x = TD.Normal(loc, scale).rsample((20000,))
    (x ** 2).mean(0).sum().backward()       # E[x²] = loc² + scale²
    np.testing.assert_allclose(_np(loc.grad), 2 * _np(loc), atol=0.05)
    np.testing.assert_allclose(_np(scale.grad), 2 * _np(scale), rtol=0.03)
    assert x.grad_fn.name() == "AddBackward0"
    for make in (lambda: TD.Bernoulli(tg.tensor(0.3)), lambda: TD.Poisson(tg.tensor(2.0))):
        assert not make().has_rsample
        with pytest.raises(NotImplementedError):
            make().rsample()


@pytest.mark.long
def test_rsample_gradients_of_gamma_and_beta_match_the_expected_values_without_torch():
    tg.manual_seed(3)
    conc = tg.tensor([0.7, 3.0], requires_grad=True)
    rate = tg.tensor([2.0, 0.5], requires_grad=True)
    g = TD.Gamma(conc, rate).rsample((20000,))
    g.mean(0).sum().backward()              # E[x] = conc / rate
    np.testing.assert_allclose(_np(conc.grad), 1 / _np(rate), rtol=0.05)
    np.testing.assert_allclose(_np(rate.grad), -_np(conc) / _np(rate) ** 2, rtol=0.05)
    a = tg.tensor([2.0, 3.0], requires_grad=True)
    b = TD.Beta(a[0], a[1]).rsample((20000,))
    b.mean().backward()                     # E[x] = a / (a + b)
    np.testing.assert_allclose(_np(a.grad), [3 / 25, -2 / 25], atol=0.01)


# ---------------------------------------------------------------- validation, repr

ERRORS = [
    lambda D, t: D.Normal(t([0.0, 1.0]), t([1.0, -1.0])),
    lambda D, t: D.Normal(t([0.0, float("nan")]), t([1.0, 1.0])),
    lambda D, t: D.Bernoulli(t([0.5, 1.5])),
    lambda D, t: D.Bernoulli(),
    lambda D, t: D.Bernoulli(probs=t(0.5), logits=t(0.1)),
    lambda D, t: D.Categorical(t(0.5)),
    lambda D, t: D.Categorical(t([0.5, -0.1])),
    lambda D, t: D.Uniform(t([1.0]), t([0.0])),
    lambda D, t: D.Beta(t(-1.0), t(1.0)),
    lambda D, t: D.Dirichlet(t(1.0)),
    lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), t([[1.0, 2.0], [2.0, 1.0]])),
    lambda D, t: D.MultivariateNormal(t([0.0, 0.0])),
    lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), scale_tril=t([1.0, 1.0])),
    lambda D, t: D.Independent(D.Normal(t([0.0]), t([1.0])), 2),
    lambda D, t: D.Normal(t([0.0]), t([1.0])).log_prob([0.0]),
    lambda D, t: D.Normal(t([0.0, 1.0]), t([1.0, 1.0])).log_prob(t([0.0, 1.0, 2.0])),
    lambda D, t: D.Exponential(t([1.0, 2.0])).log_prob(t([-1.0, 2.0])),
    lambda D, t: D.Categorical(t([0.5, 0.5])).log_prob(t([2])),
    lambda D, t: D.Poisson(t([1.0])).log_prob(t([1.5])),
    lambda D, t: D.Beta(t(1.0), t(2.0)).log_prob(t(1.5)),
    lambda D, t: D.Dirichlet(t([1.0, 2.0])).log_prob(t([0.5, 0.6])),
    lambda D, t: D.Uniform(t(0.0), t(1.0)).log_prob(t(2.0)),
    lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), t([[1.0, 0.0], [0.0, 1.0]])).log_prob(t([1.0, 2.0, 3.0])),
    lambda D, t: D.OneHotCategorical(t([0.5, 0.5])).log_prob(t([1.0, 1.0])),
    lambda D, t: D.Distribution.set_default_validate_args(3),
    lambda D, t: D.transforms.Transform(cache_size=2),
    lambda D, t: D.TransformedDistribution(D.Normal(t(0.0), t(1.0)), "exp"),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_validation_errors_match_pytorch(k):
    outcomes = []
    for lib in (tg, torch):
        try:
            ERRORS[k](lib.distributions, lib.tensor)
        except Exception as error:      # noqa: BLE001  (the type is what is compared)
            outcomes.append((type(error), str(error)))
        else:
            outcomes.append(None)
    assert outcomes[1] is not None
    assert outcomes[0] == outcomes[1]


def test_validation_can_be_turned_off():
    for lib in (tg, torch):
        d = lib.distributions.Normal(lib.tensor([0.0]), lib.tensor([-1.0]), validate_args=False)
        assert tuple(d.log_prob(lib.tensor([0.5])).shape) == (1,)
        lib.distributions.Distribution.set_default_validate_args(False)
        try:
            lib.distributions.Exponential(lib.tensor([-1.0])).log_prob(lib.tensor([-2.0]))
        finally:
            lib.distributions.Distribution.set_default_validate_args(True)


def test_repr_matches_pytorch():
    def reprs(lib):
        D = lib.distributions
        t = lib.tensor
        c = D.Categorical(logits=t([0.0, 1.0]))
        c.probs     # the lazily derived parameter shows once computed
        return [
            repr(D.Normal(t(0.0), t(1.0))), repr(D.Normal(0.0, 1.0)), repr(D.Normal(t([0.0, 1.0]), 1.0)),
            repr(D.Bernoulli(logits=t(0.3))), repr(c), repr(D.Beta(2.0, 3.0)), repr(D.Uniform(0.0, 2.0)),
            repr(D.Independent(D.Normal(t([0.0, 1.0]), 1.0), 1)), repr(D.LogNormal(0.0, 1.0)),
            repr(D.Uniform(0.0, 2.0).support), repr(D.constraints.positive), repr(D.constraints.simplex),
            repr(D.constraints.real_vector), repr(D.constraints.unit_interval), repr(D.constraints.nonnegative_integer),
            repr(D.Categorical(t([0.5, 0.5])).support), repr(D.ExpTransform()), repr(D.ExpTransform().inv),
            repr(D.ComposeTransform([D.ExpTransform(), D.AffineTransform(0.0, 2.0)])),
            repr(D.MultivariateNormal(t([0.0, 0.0]), t([[1.0, 0.0], [0.0, 1.0]]))),
            str(D.Normal(0.0, 1.0).batch_shape), str(D.Dirichlet(t([[1.0, 2.0]])).event_shape),
        ]
    assert reprs(tg) == reprs(torch)


def test_transforms_match_pytorch():
    def run(lib):
        D = lib.distributions
        x = lib.tensor([-1.5, 0.2, 3.0], dtype=lib.float64, requires_grad=True)
        out = []
        for t in (D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform(), D.AffineTransform(1.0, -2.0),
                  D.AffineTransform(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64), 0.5),
                  D.ComposeTransform([D.AffineTransform(0.5, 3.0), D.ExpTransform()]),
                  D.PowerTransform(2.0).inv, D.ExpTransform().inv, D.SoftmaxTransform()):
            xi = x.exp() if isinstance(t.inv, D.PowerTransform) else x
            y = t(xi)
            out.append(y)
            out.append(t.inv(y))
            if t.bijective:
                out.append(t.log_abs_det_jacobian(xi, y))
                out.append(lib.tensor(float(t.sign if isinstance(t.sign, int) else t.sign.sum())))
        grads = lib.autograd.grad(sum(o.sum() for o in out), [x])
        return [_np(o) for o in out] + [_np(grads[0])], [repr(t.domain) + repr(t.codomain) for t in (
            D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform(), D.AffineTransform(0.0, 1.0, event_dim=1),
            D.ComposeTransform([D.SoftmaxTransform(), D.ExpTransform().inv]))]
    mine, theirs = run(tg), run(torch)
    assert mine[1] == theirs[1]
    for a, b in zip(mine[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-12)
    cached = TD.ExpTransform().with_cache()
    x = tg.tensor([1.0])
    assert cached.inv(cached(x)) is x
    assert TD.ExpTransform() == TD.ExpTransform() and TD.ExpTransform().inv.inv == TD.ExpTransform()


def test_biject_to_and_transform_to_match_pytorch():
    def run(lib):
        D = lib.distributions
        C = D.constraints
        x = lib.tensor([-1.0, 0.5, 2.0], dtype=lib.float64)
        out = []
        for c in (C.real, C.positive, C.greater_than(1.5), C.less_than(-1.0), C.unit_interval, C.interval(-2.0, 3.0),
                  C.half_open_interval(0.0, 2.0), C.nonnegative):
            for registry in (D.biject_to, D.transform_to):
                t = registry(c)
                out.append((repr(t), _np(t(x)).tolist(), _np(t.log_abs_det_jacobian(x, t(x))).tolist()))
        out.append(_np(D.transform_to(C.simplex)(x)).tolist())
        stick = D.biject_to(C.simplex)
        y = stick(x)
        out.append((repr(stick), _np(y).tolist(), _np(stick.log_abs_det_jacobian(x, y)).tolist()))
        out.append(_np(stick.inv(y)).tolist())
        for bad in (lambda: D.biject_to(C.lower_cholesky), lambda: D.biject_to.register(3, lambda c: None)):
            try:
                bad()
            except Exception as error:      # noqa: BLE001
                out.append((type(error).__name__, str(error)))
        return out
    mine, theirs = run(tg), run(torch)
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        if isinstance(a, tuple) and len(a) == 3:
            assert a[0] == b[0]
            np.testing.assert_allclose(a[1], b[1], rtol=1e-12)
            np.testing.assert_allclose(a[2], b[2], rtol=1e-12)
        elif isinstance(a, list):
            np.testing.assert_allclose(a, b, rtol=1e-12)
    assert mine[-1] == theirs[-1]


@pytest.mark.long
def test_expand_enumerate_and_properties_match_pytorch():
    def run(lib):
        D = lib.distributions
        t = lib.tensor
        out = []
        for d in (D.Normal(t([0.0]), t([2.0])), D.Bernoulli(t([0.3])), D.Categorical(t([[0.2, 0.8]])),
                  D.Gamma(t([2.0]), t([3.0])), D.Dirichlet(t([[1.0, 2.0, 0.5]])), D.Beta(t([0.5]), t([2.0])),
                  D.MultivariateNormal(t([[0.0, 1.0]]), t([[2.0, 0.5], [0.5, 1.0]])), D.Poisson(t([3.5])),
                  D.Independent(D.Laplace(t([[0.0, 1.0]]), t([[1.0, 2.0]])), 1), D.LogNormal(t([0.0]), t([0.5]))):
            e = d.expand((3,) + tuple(d.batch_shape)[1:])
            out.append((type(e).__name__, tuple(e.batch_shape), tuple(e.event_shape), tuple(e.mean.shape),
                        _np(e.mode).tolist(), e.has_rsample))
            if d.has_enumerate_support:
                out.append(_np(d.enumerate_support()).tolist())
                out.append(tuple(d.enumerate_support(expand=False).shape))
        return out
    assert run(tg) == run(torch)


def test_vae_step_matches_pytorch_on_fixed_noise():
    """An encoder's Normal, a reparameterized draw (fixed noise), a Bernoulli decoder, the KL to
    N(0, 1), and backward: the same loss and gradients as PyTorch."""
    W = RNG.normal(size=(4, 2 * 2)) * 0.5
    V = RNG.normal(size=(2, 4)) * 0.5
    data = (RNG.random(size=(3, 4)) > 0.5).astype(np.float64)
    noise = RNG.normal(size=(3, 2))

    def step(lib):
        D = lib.distributions
        w = lib.tensor(W, requires_grad=True)
        v = lib.tensor(V, requires_grad=True)
        x = lib.tensor(data)
        h = x @ w
        mu, log_sigma = h[:, :2], h[:, 2:]
        q = D.Normal(mu, log_sigma.exp())
        z = q.loc + q.scale * lib.tensor(noise)             # rsample on fixed noise
        prior = D.Normal(lib.zeros_like(mu), lib.ones_like(mu))
        recon = D.Bernoulli(logits=z @ v)
        loss = -(recon.log_prob(x).sum(-1) - D.kl_divergence(q, prior).sum(-1)).mean()
        loss = loss + (q.log_prob(z) - prior.log_prob(z)).sum() * 0.01
        loss.backward()
        return _np(loss), _np(w.grad), _np(v.grad)

    for a, b in zip(step(tg), step(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    # and the real rsample path runs end to end
    tg.manual_seed(0)
    mu = tg.zeros(5, 2, requires_grad=True)
    q = TD.Normal(mu, tg.ones(5, 2))
    z = q.rsample()
    (z.sum() + TD.kl_divergence(q, TD.Normal(0.0, 1.0)).sum()).backward()
    np.testing.assert_allclose(_np(mu.grad), np.ones((5, 2)))


def test_import_as_torch_resolves_distributions_without_torch():
    """The ``python -m tensorgrad`` hook's finder gives ``torch.distributions`` as tensorgrad's
    module (``tests/test_as_torch.py`` runs the hook itself in a subprocess)."""
    from tensorgrad import _as_torch
    spec = _as_torch._Finder().find_spec("torch.distributions")
    assert spec.loader.create_module(spec) is TD
    assert _as_torch._Finder().find_spec("torch.distributions.constraints").loader.create_module(None) \
        is TD.constraints
