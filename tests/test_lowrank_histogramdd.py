"""``torch.histogramdd``, ``torch.svd_lowrank`` and ``torch.pca_lowrank`` against PyTorch.

histogramdd is deterministic: values, dtypes, shapes and the errors (type and message) are
PyTorch's. The low-rank SVDs draw a random projection from each library's own generator, so
their values are compared where they do not depend on it: for a matrix of rank at most ``q``
the singular values are ``linalg.svdvals``'s and ``U diag(S) V^H`` is the matrix; shapes,
dtypes, ``grad_fn`` names and errors are PyTorch's."""

import numpy as np
import pytest

import tensorgrad as tg
from oracle import torch, _oracle  # noqa: F401


def _run(fn, lib):
    try:
        return fn(lib), None
    except Exception as e:  # noqa: BLE001 (compared with PyTorch's)
        return None, e


def _same_tensor(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    a = (ours.float() if ours.dtype in (tg.float16, tg.bfloat16) else ours).detach().numpy()
    b = (theirs.float() if theirs.dtype in (torch.float16, torch.bfloat16) else theirs).detach().numpy()
    np.testing.assert_array_equal(a, b)


def _same_errors(fn):
    ours, ours_error = _run(fn, tg)
    theirs, theirs_error = _run(fn, torch)
    assert (ours_error is None) == (theirs_error is None), (ours_error, theirs_error)
    if theirs_error is not None:
        assert type(ours_error) is type(theirs_error), (ours_error, theirs_error)
        assert str(ours_error) == str(theirs_error)
    return ours, theirs


# ====================================================================== histogramdd

# 16 points: random ones, and ones on the edges of [0, 1] split in 3 (the left edge of a bin,
# the last edge), outside, NaN; most cases bin them 3 x 3, so that they share one compiled kernel
_POINTS = np.concatenate([
    np.random.default_rng(0).random((8, 2)),
    [[0.0, 0.0], [1 / 3, 2 / 3], [1.0, 1.0], [-0.1, 0.5], [0.5, 1.5], [np.nan, 0.5], [2 / 3, 0.25], [0.5, 1.0]],
]).astype(np.float32)
_CLEAN = np.nan_to_num(_POINTS, nan=0.2)     # for the bins spanning the data's extrema
_WEIGHT = np.linspace(0.5, 2.0, 16, dtype=np.float32)


def _x(m, a=_POINTS, dtype=None):
    t = m.tensor(a)
    return t if dtype is None else t.to(getattr(m, dtype))


def _e(m, *values, dtype="float32"):
    return m.tensor(values, dtype=getattr(m, dtype))


def _thirds(m, dtype="float32"):
    return _e(m, 0, 1 / 3, 2 / 3, 1, dtype=dtype)


VALUE_CASES = {
    "int": lambda m: m.histogramdd(_x(m, _CLEAN), 3),
    "ints_bool_second": lambda m: m.histogramdd(_x(m, _CLEAN), (5, True)),
    "numpy_int": lambda m: m.histogramdd(_x(m, _CLEAN), np.int64(3)),
    "range": lambda m: m.histogramdd(_x(m), [3, 3], range=[0.0, 1.0, 0.0, 1.0]),
    "range_positional": lambda m: m.histogramdd(_x(m), (3, 3), (0, 1, 0.25, 0.75)),
    "range_empty_widened": lambda m: m.histogramdd(_x(m), 3, range=(0.5, 0.5, 0, 1)),
    "edges": lambda m: m.histogramdd(_x(m), [_thirds(m), _e(m, 0, 0.25, 0.5, 1)]),
    "edges_range_ignored": lambda m: m.histogramdd(_x(m), [_thirds(m), _thirds(m)], range=[5.0, 6.0]),
    "edges_repeated": lambda m: m.histogramdd(_x(m), [_e(m, 0, 0.5, 0.5, 1), _e(m, 0, 1, 1, 1)]),
    "edges_unsorted": lambda m: m.histogramdd(_x(m), [_e(m, 0, 2, 0.3, 1), _e(m, 0, 0.5, 0.2, 1)]),
    "edges_nan": lambda m: m.histogramdd(_x(m), [_thirds(m), _e(m, np.nan, 0.5, 0.6, 1)]),
    "weight": lambda m: m.histogramdd(_x(m, _CLEAN), 3, weight=_x(m, _WEIGHT)),
    "weight_density": lambda m: m.histogramdd(_x(m, _CLEAN), 3, weight=_x(m, _WEIGHT), density=True),
    "density": lambda m: m.histogramdd(_x(m), [_thirds(m), _e(m, 0, 0.25, 0.5, 1)], density=True),
    "density_zero_weight": lambda m: m.histogramdd(_x(m, _CLEAN), 3, weight=m.zeros(16), density=True),
    "double": lambda m: m.histogramdd(_x(m, _CLEAN, dtype="float64"), 3, weight=_x(m, _WEIGHT, "float64"),
                                      density=True),
    "half_range": lambda m: m.histogramdd(_x(m, dtype="float16"), 3, range=[0, 1, 0, 1]),
    "bfloat16_edges": lambda m: m.histogramdd(_x(m, dtype="bfloat16"), [_thirds(m, "bfloat16")] * 2),
    "batched_input_3d": lambda m: m.histogramdd(_x(m, _CLEAN.reshape(2, 4, 4)), (2, 2, 3, 2)),
    "batched_weight": lambda m: m.histogramdd(_x(m, _CLEAN.reshape(4, 4, 2)), 3,
                                              weight=_x(m, _WEIGHT.reshape(4, 4))),
    "one_dim": lambda m: m.histogramdd(_x(m, _CLEAN[:, :1]), [5]),
    "scalar_weight": lambda m: m.histogramdd(_x(m, _CLEAN[:1]), 3, weight=m.tensor(2.0)),
    "empty_points": lambda m: m.histogramdd(m.zeros(0, 2), 3),
    "no_dims": lambda m: m.histogramdd(m.zeros(3, 0), []),
    "no_dims_density": lambda m: m.histogramdd(m.zeros(3, 0), [], density=True),
    "constant": lambda m: m.histogramdd(m.full((16, 2), 0.5), 3),
    "requires_grad": lambda m: m.histogramdd(_x(m, _CLEAN).requires_grad_(), 3,
                                             weight=m.ones(16, requires_grad=True)),
}


@pytest.mark.parametrize("case", VALUE_CASES, ids=list(VALUE_CASES))
def test_histogramdd_values_match_pytorch(case):
    ours, theirs = _same_errors(VALUE_CASES[case])
    assert type(ours).__name__ == type(theirs).__name__ == "histogramdd"
    assert ours._fields == ("hist", "bin_edges") and (theirs.hist, theirs.bin_edges) == tuple(theirs)
    assert isinstance(ours.bin_edges, tuple) and len(ours.bin_edges) == len(theirs.bin_edges)
    assert not ours.hist.requires_grad
    _same_tensor(ours.hist, theirs.hist)
    for a, b in zip(ours.bin_edges, theirs.bin_edges):
        _same_tensor(a, b)
    assert repr(ours).startswith("torch.return_types.histogramdd(\nhist=")


def test_histogramdd_returns_the_edge_tensors_given():
    edges = [_thirds(tg), _thirds(tg)]
    result = tg.histogramdd(_x(tg), edges)
    assert all(a is b for a, b in zip(result.bin_edges, edges))


ERROR_CASES = {
    "bins_float": lambda m: m.histogramdd(_x(m), 3.0),
    "bins_bool": lambda m: m.histogramdd(_x(m), True),
    "bins_str": lambda m: m.histogramdd(_x(m), "ab"),
    "bins_tensor": lambda m: m.histogramdd(_x(m), m.tensor([3, 3])),
    "bins_list_float_first": lambda m: m.histogramdd(_x(m), [3.0, 2]),
    "bins_list_float_second": lambda m: m.histogramdd(_x(m), [3, 2.0]),
    "bins_list_bool_first": lambda m: m.histogramdd(_x(m), [True, 3]),
    "bins_list_int_after_tensor": lambda m: m.histogramdd(_x(m), [_e(m, 0, 1), 2]),
    "input_list": lambda m: m.histogramdd([1.0, 2.0], 3),
    "range_str": lambda m: m.histogramdd(_x(m), (3, 4), range=[0, 1, 0, "a"]),
    "range_float": lambda m: m.histogramdd(_x(m), 3, range=0.5),
    "range_array": lambda m: m.histogramdd(_x(m), 3, range=np.array([0, 1, 0, 1.0])),
    "weight_list": lambda m: m.histogramdd(_x(m), 3, weight=[1.0] * 16),
    "density_int": lambda m: m.histogramdd(_x(m), 3, density=1),
    "input_1d": lambda m: m.histogramdd(_x(m, _POINTS[:, 0]), 3),
    "input_1d_edges": lambda m: m.histogramdd(_x(m, _POINTS[:, 0]), [_e(m, 0, 1)]),
    "input_0d": lambda m: m.histogramdd(m.tensor(1.0), 3),
    "input_0d_ints": lambda m: m.histogramdd(m.tensor(1.0), [3]),
    "bins_count_mismatch": lambda m: m.histogramdd(_x(m), [3]),
    "edges_count_mismatch": lambda m: m.histogramdd(_x(m), [_e(m, 0, 1)]),
    "range_length": lambda m: m.histogramdd(_x(m), (3, 4), range=[0, 1]),
    "range_before_bins_count": lambda m: m.histogramdd(_x(m), [3, 3, 3], range=[0, 1, 0]),
    "range_reversed": lambda m: m.histogramdd(_x(m), (3, 4), range=[1, 0, 0, 1]),
    "range_infinite": lambda m: m.histogramdd(_x(m), (3, 4), range=[0, float("inf"), 0, 1]),
    "range_nan": lambda m: m.histogramdd(_x(m), (3, 4), range=[0, 1, 0, float("nan")]),
    "data_nan": lambda m: m.histogramdd(_x(m), 3),
    "data_inf": lambda m: m.histogramdd(_x(m, np.array([[np.inf, 1], [0, 0]], np.float32)), 3),
    "zero_bins": lambda m: m.histogramdd(_x(m), (3, 0)),
    "minus_one_bins": lambda m: m.histogramdd(_x(m), (3, -1)),
    "negative_bins": lambda m: m.histogramdd(_x(m), (3, -2)),
    "weight_shape": lambda m: m.histogramdd(_x(m), (3, 4), weight=m.ones(16, 1)),
    "weight_scalar_shape": lambda m: m.histogramdd(_x(m), 3, weight=m.tensor(1.0)),
    "weight_dtype": lambda m: m.histogramdd(_x(m), (3, 4), weight=m.ones(16).double()),
    "weight_dtype_before_shape": lambda m: m.histogramdd(_x(m), (3, 4), weight=m.ones(3).long()),
    "weight_after_range": lambda m: m.histogramdd(_x(m), (3, 4), range=[1, 0, 0, 1], weight=m.ones(3)),
    "weight_before_zero_bins": lambda m: m.histogramdd(_x(m), (3, 0), range=[0, 1, 0, 1], weight=m.ones(3).int()),
    "edges_dtype": lambda m: m.histogramdd(_x(m), [_e(m, 0, 1), _e(m, 0, 1, dtype="float64")]),
    "edges_dtype_long": lambda m: m.histogramdd(_x(m, dtype="int32"), [_e(m, 0, 1, dtype="int64")] * 2),
    "edges_2d": lambda m: m.histogramdd(_x(m), [_e(m, 0, 1), m.zeros(2, 2)]),
    "edges_empty": lambda m: m.histogramdd(_x(m), [_e(m, 0, 1), m.zeros(0)]),
    "edges_one": lambda m: m.histogramdd(_x(m), [_e(m, 0, 1), m.zeros(1)]),
    "int_input": lambda m: m.histogramdd(_x(m, dtype="int32"), 3),
    "int_input_range": lambda m: m.histogramdd(_x(m, dtype="int32"), 3, range=[0, 1, 0, 1]),
    "int_input_empty": lambda m: m.histogramdd(m.zeros(0, 2, dtype=m.int64), 3),
    "int_input_edges": lambda m: m.histogramdd(_x(m, dtype="int32"), [_e(m, 0, 1, dtype="int32")] * 2),
    "half_input_no_range": lambda m: m.histogramdd(_x(m, dtype="float16"), 3),
    "bool_input_range": lambda m: m.histogramdd(_x(m, dtype="bool"), 3, range=[0, 1, 0, 1]),
    "complex_input": lambda m: m.histogramdd(_x(m, dtype="complex64"), 3),
    "complex_input_range": lambda m: m.histogramdd(_x(m, dtype="complex64"), 3, range=[0, 1, 0, 1]),
    "range_overflows_float": lambda m: m.histogramdd(_x(m), [3, 3], range=[0, 1, 0, 1e39]),
    # torch.histogram's checks are histogramdd's, with the same C type names
    "histogram_edges_long": lambda m: m.histogram(_x(m, _WEIGHT), _e(m, 0, 1, dtype="int64")),
    "histogram_weight_half": lambda m: m.histogram(_x(m, _WEIGHT), 2, weight=_x(m, _WEIGHT, "float16")),
    "unknown_keyword": lambda m: m.histogramdd(_x(m), bins=3, foo=1),
    "no_bins": lambda m: m.histogramdd(_x(m)),
}

# PyTorch names the arguments given by keyword in these messages; tensorgrad cannot tell how
# they were given and writes the keywords' types the way the cases pass them
_TYPE_ONLY = {"unknown_keyword", "no_bins"}


@pytest.mark.parametrize("case", ERROR_CASES, ids=list(ERROR_CASES))
def test_histogramdd_errors_match_pytorch(case):
    fn = ERROR_CASES[case]
    _, theirs = _run(fn, torch)
    _, ours = _run(fn, tg)
    assert theirs is not None and ours is not None, (ours, theirs)
    assert type(ours) is type(theirs), (ours, theirs)
    if case not in _TYPE_ONLY:
        assert str(ours) == str(theirs)


# ====================================================================== svd_lowrank, pca_lowrank

def _low_rank(shape, rank, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    *batch, m, n = shape
    left, right = rng.standard_normal((*batch, m, rank)), rng.standard_normal((*batch, rank, n))
    if np.dtype(dtype).kind == "c":
        left = left + 1j * rng.standard_normal(left.shape)
        right = right + 1j * rng.standard_normal(right.shape)
    return (left @ right).astype(dtype)


def _signature(result):
    return [(tuple(t.shape), str(t.dtype), type(t.grad_fn).__name__ if t.grad_fn is not None else None)
            for t in result]


def _check_svd(result, a, q, rtol):
    """``U diag(S) V^H`` is ``a``; S are ``a``'s largest singular values; U, V orthonormal."""
    U, S, V = (t.detach().resolve_conj().numpy() for t in result)
    k = min(q, *a.shape[-2:])
    assert S.shape[-1] == k
    expected = np.linalg.svd(a, compute_uv=False)[..., :k]
    np.testing.assert_allclose(S, expected, rtol=rtol, atol=rtol * expected.max())
    rebuilt = (U * S[..., None, :]) @ np.conj(np.swapaxes(V, -1, -2))
    np.testing.assert_allclose(rebuilt, a, rtol=rtol, atol=rtol * np.abs(a).max())
    eye = np.eye(k)
    np.testing.assert_allclose(np.conj(np.swapaxes(U, -1, -2)) @ U, np.broadcast_to(eye, U.shape[:-2] + (k, k)),
                               atol=rtol * 10)
    np.testing.assert_allclose(np.conj(np.swapaxes(V, -1, -2)) @ V, np.broadcast_to(eye, V.shape[:-2] + (k, k)),
                               atol=rtol * 10)


# the cases are 8 x 5 (or 5 x 8) with q = 3, most in float64, so that they share compiled kernels
LOWRANK_CASES = {
    # name: (shape, rank, dtype, kwargs)
    "tall": ((8, 5), 2, np.float64, {"q": 3}),
    "wide": ((5, 8), 3, np.float64, {"q": 3}),
    "niter_0": ((8, 5), 3, np.float64, {"q": 3, "niter": 0}),
    "niter_none": ((5, 8), 3, np.float64, {"q": 3, "niter": None}),
    "float32": ((8, 5), 2, np.float32, {"q": 3, "niter": 0}),
    "complex128_wide": ((5, 8), 2, np.complex128, {"q": 3, "niter": 1}),
}


@pytest.mark.parametrize("case", LOWRANK_CASES, ids=list(LOWRANK_CASES))
def test_svd_lowrank_is_the_svd_of_a_low_rank_matrix(case):
    shape, rank, dtype, kwargs = LOWRANK_CASES[case]
    a = _low_rank(shape, rank, dtype)
    rtol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9
    ours = tg.svd_lowrank(tg.tensor(a, requires_grad=True), **kwargs)
    theirs = torch.svd_lowrank(torch.tensor(a, requires_grad=True), **kwargs)
    assert type(ours) is tuple and len(ours) == 3
    assert _signature(ours) == _signature(theirs)
    q = 6 if kwargs.get("q") is None else kwargs["q"]
    _check_svd(ours, a, q, rtol)


def test_svd_lowrank_with_M_is_the_svd_of_the_difference():
    a = _low_rank((8, 5), 2)
    mean = np.random.default_rng(3).standard_normal(5)
    for M in (mean, np.broadcast_to(mean, (8, 5)).copy()):
        ours = tg.svd_lowrank(tg.tensor(a + mean), q=3, M=tg.tensor(M))
        theirs = torch.svd_lowrank(torch.tensor(a + mean), q=3, M=torch.tensor(M))
        assert _signature(ours) == _signature(theirs)
        _check_svd(ours, a, 3, 1e-9)
    # wide: M is transposed with A
    ours = tg.svd_lowrank(tg.tensor(a.T + mean[:, None]), q=3, M=tg.tensor(mean[:, None]))
    _check_svd(ours, a.T, 3, 1e-9)


def test_pca_lowrank_centres_the_columns_of_a_batch():
    rng = np.random.default_rng(5)
    a = _low_rank((2, 8, 5), 2) + rng.standard_normal((2, 1, 5)) * 3
    centred = a - a.mean(-2, keepdims=True)
    for kwargs in ({"q": 3, "niter": 0}, {"q": 3, "niter": 1}):
        ours = tg.pca_lowrank(tg.tensor(a, requires_grad=True), **kwargs)
        theirs = torch.pca_lowrank(torch.tensor(a, requires_grad=True), **kwargs)
        assert _signature(ours) == _signature(theirs)
        _check_svd(ours, centred, kwargs["q"], 1e-9)
    ours = tg.pca_lowrank(tg.tensor(centred), q=3, center=False, niter=0)
    _check_svd(ours, centred, 3, 1e-9)


def test_default_q():
    """svd_lowrank's q is 6, pca_lowrank's min(6, m, n)."""
    a = _low_rank((8, 6), 5)
    for name in ("svd_lowrank", "pca_lowrank"):
        ours = getattr(tg, name)(tg.tensor(a), niter=0)
        theirs = getattr(torch, name)(torch.tensor(a), niter=0)
        assert _signature(ours) == _signature(theirs)
    _check_svd(tg.svd_lowrank(tg.tensor(a), niter=0), a, 6, 1e-9)


def test_svd_lowrank_gradient_of_the_singular_values():
    """S's gradient is that of linalg.svdvals for a matrix of rank q (the projection spans its
    range exactly, so the derivative does not depend on the draw)."""
    a = _low_rank((8, 5), 3)
    x = tg.tensor(a, requires_grad=True)
    tg.svd_lowrank(x, q=3, niter=0)[1].sum().backward()
    y = torch.tensor(a, requires_grad=True)
    torch.linalg.svdvals(y)[:3].sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_svd_lowrank_follows_the_seed():
    a = tg.tensor(_low_rank((8, 5), 4))
    tg.manual_seed(7)
    first = tg.svd_lowrank(a, q=3, niter=0)
    tg.manual_seed(7)
    second = tg.svd_lowrank(a, q=3, niter=0)
    for x, y in zip(first, second):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


LOWRANK_ERRORS = {
    "svd_q_negative": lambda m: m.svd_lowrank(m.ones(8, 5, dtype=m.float64), q=-1),
    "svd_q_float": lambda m: m.svd_lowrank(m.ones(8, 5, dtype=m.float64), q=2.0),
    "svd_niter_float": lambda m: m.svd_lowrank(m.ones(8, 5, dtype=m.float64), q=3, niter=1.5),
    "svd_int": lambda m: m.svd_lowrank(m.ones(8, 5, dtype=m.int32), q=3),
    "svd_bfloat16": lambda m: m.svd_lowrank(m.ones(8, 5, dtype=m.bfloat16), q=3),
    "svd_half": lambda m: m.linalg.qr(m.ones(8, 3, dtype=m.float16)),  # svd_lowrank's first qr of half input
    "svd_half_svd": lambda m: m.linalg.svd(m.ones(3, 5, dtype=m.bfloat16)),
    "svd_1d": lambda m: m.svd_lowrank(m.ones(5)),
    "svd_0d": lambda m: m.svd_lowrank(m.tensor(1.0)),
    "svd_list": lambda m: m.svd_lowrank([[1.0, 2.0], [3.0, 4.0]]),
    "svd_M_shape": lambda m: m.svd_lowrank(m.ones(8, 5, dtype=m.float64), M=m.ones(3, dtype=m.float64), q=3),
    "svd_M_batched": lambda m: m.svd_lowrank(m.ones(8, 5, dtype=m.float64), M=m.ones(2, 8, 5), q=3),
    "svd_M_dtype": lambda m: m.svd_lowrank(m.ones(8, 5, dtype=m.float64), M=m.ones(8, 5), q=3),
    "svd_M_number": lambda m: m.svd_lowrank(m.ones(8, 5, dtype=m.float64), M=3.0),
    "svd_keyword": lambda m: m.svd_lowrank(m.ones(8, 5, dtype=m.float64), foo=1),
    "pca_q_large": lambda m: m.pca_lowrank(m.ones(8, 5, dtype=m.float64), q=6),
    "pca_q_negative": lambda m: m.pca_lowrank(m.ones(8, 5, dtype=m.float64), q=-1),
    "pca_q_str": lambda m: m.pca_lowrank(m.ones(8, 5, dtype=m.float64), q="a"),
    "pca_q_fraction": lambda m: m.pca_lowrank(m.ones(8, 5, dtype=m.float64), q=2.5),
    "pca_niter_negative": lambda m: m.pca_lowrank(m.ones(8, 5, dtype=m.float64), niter=-1),
    "pca_niter_none": lambda m: m.pca_lowrank(m.ones(8, 5, dtype=m.float64), niter=None),
    "pca_niter_float": lambda m: m.pca_lowrank(m.ones(8, 5, dtype=m.float64), q=3, niter=1.0),
    "pca_int": lambda m: m.pca_lowrank(m.ones(8, 5, dtype=m.int32)),
    "pca_int_uncentred": lambda m: m.pca_lowrank(m.ones(8, 5, dtype=m.int32), q=3, center=False),
    "pca_bool": lambda m: m.pca_lowrank(m.ones(8, 5, dtype=m.bool)),
    "pca_1d": lambda m: m.pca_lowrank(m.ones(5)),
}


@pytest.mark.parametrize("case", LOWRANK_ERRORS, ids=list(LOWRANK_ERRORS))
def test_lowrank_errors_match_pytorch(case):
    _, theirs = _run(LOWRANK_ERRORS[case], torch)
    _, ours = _run(LOWRANK_ERRORS[case], tg)
    assert theirs is not None and ours is not None, (ours, theirs)
    assert type(ours) is type(theirs), (ours, theirs)
    assert str(ours) == str(theirs)


def test_lowrank_q_0_matches_pytorch():
    for name in ("svd_lowrank", "pca_lowrank"):
        ours = getattr(tg, name)(tg.ones(8, 5, dtype=tg.float64), q=0)
        theirs = getattr(torch, name)(torch.ones(8, 5, dtype=torch.float64), q=0)
        assert _signature(ours) == _signature(theirs)
