# ====================================================================== op breadth (issue #4)
# Rows for the ops of _api/extra_math.py, _api/reductions.py, _api/indexing.py and
# _api/linalg.py. Samples are kept to one or two per dtype: compiling dominates the run time.

def pair_samples(make):
    """A broadcasting tensor pair, and a 0-d with a 1-D (the second for float64 only)."""
    return _first([Sample((make(2, 3), make(3))), Sample((make(), make(2)))], make)


def scalar_pair_samples(make):
    """``pair_samples`` plus a Python number as the second operand (float64 only)."""
    return _first([Sample((make(2, 3), make(3))), Sample((make(2, 3), make.scalar()))], make)


def three_of(*shapes, positive=()):
    def samples(make):
        arrays = [np.abs(make(*s)) if k in positive else make(*s) for k, s in enumerate(shapes)]
        return [Sample(tuple(arrays))]
    return samples


def special_values(make):
    x = make(2, 3)
    if make.dtype in FLOAT:
        x[0, :] = [np.nan, np.inf, -np.inf]
    return [Sample((x,), frozen=())]


def with_nan(*shapes):
    """Single-tensor samples with one NaN (floats), for the nan* reductions."""
    def samples(make):
        out = []
        for s in shapes:
            x = make(*s)
            if make.dtype in FLOAT and x.size > 1:
                x.reshape(-1)[1] = np.nan
            out.append(Sample((x,)))
        return _first(out, make)
    return samples


def probability_samples(make):
    x = make(2, 3, domain="positive")
    return [Sample(((x * 0.45).astype(x.dtype) if make.dtype != "bool" else x,))]


def mode_samples(make):
    """Repeated values (no gradient: ties are kinks), then distinct ones."""
    x = np.array([[1, 2, 2, 3, 3, 0], [3, 2, 3, 2, 1, 1]])
    return _first([Sample((x.astype(make.dtype),), grad=False), distinct(make, 2, 4)], make)


def distinct(make, *shape):
    """A sample without ties (so value-selecting ops pick the same index as PyTorch)."""
    n = int(np.prod(shape))
    values = make.rng.permutation(n) - n // 2
    if make.dtype in FLOAT:
        values = values * 0.7 + 0.1
    return Sample((values.reshape(shape).astype(make.dtype),))


def distinct_of(*shape):
    def samples(make):
        return [distinct(make, *shape)]
    return samples


def sorted_samples(make):
    seq = np.sort(make(5).astype(np.float64)).astype(make.dtype) if make.dtype != "bool" else make(5)
    return [Sample((seq, make(2, 3)))]


def counts_samples(make):
    return [Sample((make(6, domain="positive"),))]


def shift_samples(make):
    return [Sample((make(2, 3), index(0, 1, 3)))]


def spd(m, x):
    """A symmetric positive-definite matrix (batch) made from ``x``."""
    return x @ x.mT + m.eye(x.shape[-1], dtype=x.dtype)


def well(m, x):
    """A well-conditioned square matrix made from ``x``."""
    return x + 3 * m.eye(x.shape[-1], dtype=x.dtype)


def scatter_samples(make):
    return [Sample((make(2, 3), index([0, 2], [1, 0]), make(2, 2)))]


def duplicate_scatter_samples(make):
    """Repeated indices, so reductions combine several source entries (and ties with self)."""
    x = make(2, 3)
    src = make(2, 3)
    if make.dtype in FLOAT:
        src[0, 1] = src[0, 0]
    return [Sample((x, index([0, 0, 2], [1, 1, 1]), src))]


def index_source_samples(make):
    return [Sample((make(3, 2), index(0, 2), make(2, 2)))]


def mask_samples(make):
    return [Sample((make(2, 3), np.array([True, False, True])))]


def matrix_of(*shapes):
    def samples(make):
        return [Sample((make(*s),)) for s in shapes][:1 if not make.full else None]
    return samples


def vectors_of(*shapes):
    def samples(make):
        return [Sample(tuple(make(*s) for s in shapes))]
    return samples


def list_of(*shapes):
    def samples(make):
        return [Sample(([make(*s) for s in shapes],))]
    return samples


def _e(name, call, samples=pair_samples, **kw):
    return Op(name, call, samples, **kw)


def _breadth_elementwise_rows():
    rows = [
        _e("nan_to_num", lambda m, x: m.nan_to_num(x), special_values, grad=False),
        _e("nan_to_num_values", lambda m, x: x.nan_to_num(1.0, posinf=2.0, neginf=-3.0), special_values),
        _e("logit", lambda m, x: m.logit(x), probability_samples),
        _e("logit_eps", lambda m, x: x.logit(eps=0.3), probability_samples),
        _e("sgn", lambda m, x: m.sgn(x), unary_samples,
           xfail={"grad_torch": "PyTorch's gradient of sgn is a ZeroTensor, which the check cannot read"}),
        _e("sinc", lambda m, x: m.sinc(x), unary_samples),
        _e("deg2rad", lambda m, x: x.deg2rad(), unary_samples),
        _e("rad2deg", lambda m, x: m.rad2deg(x), unary_samples),
        _e("i0", lambda m, x: m.i0(x), unary_samples, tol={"float32": (1e-5, 1e-5)}),
        _e("signbit", lambda m, x: m.signbit(x), unary_samples, grad=False),
        _e("isposinf", lambda m, x: m.isposinf(x), special_values, grad=False),
        _e("isneginf", lambda m, x: x.isneginf(), special_values, grad=False),
        _e("positive", lambda m, x: m.positive(x), unary_samples, dtypes=INT_FLOAT),
        _e("polygamma", lambda m, x: m.polygamma(1, x), unary_samples, domain="positive",
           tol={"float32": (1e-5, 1e-5)}),
        _e("polygamma_method", lambda m, x: x.polygamma(2), samples_of((3,)), domain="positive",
           tol={"float32": (1e-4, 1e-5), "float64": (1e-8, 1e-10)}),
        _e("mvlgamma", lambda m, x: m.mvlgamma(x, 2), samples_of((2, 3)), domain="above1", dtypes=INT_FLOAT,
           errors=(Err((arr(3),), call=lambda m, x: m.mvlgamma(x, 0), note="p below 1"),)),
        _e("fmod", lambda m, x, y: m.fmod(x, y), scalar_pair_samples, dtypes=INT_FLOAT),
        _e("fmod_scalar", lambda m, x: x.fmod(1.5), unary_samples),
        _e("remainder_scalar", lambda m, x: m.remainder(x, 1.5), unary_samples),
        _e("fmax", lambda m, x, y: m.fmax(x, y), pair_samples, errors=(SCALAR_ERR,)),
        _e("fmin", lambda m, x, y: x.fmin(y), pair_samples),
        _e("hypot", lambda m, x, y: m.hypot(x, y), pair_samples, dtypes=FLOAT, errors=(SCALAR_ERR,)),
        _e("logaddexp", lambda m, x, y: m.logaddexp(x, y), pair_samples, dtypes=FLOAT),
        _e("logaddexp2", lambda m, x, y: x.logaddexp2(y), pair_samples, dtypes=FLOAT),
        _e("nextafter", lambda m, x, y: m.nextafter(x, y), two_of((2, 3), (3,)), dtypes=FLOAT, grad=False),
        _e("lerp", lambda m, x, y: m.lerp(x, y, 0.3), pair_samples, dtypes=FLOAT,
           errors=(Err((arr(3), arr(3, dtype="float64")), note="end has another dtype"),)),
        _e("lerp_tensor", lambda m, x, y, w: x.lerp(y, w), three_of((2, 3), (3,), (2, 1)), dtypes=FLOAT),
        _e("copysign", lambda m, x, y: m.copysign(x, y), scalar_pair_samples),
        _e("xlogy", lambda m, x, y: m.xlogy(x, y), scalar_pair_samples, domain="positive"),
        _e("xlogy_scalar_self", lambda m, x: m.xlogy(2.0, x), unary_samples, domain="positive"),
        _e("float_power", lambda m, x, y: m.float_power(x, y), pair_samples, domain="positive"),
        _e("float_power_scalar", lambda m, x: x.float_power(2), unary_samples),
        _e("ldexp", lambda m, x, y: m.ldexp(x, y), pair_samples),
        _e("heaviside", lambda m, x, y: m.heaviside(x, y), two_of((2, 3), (3,)), grad=False,
           errors=(Err((arr(3), arr(3, dtype="float64")), note="dtypes differ"),)),
        _e("gcd", lambda m, x, y: m.gcd(x, y), two_of((2, 3), (3,)), dtypes=("int64",), grad=False),
        _e("lcm", lambda m, x, y: x.lcm(y), two_of((2, 3), (3,)), dtypes=("int64",), grad=False),
        _e("bitwise_left_shift", lambda m, x, s: m.bitwise_left_shift(x, s), shift_samples,
           dtypes=("bool", "int64"), grad=False),
        _e("rshift_operator", lambda m, x, s: x >> s, shift_samples, dtypes=("bool", "int64"), grad=False),
        _e("lshift_scalar", lambda m, x: x << 2, unary_samples, dtypes=("bool", "int64"), grad=False),
        _e("addcmul", lambda m, x, a, b: m.addcmul(x, a, b, value=0.5), three_of((2, 3), (3,), (2, 1)),
           dtypes=INT_FLOAT),
        _e("addcdiv", lambda m, x, a, b: x.addcdiv(a, b, value=2), three_of((2, 3), (3,), (2, 1)), dtypes=FLOAT),
        _e("clamp_min_fn", lambda m, x: m.clamp_min(x, 0.5), unary_samples),
        _e("clamp_max_method", lambda m, x: x.clamp_max(0.5), unary_samples),
        _e("clamp_min_tensor", lambda m, x, y: m.clamp_min(x, y), pair_samples),
        _e("clamp_max_tensor", lambda m, x, y: x.clamp_max(y), pair_samples),
        _e("clamp_tensor_min_only", lambda m, x, y: m.clamp(x, min=y), pair_samples),
        _e("clamp_tensor_max_only", lambda m, x, y: x.clamp(max=y), pair_samples,
           errors=(Err((arr(3), arr(3)), call=lambda m, x, y: m.clamp(x, min=y, max=1.0),
                       note="a tensor bound with a number bound"),)),
    ]
    rows += [
        _e("fmod_", lambda m, x, y: x.clone().fmod_(y), two_of((2, 3), (3,)), dtypes=INT_FLOAT),
        _e("lerp_", lambda m, x, y: x.clone().lerp_(y, 0.25), two_of((2, 3), (3,)), dtypes=FLOAT),
        _e("hypot_", lambda m, x, y: x.clone().hypot_(y), two_of((2, 3), (3,)), dtypes=FLOAT),
        _e("clamp_tensor_", lambda m, x, y: x.clone().clamp_(min=y), two_of((2, 3), (3,))),
        _e("float_power_", lambda m, x: x.clone().float_power_(2), samples_of((2, 3)), dtypes=("float64",)),
        _e("xlogy_", lambda m, x, y: x.clone().xlogy_(y), two_of((2, 3), (3,)), dtypes=FLOAT, domain="positive"),
    ]
    return rows


def _breadth_reduction_rows():
    return [
        _e("nansum", lambda m, x: m.nansum(x), with_nan((2, 3), ())),
        _e("nansum_dim", lambda m, x: x.nansum(1, keepdim=True), with_nan((2, 3))),
        _e("nanmean", lambda m, x: m.nanmean(x), with_nan((2, 3)), dtypes=FLOAT),
        _e("nanmean_dim", lambda m, x: x.nanmean(dim=0), with_nan((2, 3)), dtypes=FLOAT),
        _e("std_mean", lambda m, x: m.std_mean(x, 1), samples_of((2, 3)), dtypes=FLOAT),
        _e("var_mean", lambda m, x: m.var_mean(x, correction=0, keepdim=True), samples_of((2, 3)), dtypes=FLOAT),
        _e("count_nonzero", lambda m, x: m.count_nonzero(x), unary_samples, grad=False),
        _e("count_nonzero_dims", lambda m, x: x.count_nonzero((0, 1)), samples_of((2, 3)), grad=False),
        _e("aminmax", lambda m, x: m.aminmax(x), samples_of((2, 3), ()),
           errors=(Err((arr(0),), note="empty input"),)),
        _e("aminmax_dim", lambda m, x: x.aminmax(dim=1, keepdim=True), samples_of((2, 3))),
        _e("cumprod", lambda m, x: m.cumprod(x, -1), dim_samples),
        _e("cumprod_dtype", lambda m, x: x.cumprod(0, dtype=m.float64), samples_of((3, 2))),
        _e("logcumsumexp", lambda m, x: m.logcumsumexp(x, 1), samples_of((2, 3)), dtypes=FLOAT),
        _e("cummax", lambda m, x: m.cummax(x, -1), dim_samples),
        _e("cummin", lambda m, x: x.cummin(0), samples_of((3, 2))),
        _e("sort", lambda m, x: m.sort(x), dim_samples),
        _e("sort_descending_dim", lambda m, x: x.sort(0, descending=True), samples_of((3, 2))),
        _e("sort_stable", lambda m, x: m.sort(x, stable=True), mode_samples),
        _e("argsort", lambda m, x: m.argsort(x, descending=True), samples_of((2, 3)), grad=False),
        _e("msort", lambda m, x: m.msort(x), samples_of((3, 2))),
        _e("topk", lambda m, x: m.topk(x, 2), distinct_of(2, 4), dtypes=INT_FLOAT,
           errors=(Err((arr(2, 3),), call=lambda m, x: x.topk(4), note="k larger than the dim"),)),
        _e("topk_smallest_dim", lambda m, x: x.topk(1, dim=0, largest=False), distinct_of(3, 2), dtypes=INT_FLOAT),
        _e("median", lambda m, x: m.median(x), samples_of((2, 3), ()), dtypes=INT_FLOAT),
        _e("median_dim", lambda m, x: x.median(1), samples_of((2, 3)), dtypes=INT_FLOAT,
           errors=(Err((arr(0, 3),), call=lambda m, x: x.median(0), note="empty reduction dim"),)),
        _e("nanmedian", lambda m, x: m.nanmedian(x), with_nan((2, 3)), dtypes=INT_FLOAT),
        _e("nanmedian_dim", lambda m, x: x.nanmedian(0, keepdim=True), with_nan((3, 2)), dtypes=INT_FLOAT),
        _e("mode", lambda m, x: m.mode(x), mode_samples),
        _e("mode_dim", lambda m, x: x.mode(0, keepdim=True), mode_samples),
        _e("quantile", lambda m, x: m.quantile(x, 0.3), samples_of((2, 3)), dtypes=FLOAT,
           errors=(Err((arr(3),), call=lambda m, x: m.quantile(x, 1.5), note="q outside [0, 1]"),)),
        _e("quantile_tensor_dim", lambda m, x: m.quantile(x, m.tensor([0.25, 0.5], dtype=x.dtype), dim=1),
           samples_of((2, 5)), dtypes=FLOAT,
           xfail={"grad_fn": "PyTorch moves the quantile dim with an in-place transpose_ (TransposeBackward1); "
                             "here the gathered values are already in place"}),
        _e("quantile_keepdim", lambda m, x: x.quantile(0.5, dim=0, keepdim=True), samples_of((3, 2)),
           dtypes=FLOAT),
        _e("quantile_nearest", lambda m, x: m.quantile(x, 0.4, interpolation="nearest"), samples_of((6,)),
           dtypes=FLOAT),
        _e("quantile_midpoint", lambda m, x: m.quantile(x, 0.4, dim=0, interpolation="midpoint"),
           samples_of((4, 2)), dtypes=FLOAT),
        _e("nanquantile", lambda m, x: m.nanquantile(x, 0.5, dim=1), with_nan((2, 4)), dtypes=FLOAT),
        _e("searchsorted", lambda m, s, v: m.searchsorted(s, v), sorted_samples, dtypes=INT_FLOAT, grad=False),
        _e("searchsorted_right", lambda m, s, v: m.searchsorted(s, v, right=True, out_int32=True), sorted_samples,
           dtypes=INT_FLOAT, grad=False),
        _e("bucketize", lambda m, s, v: m.bucketize(v, s, right=True), sorted_samples, dtypes=INT_FLOAT,
           grad=False),
        _e("histc", lambda m, x: m.histc(x, bins=4), samples_of((2, 5)), dtypes=FLOAT, grad=False),
        _e("histc_range", lambda m, x: x.histc(3, min=-1, max=1), samples_of((2, 5)), dtypes=FLOAT, grad=False),
        _e("bincount", lambda m, x: m.bincount(x), counts_samples, dtypes=("int64",), grad=False),
        _e("bincount_weights", lambda m, x: x.bincount(m.ones(6, dtype=m.float64), minlength=8), counts_samples,
           dtypes=("int64",), grad=False),
        _e("diff", lambda m, x: m.diff(x), samples_of((2, 3))),
        _e("diff_n_dim", lambda m, x: x.diff(n=2, dim=0), samples_of((4, 2))),
        _e("diff_prepend_append", lambda m, x, p, a: m.diff(x, prepend=p, append=a), vectors_of((3,), (2,), (1,))),
        _e("cumprod_", lambda m, x: x.clone().cumprod_(1), samples_of((2, 3)), dtypes=INT_FLOAT),
    ]


def _breadth_linalg_rows():
    return [
        _e("einsum_matmul", lambda m, x, y: m.einsum("ij,jk->ik", x, y), matmul_samples(((2, 3), (3, 2))),
           dtypes=INT_FLOAT, errors=(Err((arr(2, 3), arr(2, 3)), note="subscript sizes differ"),)),
        _e("einsum_batched", lambda m, x, y: m.einsum("bij,bjk->bik", x, y),
           matmul_samples(((2, 2, 3), (2, 3, 2))), dtypes=INT_FLOAT),
        _e("einsum_ellipsis", lambda m, x, y: m.einsum("...ij,...jk", [x, y]),
           matmul_samples(((2, 2, 3), (3, 2))), dtypes=INT_FLOAT),
        _e("einsum_outer", lambda m, x, y: m.einsum("i,j->ij", x, y), matmul_samples(((3,), (2,)))),
        _e("einsum_transpose", lambda m, x: m.einsum("ij->ji", x), samples_of((2, 3))),
        _e("einsum_sum", lambda m, x: m.einsum("ij->i", x), samples_of((2, 3))),
        _e("einsum_trace", lambda m, x: m.einsum("ii", x), samples_of((3, 3))),
        _e("einsum_diagonal", lambda m, x: m.einsum("bii->ib", x), samples_of((2, 3, 3)),
           xfail={"grad_fn": "PyTorch permutes before taking the diagonal; here the diagonal view comes first"}),
        _e("tensordot", lambda m, x, y: m.tensordot(x, y, dims=1), matmul_samples(((2, 3), (3, 2))),
           dtypes=INT_FLOAT, errors=(Err((arr(2, 3), arr(2, 3)), note="contracted sizes differ"),)),
        _e("tensordot_lists", lambda m, x, y: m.tensordot(x, y, dims=([1, 0], [0, 1])),
           matmul_samples(((2, 3, 2), (3, 2))), dtypes=INT_FLOAT),
        _e("kron", lambda m, x, y: m.kron(x, y), matmul_samples(((2, 2), (2, 3)), ((2,), (2, 2)))),
        _e("baddbmm", lambda m, b, x, y: m.baddbmm(b, x, y, beta=0.5, alpha=2),
           three_of((2, 1, 2), (2, 2, 3), (2, 3, 2)), dtypes=INT_FLOAT),
        _e("addbmm", lambda m, b, x, y: b.addbmm(x, y), three_of((2, 2), (2, 2, 3), (2, 3, 2)), dtypes=INT_FLOAT),
        _e("addmv", lambda m, b, x, y: m.addmv(b, x, y, alpha=2), three_of((2,), (2, 3), (3,)), dtypes=INT_FLOAT,
           errors=(Err((arr(2), arr(2, 3), arr(2)), note="vector length differs"),)),
        _e("addr", lambda m, b, x, y: m.addr(b, x, y, beta=0), three_of((2, 3), (2,), (3,)),
           errors=(Err((arr(2, 2, dtype="int64"), arr(2, dtype="int64"), arr(2, dtype="int64")),
                       call=lambda m, b, x, y: m.addr(b, x, y, alpha=0.5), note="float alpha, integer tensors"),)),
        _e("baddbmm_", lambda m, b, x, y: b.clone().baddbmm_(x, y), three_of((2, 2, 2), (2, 2, 3), (2, 3, 2)),
           dtypes=INT_FLOAT),
        _e("trace", lambda m, x: m.trace(x), samples_of((2, 3)), dtypes=INT_FLOAT,
           errors=(Err((arr(2, 2, 2),), note="3-D input"),)),
        _e("diag_vector", lambda m, x: m.diag(x, 1), samples_of((3,))),
        _e("diag_matrix", lambda m, x: x.diag(-1), samples_of((3, 3)),
           errors=(Err((arr(2, 2, 2),), note="3-D input"),)),
        _e("diag_embed", lambda m, x: m.diag_embed(x, offset=-1, dim1=0, dim2=2), samples_of((2, 3))),
        _e("diagflat", lambda m, x: m.diagflat(x), samples_of((2, 2))),
        _e("tril", lambda m, x: m.tril(x), samples_of((3, 3), (2, 3, 4)),
           errors=(Err((arr(3),), note="1-D input"),)),
        _e("triu_diagonal", lambda m, x: x.triu(1), samples_of((3, 4))),
        _e("tril_", lambda m, x: x.clone().tril_(-1), samples_of((3, 3))),
        _e("cross", lambda m, x, y: m.cross(x, y, dim=1), two_of((2, 3), (2, 3)), dtypes=INT_FLOAT),
        _e("linalg_cross", lambda m, x, y: m.linalg.cross(x, y), two_of((2, 3), (1, 3)), dtypes=INT_FLOAT,
           errors=(Err((arr(2, 2), arr(2, 2)), note="dim of length 2"),)),
        _e("vdot", lambda m, x, y: m.vdot(x, y), matmul_samples(((3,), (3,))), dtypes=INT_FLOAT),
        _e("multi_dot", lambda m, x, y, z: m.linalg.multi_dot([x, y, z]), vectors_of((2, 3), (3, 3), (3, 2)),
           dtypes=INT_FLOAT),
        _e("multi_dot_vectors", lambda m, x, y, z: m.linalg.multi_dot([x, y, z]), vectors_of((3,), (3, 2), (2,)),
           dtypes=INT_FLOAT),
        _e("inv", lambda m, x: m.linalg.inv(well(m, x)), matrix_of((3, 3), (2, 2, 2)), dtypes=FLOAT,
           errors=(Err((arr(2, 2),), call=lambda m, x: m.linalg.inv(x), note="singular"),
                   Err((arr(2, 3),), call=lambda m, x: m.linalg.inv(x), note="not square"))),
        _e("inverse", lambda m, x: m.inverse(well(m, x)), matrix_of((2, 2)), dtypes=FLOAT),
        _e("det", lambda m, x: m.linalg.det(x), matrix_of((3, 3), (2, 2, 2)), dtypes=FLOAT),
        _e("det_method", lambda m, x: x.det(), matrix_of((2, 2)), dtypes=FLOAT),
        _e("slogdet", lambda m, x: m.linalg.slogdet(x), matrix_of((3, 3)), dtypes=FLOAT),
        _e("logdet", lambda m, x: m.logdet(spd(m, x)), matrix_of((3, 3)), dtypes=FLOAT),
        _e("solve", lambda m, a, b: m.linalg.solve(well(m, a), b), vectors_of((3, 3), (3, 2)), dtypes=FLOAT,
           errors=(Err((arr(2, 2), arr(3)), call=lambda m, a, b: m.linalg.solve(a, b), note="shapes differ"),)),
        _e("solve_vector", lambda m, a, b: m.linalg.solve(well(m, a), b), vectors_of((2, 3, 3), (2, 3)),
           dtypes=FLOAT),
        _e("solve_right", lambda m, a, b: m.linalg.solve(well(m, a), b, left=False), vectors_of((3, 3), (2, 3)),
           dtypes=FLOAT),
        _e("solve_triangular", lambda m, a, b: m.linalg.solve_triangular(well(m, a), b, upper=True),
           vectors_of((3, 3), (3, 2)), dtypes=FLOAT),
        _e("solve_triangular_right_unit", lambda m, a, b: m.linalg.solve_triangular(
            a, b, upper=False, left=False, unitriangular=True), vectors_of((3, 3), (2, 3)), dtypes=FLOAT),
        _e("cholesky", lambda m, x: m.linalg.cholesky(spd(m, x)), matrix_of((3, 3), (2, 2, 2)), dtypes=FLOAT,
           errors=(Err((arr(2, 2),), call=lambda m, x: m.linalg.cholesky(-x), note="not positive-definite"),)),
        _e("cholesky_upper", lambda m, x: m.linalg.cholesky(spd(m, x), upper=True), matrix_of((3, 3)),
           dtypes=FLOAT),
        _e("qr", lambda m, x: m.linalg.qr(x), matrix_of((3, 3), (3, 2)), dtypes=FLOAT),
        _e("qr_complete", lambda m, x: m.linalg.qr(x, mode="complete"), matrix_of((2, 3)), dtypes=FLOAT),
        _e("svd", lambda m, x: m.linalg.svd(x), matrix_of((3, 3)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        _e("svd_reduced", lambda m, x: m.linalg.svd(x, full_matrices=False), matrix_of((2, 3, 2)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        _e("svdvals", lambda m, x: m.linalg.svdvals(x), matrix_of((2, 3), (3, 3)), dtypes=FLOAT),
        _e("eigh", lambda m, x: m.linalg.eigh(x + x.mT), matrix_of((3, 3)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        _e("eigh_upper", lambda m, x: m.linalg.eigh(x + x.mT, UPLO="U"), matrix_of((3, 3)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        _e("eigvalsh_reads_upper", lambda m, x: m.linalg.eigvalsh(x, UPLO="U"), matrix_of((3, 3)), dtypes=FLOAT,
           grad=False),
        _e("eigvalsh", lambda m, x: m.linalg.eigvalsh(x + x.mT), matrix_of((2, 3, 3)), dtypes=FLOAT),
        _e("pinv", lambda m, x: m.linalg.pinv(x), matrix_of((3, 2), (2, 3)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        _e("pinv_hermitian", lambda m, x: m.linalg.pinv(spd(m, x), hermitian=True), matrix_of((3, 3)),
           dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
        _e("lstsq", lambda m, a, b: m.linalg.lstsq(a, b), vectors_of((4, 2), (4, 3)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        _e("lstsq_gelsd", lambda m, a, b: m.linalg.lstsq(a, b, driver="gelsd"), vectors_of((4, 2), (4,)),
           dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
        _e("matrix_rank", lambda m, x: m.linalg.matrix_rank(x), matrix_of((3, 2)), dtypes=FLOAT, grad=False),
        _e("linalg_norm", lambda m, x: m.linalg.norm(x), matrix_of((2, 3)), dtypes=FLOAT),
        _e("linalg_norm_ord", lambda m, x: m.linalg.norm(x, ord=float("inf"), dim=(0, 1)), matrix_of((2, 3)),
           dtypes=FLOAT),
        _e("vector_norm", lambda m, x: m.linalg.vector_norm(x, ord=3, dim=1), matrix_of((2, 3)), dtypes=FLOAT,
           errors=(Err((arr(3, dtype="int64"),), note="integer input"),)),
        _e("matrix_norm", lambda m, x: m.linalg.matrix_norm(x), matrix_of((2, 3)), dtypes=FLOAT,
           errors=(Err((arr(3),), note="1-D input"), Err((arr(2, 2),), call=lambda m, x: m.linalg.matrix_norm(
               x, ord=3), note="unsupported order"))),
        _e("matrix_norm_nuc", lambda m, x: m.linalg.matrix_norm(x, "nuc"), matrix_of((3, 2)), dtypes=FLOAT),
        _e("matrix_norm_2", lambda m, x: m.linalg.matrix_norm(x, 2, keepdim=True), matrix_of((3, 2)),
           dtypes=FLOAT),
        _e("matrix_norm_1", lambda m, x: m.linalg.matrix_norm(x, 1), matrix_of((3, 2)), dtypes=FLOAT),
        _e("matrix_norm_neg_inf", lambda m, x: m.linalg.matrix_norm(x, -float("inf")), matrix_of((3, 2)),
           dtypes=FLOAT),
        _e("matrix_power", lambda m, x: m.linalg.matrix_power(x, 3), matrix_of((3, 3)), dtypes=INT_FLOAT),
        _e("matrix_power_0", lambda m, x: m.matrix_power(x, 0), matrix_of((2, 2))),
        _e("matrix_power_1", lambda m, x: x.matrix_power(1), matrix_of((2, 2))),
        _e("matrix_power_neg", lambda m, x: m.linalg.matrix_power(well(m, x), -2), matrix_of((2, 2)),
           dtypes=FLOAT),
        _e("matrix_exp", lambda m, x: m.linalg.matrix_exp(x), matrix_of((3, 3)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
    ]


def _breadth_shape_rows():
    return [
        _e("gather", lambda m, x, i: m.gather(x, 1, i), with_index((2, 3), index([0, 2], [1, 1])),
           errors=(Err((arr(2, 3), index([3])), call=lambda m, x, i: m.gather(x, 1, i[None]),
                       note="index out of bounds"),
                   Err((arr(2, 3), index(0)), call=lambda m, x, i: x.gather(1, i), note="index of lower rank"))),
        _e("gather_dim0", lambda m, x, i: x.gather(0, i), with_index((2, 3), index([1, 0, 1]))),
        _e("scatter", lambda m, x, i, s: m.scatter(x, 1, i, s), scatter_samples,
           errors=(Err((arr(2, 3), index([0, 2], [1, 0]), arr(2, 2, dtype="float64")), note="src dtype differs"),)),
        _e("scatter_value", lambda m, x, i: x.scatter(1, i, 1.5), with_index((2, 3), index([0, 2], [1, 0]))),
        _e("scatter_value_multiply", lambda m, x, i: m.scatter(x, 0, i, 2.0, reduce="multiply"),
           with_index((2, 3), index([1, 0, 1])), grad=False),
        _e("scatter_add", lambda m, x, i, s: m.scatter_add(x, 1, i, s), duplicate_scatter_samples),
        _e("scatter_reduce_sum", lambda m, x, i, s: m.scatter_reduce(x, 1, i, s, "sum", include_self=False),
           duplicate_scatter_samples,
           errors=(Err((arr(2, 3), index([0]), arr(1, 1)), call=lambda m, x, i, s: m.scatter_reduce(
               x, 0, i, s, "foo"), note="unknown reduction"),)),
        _e("scatter_reduce_prod", lambda m, x, i, s: x.scatter_reduce(1, i, s, "prod"), duplicate_scatter_samples),
        _e("scatter_reduce_mean", lambda m, x, i, s: m.scatter_reduce(x, 1, i, s, "mean"),
           duplicate_scatter_samples, dtypes=INT_FLOAT),
        _e("scatter_reduce_amax", lambda m, x, i, s: m.scatter_reduce(x, 1, i, s, "amax"),
           duplicate_scatter_samples),
        _e("scatter_reduce_amin_exclusive", lambda m, x, i, s: m.scatter_reduce(x, 1, i, s, "amin",
                                                                               include_self=False),
           duplicate_scatter_samples),
        _e("scatter_", lambda m, x, i, s: x.clone().scatter_(1, i, s), scatter_samples),
        _e("scatter_add_", lambda m, x, i, s: x.clone().scatter_add_(1, i, s), duplicate_scatter_samples),
        _e("index_select", lambda m, x, i: m.index_select(x, 1, i), with_index((2, 3), index(2, 0, 2), index(1)),
           errors=(Err((arr(2, 3), index(3)), call=lambda m, x, i: x.index_select(1, i), note="out of bounds"),
                   Err((arr(2, 3), index([0])), call=lambda m, x, i: x.index_select(1, i), note="2-D index"))),
        _e("index_add", lambda m, x, i, s: m.index_add(x, 0, i, s, alpha=2), index_source_samples),
        _e("index_copy", lambda m, x, i, s: x.index_copy(0, i, s), index_source_samples),
        _e("index_fill", lambda m, x, i: m.index_fill(x, 1, i, -1.5), with_index((2, 3), index(0, -1))),
        _e("index_fill_tensor", lambda m, x, i: x.index_fill(1, i, m.tensor(2.5, dtype=x.dtype)),
           with_index((2, 3), index(1))),
        _e("index_add_", lambda m, x, i, s: x.clone().index_add_(0, i, s), index_source_samples),
        _e("index_copy_", lambda m, x, i, s: x.clone().index_copy_(0, i, s), index_source_samples),
        _e("index_fill_", lambda m, x, i: x.clone().index_fill_(0, i, 0.5), with_index((3, 2), index(2))),
        _e("masked_select", lambda m, x, mask: m.masked_select(x, mask), mask_samples,
           errors=(Err((arr(3), arr(3, dtype="int64")), note="integer mask"),)),
        _e("masked_scatter", lambda m, x, mask, s: x.masked_scatter(mask, s),
           lambda make: [Sample((make(2, 3), np.array([True, False, True]), make(5)))]),
        _e("masked_scatter_", lambda m, x, mask, s: x.clone().masked_scatter_(mask, s),
           lambda make: [Sample((make(2, 3), np.array([[True], [False]]), make(4)))]),
        _e("take", lambda m, x, i: m.take(x, i), with_index((2, 3), index([0, -1], [4, 2])),
           errors=(Err((arr(2, 3), index(6)), note="out of range"),)),
        _e("take_along_dim", lambda m, x, i: m.take_along_dim(x, i, 1), with_index((2, 3), index([0, 2, 1, 0]))),
        _e("take_along_dim_flat", lambda m, x, i: x.take_along_dim(i), with_index((2, 3), index(5, 0))),
        _e("repeat_interleave", lambda m, x: m.repeat_interleave(x, 2), samples_of((2, 3))),
        _e("repeat_interleave_dim", lambda m, x: x.repeat_interleave(3, dim=0), samples_of((2, 3))),
        _e("repeat_interleave_tensor", lambda m, x: m.repeat_interleave(x, m.tensor([1, 0, 2]), dim=1),
           samples_of((2, 3))),
        _e("tile", lambda m, x: m.tile(x, (2,)), samples_of((2, 3))),
        _e("tile_more_dims", lambda m, x: x.tile((2, 1, 1)), samples_of((2, 3))),
        _e("fliplr", lambda m, x: m.fliplr(x), samples_of((2, 3)), errors=(Err((arr(3),), note="1-D input"),)),
        _e("flipud", lambda m, x: x.flipud(), samples_of((2, 3))),
        _e("roll", lambda m, x: m.roll(x, 1, 0), samples_of((2, 3))),
        _e("roll_flat", lambda m, x: x.roll(-2), samples_of((2, 3))),
        _e("roll_dims", lambda m, x: m.roll(x, (1, -1), (0, 1)), samples_of((2, 3)),
           errors=(Err((arr(2, 3),), call=lambda m, x: m.roll(x, (1, 2), 0), note="shifts and dims differ"),)),
        _e("rot90", lambda m, x: m.rot90(x), samples_of((2, 3))),
        _e("rot90_k_dims", lambda m, x: x.rot90(-1, (1, 2)), samples_of((2, 3, 2)),
           errors=(Err((arr(3),), note="1-D input"),)),
        _e("dstack", lambda m, x, y: m.dstack([x, y]), two_of((3,), (3,))),
        _e("column_stack", lambda m, x, y: m.column_stack((x, y)), two_of((3, 2), (3,))),
        _e("row_stack", lambda m, x, y: m.row_stack((x, y)), two_of((3,), (2, 3))),
        _e("atleast_3d", lambda m, x: m.atleast_3d(x), samples_of((3,), (2, 3), ())),
        _e("meshgrid_ij", lambda m, x, y: m.meshgrid(x, y, indexing="ij"), two_of((3,), (2,)),
           errors=(Err((arr(2), arr(2)), call=lambda m, x, y: m.meshgrid(x, y, indexing="yx")),)),
        _e("meshgrid_xy", lambda m, x, y: m.meshgrid([x, y], indexing="xy"), two_of((3,), (2,))),
        _e("broadcast_tensors", lambda m, x, y: m.broadcast_tensors(x, y), two_of((3,), (2, 3)),
           errors=(BROADCAST_ERR,)),
        _e("cartesian_prod", lambda m, x, y: m.cartesian_prod(x, y), two_of((3,), (2,))),
        _e("combinations", lambda m, x: m.combinations(x), samples_of((4,))),
        _e("combinations_with_replacement", lambda m, x: m.combinations(x, 3, with_replacement=True),
           samples_of((3,))),
        _e("block_diag", lambda m, x, y, z: m.block_diag(x, y, z), vectors_of((2, 2), (3,), (1, 2))),
        _e("cdist", lambda m, x, y: m.cdist(x, y), two_of((3, 2), (4, 2)), dtypes=FLOAT,
           errors=(Err((arr(3), arr(3)), note="1-D inputs"),)),
        _e("cdist_p1_batched", lambda m, x, y: m.cdist(x, y, p=1), two_of((2, 3, 2), (2, 2, 2)), dtypes=FLOAT),
        _e("cdist_inf", lambda m, x, y: m.cdist(x, y, p=float("inf")), two_of((3, 2), (2, 2)), dtypes=FLOAT),
        _e("unique", lambda m, x: m.unique(x, return_inverse=True, return_counts=True), mode_samples, grad=False),
        _e("unique_dim", lambda m, x: x.unique(dim=0), lambda make: [Sample((np.array(
            [[1, 2], [1, 2], [0, 5]]).astype(make.dtype),))], grad=False),
        _e("unique_consecutive", lambda m, x: m.unique_consecutive(x, return_counts=True), mode_samples,
           grad=False),
        _e("tril_indices", lambda m, x: m.tril_indices(3, 4, -1), samples_of(()), grad=False),
        _e("triu_indices", lambda m, x: m.triu_indices(4, 3, 1, dtype=m.int32), samples_of(()), grad=False),
        _e("ravel", lambda m, x: m.ravel(x), samples_of((2, 3))),
    ]
