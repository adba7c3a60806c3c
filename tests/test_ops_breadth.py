"""Op breadth beyond what the op table checks: gradients at ties and kinks, named-tuple results,
ops with data-dependent output sizes, warnings, in-place twins, dtype conversion, the method
surface, and errors that must leave tensors unchanged.

The op table (``tests/op_table.py``, rows ``_breadth_*``) compares every op's values, dtypes,
gradients and node names with PyTorch and with finite differences; this file covers what a row
cannot express. Tests that need PyTorch take the ``torch`` fixture; the others run without it.
"""

import warnings

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad._api import extra_math, indexing, linalg as linalg_api, products, rearrange, reductions


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def grads_of(m, fn, *values, dtype="float32"):
    """``fn``'s output (as numpy) and the gradients of ``fn(...).sum()`` for each input."""
    inputs = [m.tensor(np.asarray(v, dtype), requires_grad=True) for v in values]
    out = fn(m, *inputs)
    out.sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in inputs]


# ====================================================================== gradients at kinks and ties

KINKS = {
    "fmax_tie_to_input": (lambda m, x, y: m.fmax(x, y), ([1.0, 2.0, 3.0], [1.0, 5.0, 3.0])),
    "fmin_nan_other": (lambda m, x, y: m.fmin(x, y), ([1.0, 2.0], [float("nan"), 1.0])),
    "median_ties_shared": (lambda m, x: x.median(), ([2.0, 2.0, 2.0, 3.0],)),
    "median_lower": (lambda m, x: m.median(x), ([1.0, 2.0, 3.0, 4.0],)),
    "nanmedian_skips_nan": (lambda m, x: x.nanmedian(), ([1.0, float("nan"), 3.0, 2.0],)),
    "topk_tie_first_index": (lambda m, x: x.topk(1).values, ([3.0, 1.0, 3.0],)),
    "aminmax_ties": (lambda m, x: m.stack(m.aminmax(x)), ([1.0, 3.0, 3.0, 1.0],)),
    "cummax_latest_index": (lambda m, x: x.cummax(0).values, ([1.0, 3.0, 3.0, 2.0],)),
    "cummin_latest_index": (lambda m, x: m.cummin(x, 0).values, ([3.0, 1.0, 1.0, 2.0],)),
    "copysign_at_zero": (lambda m, x: m.copysign(x, -1.0), ([0.0, 2.0, -1.0],)),
    "xlogy_zero_x": (lambda m, x, y: m.xlogy(x, y), ([0.0, 2.0], [0.0, 3.0])),
    "logit_eps_bounds": (lambda m, x: m.logit(x, eps=0.25), ([0.25, 0.75, 0.1, 0.5],)),
    "clamp_tensor_bounds": (lambda m, x, lo, hi: m.clamp(x, lo, hi),
                            ([0.0, 1.0, -1.0, 2.0, 0.5], [0.0, 0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0, 0.0])),
    "clamp_equal_bounds": (lambda m, x, lo, hi: m.clamp(x, lo, hi), ([-1.0, 2.0], [0.5, 0.5], [0.5, 0.5])),
    "clamp_min_tensor_tie": (lambda m, x, y: m.clamp_min(x, y), ([1.0, 2.0], [1.0, 3.0])),
    "nan_to_num_replaced": (lambda m, x: m.nan_to_num(x, posinf=1.0), ([float("nan"), float("inf"), 2.0],)),
    "hypot_at_zero": (lambda m, x, y: m.hypot(x, y), ([0.0, 3.0], [0.0, 4.0])),
    "cdist_zero_distance": (lambda m, x, y: m.cdist(x, y), ([[0.0, 1.0]], [[0.0, 1.0]])),
    "fmod_at_multiple": (lambda m, x, y: m.fmod(x, y), ([3.0, -4.5], [1.5, 1.5])),
    "sinc_at_zero": (lambda m, x: m.sinc(x), ([0.0, 0.5],)),
    "scatter_amax_ties": (lambda m, x, s: m.scatter_reduce(x, 0, m.tensor([0, 0, 2]), s, "amax"),
                          ([3.0, 2.0, 3.0], [3.0, 3.0, 1.0])),
    "scatter_prod_zero": (lambda m, x, s: m.scatter_reduce(x, 0, m.tensor([0, 0, 1]), s, "prod"),
                          ([2.0, 0.0, 1.0], [0.0, 3.0, 4.0])),
    "scatter_overwrites": (lambda m, x, s: m.scatter(x, 0, m.tensor([1]), s), ([1.0, 2.0], [5.0])),
    "quantile_between": (lambda m, x: m.quantile(x, 0.5), ([4.0, 1.0, 3.0, 2.0],)),
    "norm_nuc_at_rank1": (lambda m, x: m.linalg.matrix_norm(x, "nuc"), ([[1.0, 2.0], [2.0, 4.0]],)),
    "sort_stable_ties": (lambda m, x: x.sort(stable=True, descending=True).values * m.arange(4.0),
                         ([1.0, 2.0, 1.0, 2.0],)),
    "index_fill_tensor_value": (lambda m, x, v: x.index_fill(0, m.tensor([0, 2]), v), ([1.0, 2.0, 3.0], 5.0)),
}


@pytest.mark.parametrize("name", sorted(KINKS))
def test_gradient_at_kink_matches_torch(name, torch):
    fn, values = KINKS[name]
    out, grads = grads_of(tg, fn, *values)
    want_out, want_grads = grads_of(torch, fn, *values)
    np.testing.assert_allclose(out, want_out, rtol=1e-6, atol=1e-6, equal_nan=True)
    for got, want in zip(grads, want_grads):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True)


def test_median_ties_share_the_gradient_without_torch():
    _, (g,) = grads_of(tg, lambda m, x: x.median(), [2.0, 2.0, 2.0, 3.0])
    np.testing.assert_allclose(g, [1 / 3, 1 / 3, 1 / 3, 0.0], rtol=1e-6)


def test_topk_ties_go_to_the_first_index_without_torch():
    _, (g,) = grads_of(tg, lambda m, x: x.topk(1).values, [3.0, 1.0, 3.0])
    np.testing.assert_array_equal(g, [1.0, 0.0, 0.0])


def test_clamp_tensor_bounds_gradient_routing_without_torch():
    # x inside [lo, hi] -> x; below lo -> lo; above hi -> hi (bounds inclusive for x)
    x, lo, hi = ([0.0, 1.0, -1.0, 2.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0])
    _, (gx, glo, ghi) = grads_of(tg, lambda m, a, b, c: m.clamp(a, b, c), x, lo, hi)
    np.testing.assert_array_equal(gx, [1.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(glo, [0.0, 0.0, 1.0, 0.0])
    np.testing.assert_array_equal(ghi, [0.0, 0.0, 0.0, 1.0])


# ====================================================================== named tuples and their printing

NAMED = {
    "sort": lambda m, x: m.sort(x),
    "topk": lambda m, x: x.topk(2),
    "cummax": lambda m, x: m.cummax(x, 1),
    "cummin": lambda m, x: x.cummin(0),
    "aminmax": lambda m, x: m.aminmax(x, dim=0),
    "median": lambda m, x: x.median(1),
    "nanmedian": lambda m, x: m.nanmedian(x, 0),
    "mode": lambda m, x: m.mode(x),
    "linalg_slogdet": lambda m, x: m.linalg.slogdet(x[:, :2]),
    "linalg_qr": lambda m, x: m.linalg.qr(x),
    "linalg_eigh": lambda m, x: m.linalg.eigh(x[:, :2] @ x[:, :2].mT),
    "linalg_lstsq": lambda m, x: m.linalg.lstsq(x, x[:, :1]),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_tuple_fields_and_repr_match_torch(name, torch):
    values = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], np.float32)
    ours = NAMED[name](tg, tg.tensor(values))
    theirs = NAMED[name](torch, torch.tensor(values))
    assert type(ours).__name__ == type(theirs).__name__ == name
    for field in ours._fields:
        getattr(theirs, field)
    assert len(ours) == len(theirs)
    if name not in ("linalg_qr", "linalg_eigh", "linalg_lstsq"):  # last digits may differ
        assert repr(ours) == repr(theirs)


def test_slogdet_of_a_singular_matrix(torch):
    for m in (tg, torch):
        sign, logabs = m.linalg.slogdet(m.ones(2, 2))
        assert float(sign) == 0.0 and float(logabs) == -float("inf")


# ====================================================================== data-dependent output sizes

UNIQUE_CASES = {
    "plain": lambda m, x: m.unique(x),
    "inverse_counts": lambda m, x: m.unique(x, return_inverse=True, return_counts=True),
    "dim": lambda m, x: m.unique(x.reshape(4, 2), dim=0, return_inverse=True, return_counts=True),
    "consecutive": lambda m, x: m.unique_consecutive(x, return_inverse=True, return_counts=True),
    "consecutive_dim": lambda m, x: x.reshape(4, 2).unique_consecutive(dim=0),
    "masked_select_broadcast": lambda m, x: m.masked_select(x.reshape(2, 4)[:1], x.reshape(2, 4) > 1),
    "repeat_interleave_repeats_only": lambda m, x: m.repeat_interleave(m.tensor([2, 0, 1])),
    "repeat_interleave_tensor": lambda m, x: x.repeat_interleave(m.tensor([1, 2, 0, 1, 1, 0, 2, 1])),
    "nonzero_after_scatter": lambda m, x: m.nonzero(m.zeros(5).scatter(0, m.tensor([1, 3]), 1.0)),
    "bincount_minlength": lambda m, x: m.bincount(m.tensor([0, 3, 3]), minlength=6),
    "combinations_empty": lambda m, x: m.combinations(m.arange(3), 4),
}


@pytest.mark.parametrize("name", sorted(UNIQUE_CASES))
def test_host_sized_ops_match_torch(name, torch):
    values = np.array([2, 1, 2, 2, 3, 3, 1, 2])
    ours = UNIQUE_CASES[name](tg, tg.tensor(values))
    theirs = UNIQUE_CASES[name](torch, torch.tensor(values))
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for a, b in zip(ours, theirs, strict=True):
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_ops_with_index_checks_run_under_jax_jit_and_grad():
    """Host-side checks are skipped for traced values, so these ops compose with jax.jit."""
    jax = pytest.importorskip("jax")

    def f(x, i):
        t, idx = tg.from_jax(x), tg.from_jax(i)
        out = (t.gather(1, idx).sum() + t.index_select(0, idx[0]).sum() + t.take(idx).sum()
               + t.index_fill(1, idx[0], 0.0).sum() + t.scatter(1, idx, 1.0).sum() + tg.sort(t).values.sum()
               + tg.quantile(t, 0.5) + tg.median(t) + tg.cummax(t, 1).values.sum() + t.topk(2).values.sum()
               + tg.einsum("ij,kj->ik", t, t).sum() + tg.linalg.inv(t[:, :2] + 3 * tg.eye(2, dtype=t.dtype)).sum())
        return out.jax()

    x = jax.numpy.arange(6.0).reshape(2, 3) / 5
    i = jax.numpy.array([[0, 1], [2, 0]])
    np.testing.assert_allclose(jax.jit(f)(x, i), f(x, i), rtol=1e-12)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(x, i), jax.grad(f)(x, i), rtol=1e-12)


@pytest.mark.parametrize("fn", [lambda x: tg.masked_select(x, x > 0), lambda x: tg.unique(x),
                                lambda x: x.repeat_interleave(x.long()), lambda x: tg.bincount(x.long())])
def test_host_sized_ops_say_they_cannot_run_under_jit(fn):
    jax = pytest.importorskip("jax")
    with pytest.raises(RuntimeError, match="cannot be computed inside jax.jit"):
        jax.jit(lambda x: fn(tg.from_jax(x)).jax())(jax.numpy.ones(3))


# ====================================================================== warnings PyTorch gives

WARNING_CASES = {
    "meshgrid_without_indexing": lambda m: m.meshgrid(m.ones(2), m.ones(3)),
    "cross_without_dim": lambda m: m.cross(m.ones(2, 3), m.ones(2, 3)),
    "chain_matmul": lambda m: m.chain_matmul(m.ones(2, 2), m.ones(2, 2)),
    "scatter_reduce_with_tensor": lambda m: m.ones(2).scatter(0, m.tensor([0]), m.ones(1), reduce="add"),
}


@pytest.mark.parametrize("name", sorted(WARNING_CASES))
def test_deprecation_warnings_match_torch(name, torch):
    with pytest.warns(UserWarning) as ours:
        a = WARNING_CASES[name](tg)
    with pytest.warns(UserWarning) as theirs:
        b = WARNING_CASES[name](torch)
    assert str(ours[0].message).split(" (Triggered")[0] == str(theirs[0].message).split(" (Triggered")[0]
    a, b = (a, b) if isinstance(a, tuple) else ((a,), (b,))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_meshgrid_with_indexing_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, y = tg.meshgrid(tg.arange(3), tg.arange(2), indexing="xy")
    assert tuple(x.shape) == (2, 3) and tuple(y.shape) == (2, 3)


# ====================================================================== in-place twins

INPLACE = {
    "scatter_": lambda m, x, s: x.scatter_(1, m.tensor([[0], [2]]), s[:, :1]),
    "scatter_add_": lambda m, x, s: x.scatter_add_(0, m.tensor([[1, 0, 1]]), s[:1]),
    "scatter_reduce_": lambda m, x, s: x.scatter_reduce_(0, m.tensor([[1, 0, 1]]), s[:1], "amin"),
    "index_add_": lambda m, x, s: x.index_add_(1, m.tensor([2, 0]), s[:, :2], alpha=-1),
    "index_copy_": lambda m, x, s: x.index_copy_(0, m.tensor([1]), s[:1]),
    "index_fill_": lambda m, x, s: x.index_fill_(1, m.tensor([1]), -2.0),
    "masked_scatter_": lambda m, x, s: x.masked_scatter_(m.tensor([True, False, True]), s),
    "clamp_tensor_": lambda m, x, s: x.clamp_(min=s[0], max=s[1] + 1),
    "lerp_": lambda m, x, s: x.lerp_(s, 0.25),
    "fmod_": lambda m, x, s: x.fmod_(1.5),
    "hypot_": lambda m, x, s: x.hypot_(s),
    "copysign_": lambda m, x, s: x.copysign_(s),
    "xlogy_": lambda m, x, s: x.xlogy_(s.abs()),
    "nan_to_num_": lambda m, x, s: x.nan_to_num_(),
    "logit_": lambda m, x, s: x.mul_(0.2).add_(0.5).logit_(),
    "addcmul_": lambda m, x, s: x.addcmul_(s, s, value=0.5),
    "addcdiv_": lambda m, x, s: x.addcdiv_(s, s + 3, value=2),
    "tril_": lambda m, x, s: x.tril_(),
    "triu_": lambda m, x, s: x.triu_(1),
    "cumprod_": lambda m, x, s: x.cumprod_(1),
    "addmv_": lambda m, x, s: x[:, 0].addmv_(s, m.ones(3, dtype=m.float64)),
    "addr_": lambda m, x, s: x.addr_(s[0, :2], s[1], beta=0.5),
    "clamp_min_": lambda m, x, s: x.clamp_min_(0.0),
    "sgn_": lambda m, x, s: x.sgn_(),
    "deg2rad_": lambda m, x, s: x.deg2rad_(),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_twins_match_torch(name, torch):
    base = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    src = np.array([[1.0, 2.0, -3.0], [0.5, -0.5, 1.5]])
    results = []
    for m in (tg, torch):
        x0 = m.tensor(base, requires_grad=True)
        s = m.tensor(src, requires_grad=True)
        x = x0 * 1
        version = x._version
        out = INPLACE[name](m, x, s)
        assert x._version > version
        out.sum().backward()
        grads = [np.zeros(t.shape) if t.grad is None else t.grad.numpy(force=True) for t in (x0, s)]
        results.append((x.detach().numpy(), type(x.grad_fn).__name__, *grads))
    (a, fa, ga, sa), (b, fb, gb, sb) = results
    np.testing.assert_allclose(a, b, rtol=1e-12)
    assert fa == fb
    np.testing.assert_allclose(ga, gb, rtol=1e-12)
    np.testing.assert_allclose(sa, sb, rtol=1e-12)


def test_inplace_on_a_leaf_that_requires_grad_raises():
    x = tg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.scatter_(0, tg.tensor([0]), tg.zeros(1))


def test_float_power_inplace_needs_a_double(torch):
    for m in (tg, torch):
        with pytest.raises(RuntimeError):
            m.ones(2).float_power_(2)
        x = m.ones(2, dtype=m.float64)
        assert x.float_power_(2) is x


BAD_WRITES = {
    "scatter_out_of_bounds": lambda m, x: x.scatter_(0, m.tensor([3]), 1.0),
    "index_add_wrong_count": lambda m, x: x.index_add_(0, m.tensor([0, 1]), m.ones(1)),
    "index_copy_negative": lambda m, x: x.index_copy_(0, m.tensor([-1]), m.ones(1)),
    "masked_scatter_short_source": lambda m, x: x.masked_scatter_(m.tensor([True, True, True]), m.ones(2)),
    "index_fill_out_of_bounds": lambda m, x: x.index_fill_(0, m.tensor([5]), 0.0),
    "clamp_mixed_bounds": lambda m, x: x.clamp_(min=m.zeros(3), max=1.0),
    "lerp_other_dtype": lambda m, x: x.lerp_(m.ones(3, dtype=m.float64), 0.5),
}


@pytest.mark.parametrize("name", sorted(BAD_WRITES))
def test_rejected_inplace_writes_raise_like_torch_and_change_nothing(name, torch):
    errors = []
    for m in (tg, torch):
        x = m.tensor([1.0, 2.0, 3.0])
        version = x._version
        with pytest.raises(Exception) as info:
            BAD_WRITES[name](m, x)
        errors.append(info.type)
        if m is tg:  # (PyTorch may have written part of it: masked_scatter_ does)
            np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
            assert x._version == version
    ours, theirs = errors
    assert [c for c in ours.__mro__ if c.__module__ == "builtins"][0] is \
        [c for c in theirs.__mro__ if c.__module__ == "builtins"][0]


# ====================================================================== linear algebra errors

def test_linalg_errors_are_linalg_error_and_runtime_error(torch):
    with pytest.raises(tg.linalg.LinAlgError):
        tg.linalg.inv(tg.ones(2, 2))
    with pytest.raises(RuntimeError):
        tg.linalg.cholesky(-tg.eye(2))
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.cholesky(-torch.eye(2))
    assert issubclass(tg.linalg.LinAlgError, RuntimeError)


def test_linalg_matches_numpy_without_torch():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    spd = a @ a.T + np.eye(3)
    t = tg.tensor(spd)
    np.testing.assert_allclose(tg.linalg.inv(t).numpy(), np.linalg.inv(spd), rtol=1e-10)
    np.testing.assert_allclose(tg.linalg.det(t).item(), np.linalg.det(spd), rtol=1e-10)
    np.testing.assert_allclose(tg.linalg.cholesky(t).numpy(), np.linalg.cholesky(spd), rtol=1e-10)
    np.testing.assert_allclose(tg.linalg.eigvalsh(t).numpy(), np.linalg.eigvalsh(spd), rtol=1e-10)
    np.testing.assert_allclose(tg.linalg.matrix_power(t, 3).numpy(), np.linalg.matrix_power(spd, 3), rtol=1e-10)
    np.testing.assert_allclose(tg.einsum("ij,jk->ik", t, t).numpy(), spd @ spd, rtol=1e-12)
    np.testing.assert_allclose(tg.kron(t, t[:2, :2]).numpy(), np.kron(spd, spd[:2, :2]), rtol=1e-12)


def test_svd_of_a_wide_matrix_reconstructs(torch):
    # LAPACK's sign choices for wide matrices differ between the libraries: compare invariants
    a = np.random.default_rng(1).standard_normal((2, 4))
    u, s, vh = tg.linalg.svd(tg.tensor(a), full_matrices=False)
    np.testing.assert_allclose((u * s) @ vh, a, atol=1e-12)
    np.testing.assert_allclose(s.numpy(), torch.linalg.svdvals(torch.tensor(a)).numpy(), rtol=1e-12)
    x = tg.tensor(a, requires_grad=True)
    xt = torch.tensor(a, requires_grad=True)
    tg.linalg.svdvals(x).sum().backward()
    torch.linalg.svdvals(xt).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-10)


def test_svd_full_matrices_gradient_ignores_the_extra_vectors(torch):
    a = np.random.default_rng(2).standard_normal((3, 2))
    results = []
    for m in (tg, torch):
        x = m.tensor(a, requires_grad=True)
        u, s, vh = m.linalg.svd(x, full_matrices=True)
        (u[:, :2].abs().sum() + s.sum() + vh.abs().sum()).backward()
        results.append(x.grad.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9)


# ====================================================================== dtype conversion and promotion

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128")


def test_promote_types_and_can_cast_match_torch_for_every_pair(torch):
    for a in DTYPES:
        for b in DTYPES:
            ta, tb = getattr(torch, a), getattr(torch, b)
            ga, gb = getattr(tg, a), getattr(tg, b)
            assert repr(tg.promote_types(ga, gb)) == repr(torch.promote_types(ta, tb)), (a, b)
            assert tg.can_cast(ga, gb) == torch.can_cast(ta, tb), (a, b)


@pytest.mark.parametrize("bad", [lambda m: m.promote_types(m.int32, 5), lambda m: m.can_cast("x", m.int32)])
def test_dtype_functions_reject_non_dtypes_with_type_error(bad):
    with pytest.raises(TypeError):
        bad(tg)


CONVERSIONS = {
    "to_other": lambda m, x: x.to(m.ones(1, dtype=m.float64)),
    "to_device_dtype": lambda m, x: x.to("cpu", m.float16),
    "to_copy_same_dtype": lambda m, x: x.to(m.float32, copy=True),
    "to_keyword": lambda m, x: x.to(dtype=m.int32),
    "to_python_type": lambda m, x: x.to(float),
    "to_memory_format": lambda m, x: x.to(m.float64, memory_format=m.preserve_format),
    "type_string": lambda m, x: x.type("torch.DoubleTensor"),
    "type_dtype": lambda m, x: x.type(m.int16),
    "type_legacy_class": lambda m, x: x.type(m.LongTensor),
    "type_as": lambda m, x: x.type_as(m.ones(1, dtype=m.bfloat16)),
    "float": lambda m, x: x.double().float(),
    "double": lambda m, x: x.double(),
    "half": lambda m, x: x.half(),
    "bfloat16": lambda m, x: x.bfloat16(),
    "long": lambda m, x: x.long(),
    "int": lambda m, x: x.int(),
    "short": lambda m, x: x.short(),
    "bool": lambda m, x: x.bool(),
}


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_conversions_match_torch(name, torch):
    values = np.array([1.5, -2.25, 0.0], np.float32)
    outs = []
    for m in (tg, torch):
        x = m.tensor(values, requires_grad=True)
        out = CONVERSIONS[name](m, x)
        fn = out.grad_fn
        outs.append((str(out.dtype), out.detach().float().numpy(), None if fn is None else type(fn).__name__,
                     out.requires_grad))
    (da, va, fa, ra), (db, vb, fb, rb) = outs
    assert (da, fa, ra) == (db, fb, rb)
    np.testing.assert_array_equal(va, vb)


def test_type_without_arguments_names_the_legacy_class(torch):
    for d in ("float32", "int64", "bool", "float16"):
        assert tg.ones(1, dtype=getattr(tg, d)).type() == torch.ones(1, dtype=getattr(torch, d)).type()


def test_result_type_matches_torch(torch):
    cases = [
        lambda m: m.result_type(m.ones(2, dtype=m.int32), 2.5),
        lambda m: m.result_type(m.tensor(1.0, dtype=m.float64), m.ones(2)),
        lambda m: m.result_type(m.ones(2, dtype=m.int8), m.ones(2, dtype=m.uint8)),
        lambda m: m.result_type(True, m.ones(2, dtype=m.bool)),
        lambda m: m.result_type(m.ones(2, dtype=m.bool), 3),
        lambda m: m.result_type(m.ones(2, dtype=m.float16), m.tensor(1, dtype=m.int64)),
    ]
    for case in cases:
        assert repr(case(tg)) == repr(case(torch))


def test_memory_formats_exist_and_print(torch):
    for name in ("preserve_format", "contiguous_format", "channels_last", "channels_last_3d"):
        assert repr(getattr(tg, name)) == repr(getattr(torch, name))


# ====================================================================== the method and function surface

FUNCTION_MODULES = (extra_math, reductions, indexing, rearrange, products, linalg_api)


def test_every_function_is_exported_and_a_method_where_torch_has_one(torch):
    missing = []
    for module in FUNCTION_MODULES:
        for name in module.__all__:
            assert getattr(tg, name) is not None
            if hasattr(torch, name) and hasattr(torch.Tensor, name) and not hasattr(tg.Tensor, name):
                missing.append(name)
    assert not missing, f"Tensor methods PyTorch has but tensorgrad lacks: {missing}"


def test_inplace_twins_exist_where_torch_has_them(torch):
    missing = []
    for module in FUNCTION_MODULES:
        for name in list(module.__all__) + list(module.METHODS):
            twin = name + "_"
            if hasattr(torch.Tensor, twin) and not hasattr(tg.Tensor, twin):
                missing.append(twin)
    assert not missing, f"in-place twins PyTorch has but tensorgrad lacks: {missing}"


def test_linalg_namespace_covers_the_issue(torch):
    for name in ("inv", "det", "slogdet", "solve", "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh", "pinv",
                 "lstsq", "matrix_rank", "norm", "vector_norm", "matrix_norm", "matrix_power", "matrix_exp",
                 "multi_dot", "cross", "solve_triangular", "vecdot", "diagonal", "LinAlgError"):
        assert hasattr(tg.linalg, name) and hasattr(torch.linalg, name), name


# ====================================================================== small exact cases

def test_broadcast_shapes_and_index_lists(torch):
    assert tg.broadcast_shapes((2, 1), (3,), 1) == torch.broadcast_shapes((2, 1), (3,), 1)
    with pytest.raises(RuntimeError):
        tg.broadcast_shapes((2, 1), (3, 3))
    for args in ((3, 3), (3, 4, -1), (4, 3, 2), (0, 2)):
        np.testing.assert_array_equal(tg.tril_indices(*args).numpy(), torch.tril_indices(*args).numpy())
        np.testing.assert_array_equal(tg.triu_indices(*args).numpy(), torch.triu_indices(*args).numpy())


def test_vecdot_and_multi_dot_without_torch():
    x = tg.tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(tg.linalg.vecdot(x, x).numpy(), [5.0, 25.0])
    np.testing.assert_allclose(tg.linalg.multi_dot([x, x, x]).numpy(), np.linalg.matrix_power(x.numpy(), 3))


def test_searchsorted_side_and_sorter(torch):
    seq = [3.0, 1.0, 2.0, 5.0]
    sorter = [1, 2, 0, 3]
    for side in ("left", "right"):
        got = tg.searchsorted(tg.tensor(seq), tg.tensor([2.0, 4.0]), side=side, sorter=tg.tensor(sorter))
        want = torch.searchsorted(torch.tensor(seq), torch.tensor([2.0, 4.0]), side=side, sorter=torch.tensor(sorter))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert tg.searchsorted(tg.tensor([1.0, 2.0]), 1.5).item() == 1
