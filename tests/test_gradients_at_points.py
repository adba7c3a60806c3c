"""Values and gradients at ordinary points where a naive derivative gives NaN or a wrong value
(issue #11), compared with PyTorch: constant values under ``std``, ``atan2`` at the origin,
the unselected input of ``maximum``/``minimum`` under a NaN incoming gradient, ``i0`` at 0,
the gamma family for negative arguments and at its poles, ``logit`` at 0 and 1, the norms of
every order at zero vectors and zero entries; and PyTorch's rules for ``prod`` over the dim of a
0-d tensor, ``cat`` of 0-d tensors, ``pinv(hermitian=True)`` (the lower triangle), ``lstsq``'s
residuals per driver and the norms without an identity on empty input.

The float32 gradients at these points, as literals, are kink rows of the op table
(``POINT_KINKS`` in ``tests/op_table.py``); here the cases run in both dtypes against PyTorch.
"""

import numpy as np
import pytest

import tensorgrad

from oracle import _oracle, torch  # noqa: F401  (the autouse fixture that skips without PyTorch)

INF = float("inf")
NAN = float("nan")
# PyTorch's float64 trigamma is good to about 2e-10 (a short asymptotic series)
TOL = {"float64": (1e-9, 1e-12), "float32": (2e-6, 1e-7)}


def _run(m, fn, inputs, dtype, upstream):
    """``fn``'s output and the gradients of its inputs for the incoming gradient ``upstream``
    (ones when None), as numpy arrays (None where no gradient flows)."""
    xs = [m.tensor(v, dtype=getattr(m, dtype), requires_grad=True) for v in inputs]
    out = fn(m, *xs)
    ct = m.ones_like(out) if upstream is None else m.tensor(upstream, dtype=out.dtype)
    grads = m.autograd.grad(out, xs, ct, allow_unused=True)
    return (out.detach().numpy(), str(out.dtype).split(".")[-1],
            [None if g is None else g.detach().numpy() for g in grads])


def _assert_same(ours, theirs, dtype, where):
    rtol, atol = TOL[dtype]
    (out, out_dtype, grads), (want, want_dtype, want_grads) = ours, theirs
    assert out_dtype == want_dtype, f"{where}: dtype {out_dtype}, PyTorch {want_dtype}"
    np.testing.assert_allclose(out, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{where}: value")
    for i, (g, w) in enumerate(zip(grads, want_grads)):
        assert (g is None) == (w is None), f"{where}: gradient {i} is {g}, PyTorch's {w}"
        if g is not None:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{where}: gradient {i}")


def _case(name, fn, *inputs, upstream=None):
    return pytest.param(fn, inputs, upstream, id=name)


_NEGATIVE = [-8.3, -0.5, -1.7, -2.2, -13.185, -0.999, -3.001, 0.3, 3.1]
_POLES = [0.0, -0.0, -1.0, -2.0, -7.0]
_ZEROS = [0.0, 0.0, 0.0]
_ZERO_ENTRY = [0.0, 3.0, -4.0]
_ORDS = [0.5, 1, 2, 3, INF, -INF, -1, -2]

POINTS = [
    _case("std_constant", lambda m, x: x.std(), [2.0, 2.0, 2.0]),
    _case("std_dim_constant_row", lambda m, x: x.std(1), [[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]]),
    _case("std_correction0_constant", lambda m, x: x.std(correction=0), [5.0, 5.0]),
    _case("std_one_value_correction0", lambda m, x: x.std(correction=0), [5.0]),
    _case("var_constant", lambda m, x: x.var(), [2.0, 2.0, 2.0]),
    _case("std_mean_constant", lambda m, x: m.stack(m.std_mean(x)), [2.0, 2.0, 2.0]),
    _case("var_mean_constant", lambda m, x: m.stack(m.var_mean(x)), [2.0, 2.0, 2.0]),
    _case("std_constant_nan_upstream", lambda m, x: x.std(0), [[2.0, 1.0], [2.0, 3.0]], upstream=[NAN, 1.0]),
    _case("atan2_at_origin", lambda m, y, x: m.atan2(y, x), [0.0, 1.0, -0.0], [0.0, 1.0, 2.0]),
    _case("i0_at_0", lambda m, x: m.i0(x), [0.0, 1.0, -2.0]),
    _case("special_i0_at_0", lambda m, x: m.special.i0(x), [0.0, 0.5]),
    _case("logit_at_0_and_1", lambda m, x: m.logit(x), [0.0, 1.0, 0.5, 0.25]),
    _case("logit_eps_at_0_and_1", lambda m, x: m.logit(x, eps=1e-3), [0.0, 1.0, 0.5]),
    _case("lgamma_negative", lambda m, x: m.lgamma(x), _NEGATIVE),
    _case("digamma_negative", lambda m, x: m.digamma(x), _NEGATIVE),
    _case("lgamma_at_poles", lambda m, x: m.lgamma(x), _POLES),
    _case("digamma_at_poles", lambda m, x: m.digamma(x), _POLES),
    *[_case(f"polygamma_{n}_negative", lambda m, x, n=n: m.polygamma(n, x), _NEGATIVE) for n in range(5)],
    *[_case(f"polygamma_{n}_at_poles", lambda m, x, n=n: m.polygamma(n, x), _POLES) for n in range(1, 4)],
    _case("mvlgamma", lambda m, x: m.mvlgamma(x, 2), [0.75, 2.5]),
    *[_case(f"{name}_nan_upstream", lambda m, x, y, name=name: getattr(m, name)(x, y), [1.0, 3.0, 2.0],
            [2.0, 2.0, 2.0], upstream=[NAN, 1.0, NAN])
      for name in ("maximum", "minimum", "fmax", "fmin", "max", "min")],
    _case("maximum_nan_input", lambda m, x, y: m.maximum(x, y), [NAN, 1.0], [1.0, NAN]),
    _case("clamp_nan_upstream", lambda m, x: m.clamp(x, 0.0, 1.0), [-1.0, 3.0, 0.5], upstream=[NAN, NAN, 1.0]),
    # a zero row and a row with a zero entry, reduced along dim 1
    *[_case(f"vector_norm_{o}", lambda m, x, o=o: m.linalg.vector_norm(x, o, dim=1), [_ZERO_ENTRY, _ZEROS])
      for o in _ORDS],
    *[_case(f"norm_{o}_keepdim", lambda m, x, o=o: m.norm(x, o, dim=1, keepdim=True), [_ZERO_ENTRY, _ZEROS])
      for o in (0.5, 1, INF)],
    _case("norm_fro_all", lambda m, x: m.norm(x), [_ZEROS]),
    *[_case(f"linalg_norm_{o}", lambda m, x, o=o: m.linalg.norm(x, o), _ZEROS) for o in (-1, 3)],
    *[_case(f"dist_{o}_equal_entries", lambda m, x, y, o=o: m.dist(x, y, o), [0.0, 3.0, 1.0], [0.0, 2.0, 1.0])
      for o in (0.5, 1, 2, INF)],
    # a zero matrix and one with a zero column
    *[_case(f"matrix_norm_{o}", lambda m, x, o=o: m.linalg.matrix_norm(x, o),
            [[[0.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [0.0, 2.0]]]) for o in ("fro", "nuc", 1, -1, 2, -2, INF, -INF)],
]


@pytest.mark.parametrize("fn, inputs, upstream", POINTS)
def test_value_and_gradient_at_point_match_torch(fn, inputs, upstream):
    # float64 here; the float32 gradients at the main points are the op table's POINT_KINKS
    _assert_same(_run(tensorgrad, fn, inputs, "float64", upstream), _run(torch, fn, inputs, "float64", upstream),
                 "float64", "tensorgrad vs PyTorch")


def test_polygamma_values_for_negative_arguments_match_torch():
    # a dense sweep (values only): between the poles, near them, far from 0
    x = np.concatenate([np.linspace(-30.0, 5.0, 701) + 1e-3, -np.arange(12.0) - 1e-3, -np.arange(12.0) + 1e-3])
    for n in range(6):
        ours = tensorgrad.polygamma(n, tensorgrad.tensor(x)).numpy()
        theirs = torch.polygamma(n, torch.tensor(x)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, err_msg=f"polygamma({n}, x)")


# ---------------------------------------------------------------- prod and cat of 0-d tensors

@pytest.mark.parametrize("dim, keepdim", [(0, False), (-1, False), (0, True)])
def test_prod_over_the_dim_of_a_0d_tensor(dim, keepdim):
    results = []
    for m in (tensorgrad, torch):
        x = m.tensor(3.0, requires_grad=True)
        y = x.prod(dim, keepdim=keepdim)
        y.backward()
        results.append((y.item(), tuple(y.shape), type(y.grad_fn).__name__, x.grad.item(),
                        str(m.tensor(3).prod(dim).dtype).split(".")[-1]))
    assert results[0] == results[1]


@pytest.mark.parametrize("tensors", [
    lambda m: [m.tensor(1.0), m.tensor(2.0)],
    lambda m: [m.tensor([1.0]), m.tensor(2.0)],
    lambda m: [m.zeros(0), m.tensor([1.0]), m.tensor(2.0)],
], ids=["both", "second", "third"])
def test_cat_of_0d_tensors_raises_torch_error(tensors):
    with pytest.raises(RuntimeError) as theirs:
        torch.cat(tensors(torch))
    with pytest.raises(RuntimeError) as ours:
        tensorgrad.cat(tensors(tensorgrad))
    assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------- pinv and lstsq

@pytest.mark.parametrize("kwargs", [{"hermitian": True}, {"hermitian": True, "atol": 0.5}, {}, {"rtol": 0.3}],
                         ids=["hermitian", "hermitian_atol", "general", "general_rtol"])
def test_pinv_reads_the_lower_triangle_when_hermitian(kwargs):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 3))
    a[0, :, 2] = a[0, :, 1]     # rank deficient
    ct = rng.standard_normal((2, 3, 3))
    results = []
    for m in (tensorgrad, torch):
        x = m.tensor(a, requires_grad=True)
        p = m.linalg.pinv(x, **kwargs)
        p.backward(m.tensor(ct))
        results.append((p.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-9, atol=1e-12)


def _lstsq_inputs():
    rng = np.random.default_rng(1)
    tall = rng.standard_normal((5, 3))
    deficient = tall.copy()
    deficient[:, 2] = deficient[:, 1]
    b = rng.standard_normal((5, 2))
    return {"tall": (tall, b), "tall_deficient": (deficient, b), "wide": (tall.T[:, :4], b[:3]),
            "batch_mixed_rank": (np.stack([tall, deficient]), np.stack([b, b])), "vector_rhs": (tall, b[:, 0])}


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss", None])
def test_lstsq_residuals_rank_and_singular_values_per_driver(driver):
    for case, (a, b) in _lstsq_inputs().items():
        results = []
        for m in (tensorgrad, torch):
            r = m.linalg.lstsq(m.tensor(a), m.tensor(b), driver=driver)
            results.append([np.asarray(t.numpy()) for t in (r.rank, r.singular_values)]
                           + [np.asarray(tuple(r.residuals.shape))])
            if driver != "gels" or not ("deficient" in case or "mixed" in case):
                # gels assumes full rank: its solution for a deficient A is garbage, in PyTorch too,
                # and so are the residuals computed from it (they follow the QR's rounding of the
                # zero pivot, which LAPACK's and XLA's factorizations do not share)
                results[-1] += [np.asarray(r.residuals.numpy()), r.solution.numpy()]
        for name, ours, theirs in zip(("rank", "singular_values", "residuals shape", "residuals", "solution"),
                                      *results):
            assert ours.shape == theirs.shape, f"{case} {name}: shape {ours.shape}, PyTorch {theirs.shape}"
            np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12, err_msg=f"{case} {name}")


def test_lstsq_residuals_gradient_matches_torch():
    a, b = _lstsq_inputs()["tall"]
    results = []
    for m in (tensorgrad, torch):
        x, y = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
        r = m.linalg.lstsq(x, y, driver="gelsd")
        (r.solution.sum() + r.residuals.sum()).backward()
        results.append((x.grad.numpy(), y.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- norms without an identity

@pytest.mark.parametrize("call", [
    lambda m: m.linalg.vector_norm(m.zeros(0), INF),
    lambda m: m.linalg.vector_norm(m.zeros(2, 0), -1, dim=1),
    lambda m: m.linalg.vector_norm(m.zeros(3, 0, 2), -1.5, dim=(2, -2)),
    lambda m: m.norm(m.zeros(2, 0), INF, dim=(0, 1)),
    lambda m: m.dist(m.zeros(0), m.zeros(0), -INF),
    lambda m: m.linalg.norm(m.zeros(0), -2),
], ids=["inf_empty", "neg1_empty_dim", "neg_half_dims", "norm_inf_dims", "dist_neg_inf", "linalg_norm"])
def test_norm_without_identity_on_empty_raises_torch_error(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(tensorgrad)
    assert str(ours.value) == str(theirs.value)


def test_norms_over_nonempty_dims_of_empty_tensors_match_torch():
    for o in (INF, -INF, -1, 0.5, 2):
        ours = tensorgrad.linalg.vector_norm(tensorgrad.zeros(2, 0), o, dim=0)
        theirs = torch.linalg.vector_norm(torch.zeros(2, 0), o, dim=0)
        assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(tensorgrad.linalg.vector_norm(tensorgrad.zeros(2, 0), 0.5, dim=1).numpy(),
                                  torch.linalg.vector_norm(torch.zeros(2, 0), 0.5, dim=1).numpy())


# ---------------------------------------------------------------- ops without a derivative

def test_heaviside_of_an_input_that_requires_grad_raises_at_backward_as_torch():
    outcomes = []
    for m in (tensorgrad, torch):
        x = m.tensor([0.7, -1.3, 0.0], requires_grad=True)
        h = m.heaviside(x, m.tensor(0.5))
        with pytest.raises(RuntimeError) as error:
            (x * h).sum().backward()
        outcomes.append((h.requires_grad, type(h.grad_fn).__name__, h.tolist(), str(error.value)))
    assert outcomes[0] == outcomes[1]
