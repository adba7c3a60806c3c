"""The op table: one row per op (or per calling form of an op) with its sample inputs.

``tests/test_ops.py`` runs every row through every check in ``tests/op_checks.py`` (values,
dtype and shape against PyTorch; gradients against PyTorch and against float64 central finite
differences; ``grad_fn`` and ``next_functions`` names; error types, and that a rejected call
changes none of its tensor arguments), and ``benchmarks/op_report.py`` counts how many pass.
Adding an op is adding a row here.

A row's ``call`` takes the module first, so one lambda runs on both libraries::

    Op("add_alpha", lambda m, x, y: m.add(x, y, alpha=2), binary_samples)

Its ``samples(make)`` returns ``Sample``s whose tensor arguments are numpy arrays made by
``make`` (one dtype per call, values in the row's ``domain``); the checks turn them into
tensors of either library. Floating arguments of float64 samples require grad unless the
sample lists them in ``frozen``. Expected ``grad_fn`` names are read from PyTorch at test time.
"""

import zlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

FLOAT = ("float32", "float64")
INT_FLOAT = ("int64",) + FLOAT
ALL = ("bool",) + INT_FLOAT
# dtypes every row is tried with: accepted ones are compared with PyTorch, the others must be
# rejected with PyTorch's exception type
CHECKED_DTYPES = ALL


@dataclass(frozen=True)
class Sample:
    """Positional ``args`` (numpy arrays become tensors; lists of arrays, lists of tensors) and
    ``kwargs``. ``frozen`` holds the positions, among the array arguments in order, that do not
    require grad; ``grad=False`` skips the gradient checks for this sample."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    frozen: tuple = ()
    grad: bool = True


@dataclass(frozen=True)
class Err:
    """An input PyTorch rejects; tensorgrad must raise the same exception type, with a message
    that ``match`` (a regular expression) finds when given, and leave its arguments unchanged."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    call: Callable = None  # defaults to the row's call
    note: str = ""
    match: str = None


@dataclass(frozen=True)
class Op:
    """One row of the table.

    Attributes:
      name: unique id (``"sum_dim"``); ops with several calling forms have several rows.
      call: ``call(module, *args, **kwargs)`` on ``tensorgrad`` or ``torch``.
      samples: ``samples(make) -> [Sample]``.
      dtypes: the dtypes PyTorch accepts; the rest of ``CHECKED_DTYPES`` must raise.
      grad: whether the gradient checks run (on the float64 samples).
      domain: the value range of sample floats (``"real"``, ``"positive"``, ``"unit"``,
        ``"above1"``); ``"real"`` keeps ``|x| >= 0.25`` so no sample sits on a kink.
      tol: ``{dtype: (rtol, atol)}`` overrides for the value and gradient comparisons.
      fd: ``(eps, rtol, atol)`` for the finite-difference check.
      errors: inputs PyTorch rejects.
      xfail: ``{check: reason}`` or ``{(check, key): reason}`` (``key``: a sample index, an
        error index or a rejected dtype): known failures, run as strict xfails so a fix is noticed.
    """

    name: str
    call: Callable
    samples: Callable
    dtypes: tuple = ALL
    grad: bool = True
    domain: str = "real"
    tol: dict = field(default_factory=dict)
    fd: tuple = (1e-6, 1e-5, 1e-7)
    errors: tuple = ()
    xfail: dict = field(default_factory=dict)


TOL = {"float32": (1e-5, 1e-6), "float64": (1e-9, 1e-12)}


def tolerance(row, dtype):
    return row.tol.get(dtype, TOL.get(dtype, (0, 0)))


# ====================================================================== sample values

class Maker:
    """Makes sample arrays of one dtype with values in one domain, reproducibly."""

    def __init__(self, dtype, domain="real", seed=0):
        self.dtype = dtype
        self.domain = domain
        self.full = dtype == "float64"  # the gradient dtype gets every sample
        self.rng = np.random.default_rng(seed)

    def __call__(self, *shape, dtype=None, domain=None):
        dtype = dtype or self.dtype
        domain = domain or self.domain
        rng = self.rng
        if dtype == "bool":
            return np.asarray(rng.random(shape) < 0.5)
        if dtype.startswith("int"):
            low = 1 if domain in ("positive", "above1") else -4
            values = np.asarray(rng.integers(low, 5, shape))
            values[values == 0] = 1  # integer division by zero raises in PyTorch
            return values.astype(dtype)
        if domain == "unit":
            values = rng.uniform(-0.9, 0.9, shape)
        elif domain == "above1":
            values = rng.uniform(1.25, 3.0, shape)
        else:
            values = rng.uniform(0.25, 2.0, shape)
            if domain == "real":
                values = values * rng.choice([-1.0, 1.0], shape)
        return np.asarray(values, dtype)

    def scalar(self):
        """A Python number of this dtype's kind."""
        return {"bool": True, "int64": 3}.get(self.dtype, 1.5)


def maker(row, dtype):
    return Maker(dtype, row.domain, zlib.crc32(f"{row.name}/{dtype}".encode()))


def index(*values):
    return np.asarray(values, np.int64)


def arr(*shape, dtype="float32"):
    """A fixed array for error inputs."""
    if dtype == "bool":
        return np.ones(shape, bool)
    return np.ones(shape, dtype)


def _first(samples, make, n=1):
    """All samples for the gradient dtype, the first ``n`` for the others (compiling dominates)."""
    return samples if make.full else samples[:n]


def unary_samples(make):
    return _first([Sample((make(2, 3),)), Sample((make(),)), Sample((make(0, 3),))], make)


# reductions over dim=-1 take the same inputs: a 0-d tensor accepts dim -1 too
dim_samples = unary_samples


def binary_samples(make):
    full = [
        Sample((make(2, 3), make(2, 3))),
        Sample((make(2, 3), make(3))),            # broadcast
        Sample((make(), make(3))),                # 0-d with 1-D
        Sample((make(2, 3), make.scalar())),      # Python number
        Sample((make(0, 3), make(3))),            # empty
        Sample((make(2, 3), make(2, 3)), frozen=(1,)),  # other does not require grad
    ]
    if make.full:
        return full
    promoting = {
        "float32": [Sample((make(3), make(dtype="float64")))],         # 0-d f64 does not promote
        "int64": [Sample((make(3), 2.5)), Sample((make(3), make(3, dtype="float32")))],
        "bool": [Sample((make(3), 2)), Sample((make(3), make(3, dtype="int64")))],
    }
    return full[:1] + promoting.get(make.dtype, [])


def compare_samples(make):
    """Tensor pairs only (for ops whose other operand must be a Tensor)."""
    full = binary_samples(make)
    pairs = [s for s in full if all(isinstance(a, np.ndarray) for a in s.args)]
    return pairs[:4] if make.full else pairs


def scalar_compare_samples(make):
    return binary_samples(make)[:5] if make.full else binary_samples(make)


def same_dtype_samples(make):
    """Tensor pairs of one dtype (for ops that do not promote)."""
    return [s for s in compare_samples(make) if len({a.dtype for a in s.args}) == 1]


def integral_samples(make):
    """Operands without floats (bitwise ops)."""
    samples = scalar_compare_samples(make)
    if make.dtype in FLOAT:
        return samples  # rejected: the check wants one float sample
    return [s for s in samples
            if not any(isinstance(a, float) or getattr(a, "dtype", np.dtype(int)).kind == "f" for a in s.args)]


def matmul_samples(*pairs):
    def samples(make):
        return [Sample((make(*a), make(*b))) for a, b in pairs]
    return samples


def list_samples(make):
    """Inputs for cat/stack: a list of tensors."""
    return _first([Sample(([make(2, 3), make(2, 3)],)), Sample(([make(3), make(3), make(3)],)),
                   Sample(([make(0, 3), make(0, 3)],))], make)


def samples_of(*shapes):
    """One single-tensor sample per shape (the first for non-gradient dtypes)."""
    def samples(make):
        return _first([Sample((make(*s),)) for s in shapes], make)
    return samples


def with_index(shape, *indices):
    """``(x, index)`` samples: the index arrays stay integer (or bool) and never require grad."""
    def samples(make):
        return [Sample((make(*shape), i)) for i in indices]
    return samples


def where_samples(make):
    cond = make(2, 3, dtype="bool")
    full = [Sample((cond, make(2, 3), make(2, 3))), Sample((cond, make(3), make(2, 1))),
            Sample((cond, make(2, 3), make.scalar()))]
    return _first(full, make)


def clamp_tensor_samples(make):
    return _first([Sample((make(2, 3), make(3), make(3)))], make)


def two_of(shape_a, shape_b):
    def samples(make):
        return _first([Sample((make(*shape_a), make(*shape_b)))], make)
    return samples


def addmm_samples(make):
    return _first([Sample((make(2, 2), make(2, 3), make(3, 2))), Sample((make(2), make(2, 3), make(3, 2)))], make)


def pow_tensor_samples(make):
    samples = binary_samples(make)
    if make.full:
        # the base must be positive for a real result
        return [Sample((np.abs(s.args[0]),) + s.args[1:], s.kwargs, s.frozen) for s in samples]
    return samples


# ====================================================================== calling helpers

def masked_fill_view_(m, x, v):
    y = x * 1
    y[:, 1:].masked_fill_(m.tensor([True, False]), v)
    return y


def setitem_basic(m, x, v):
    y = x.clone()
    y[0, 1:] = v
    return y


def setitem_advanced(m, x, i, v):
    y = x.clone()
    y[i] = v
    return y


def setitem_mask(m, x):
    y = x.clone()
    y[y > 0] = 0.5
    return y


def write_through_view(m, x, v):
    """An in-place write into a view: CopySlices on the base, AsStridedBackward0 on the view."""
    y = x.clone()
    z = y[:, 1]
    z.mul_(v)
    return y, z


def fill_(m, x):
    return x.clone().fill_(2.5)


def zero_(m, x):
    return x.clone().zero_()


def setitem_0d_tensor(m, x, v):
    """A 0-d tensor written into a slice: a fill (FillBackward3) wrapped in CopySlices."""
    y = x.clone()
    y[1:] = v
    return y


def copy_(m, x, y):
    return x.clone().copy_(y)


def copy_into_plain(m, x):
    """A value that requires grad copied into a tensor that does not (reference 3.5)."""
    return m.zeros(2, 3, dtype=x.dtype).copy_(x)


def setitem_into_plain(m, x):
    y = m.zeros(2, 3, dtype=x.dtype)
    y[0] = x
    return y


BROADCAST_ERR = Err((arr(2, 3), arr(4)), note="shapes do not broadcast")
SCALAR_ERR = Err((arr(3), 1.5), note="a Python number where a Tensor is required")
DTYPE_ERR = Err((arr(3), arr(3, dtype="float64")), note="dtypes differ")


def _binary_rows():
    rows = [
        Op("add", lambda m, x, y: m.add(x, y), binary_samples, errors=(BROADCAST_ERR,)),
        Op("add_alpha", lambda m, x, y: m.add(x, y, alpha=2), binary_samples),
        Op("radd", lambda m, x: 2 + x, unary_samples),
        Op("sub", lambda m, x, y: x - y, binary_samples, dtypes=INT_FLOAT, errors=(BROADCAST_ERR,)),
        Op("sub_alpha", lambda m, x, y: m.sub(x, y, alpha=3), binary_samples, dtypes=INT_FLOAT),
        Op("rsub", lambda m, x: 1 - x, unary_samples, dtypes=INT_FLOAT),
        Op("mul", lambda m, x, y: x * y, binary_samples, errors=(BROADCAST_ERR,)),
        Op("rmul", lambda m, x: 2 * x, unary_samples),
        Op("div", lambda m, x, y: m.div(x, y), binary_samples, errors=(BROADCAST_ERR,)),
        Op("rdiv", lambda m, x: 2 / x, unary_samples),
        Op("div_floor", lambda m, x, y: m.div(x, y, rounding_mode="floor"), binary_samples, dtypes=INT_FLOAT,
           errors=(Err((arr(3), arr(3)), {"rounding_mode": "round"}),)),
        Op("div_trunc", lambda m, x, y: m.div(x, y, rounding_mode="trunc"), binary_samples, dtypes=INT_FLOAT),
        Op("floor_divide", lambda m, x, y: x // y, binary_samples, dtypes=INT_FLOAT, grad=False,
           errors=(Err((arr(3), arr(3)), call=lambda m, x, y: (x.requires_grad_() // y).sum().backward(),
                       note="no derivative"),)),
        Op("remainder", lambda m, x, y: x % y, binary_samples, dtypes=INT_FLOAT),
        Op("pow", lambda m, x, y: m.pow(x, y), pow_tensor_samples, dtypes=INT_FLOAT, domain="positive"),
        Op("pow_scalar", lambda m, x: x ** 2, unary_samples,
           errors=(Err((arr(3, dtype="int64"),), call=lambda m, x: x ** -1, note="negative integer power"),)),
        Op("pow_scalar_float", lambda m, x: m.pow(x, 1.5), unary_samples, domain="positive"),
        Op("pow_scalar_neg", lambda m, x: x ** -1.0, unary_samples),
        Op("pow_scalar_base", lambda m, x: 2 ** x, unary_samples),
        Op("maximum", lambda m, x, y: m.maximum(x, y), compare_samples, errors=(BROADCAST_ERR, SCALAR_ERR)),
        Op("minimum", lambda m, x, y: m.minimum(x, y), compare_samples, errors=(SCALAR_ERR,)),
        Op("max_binary", lambda m, x, y: m.max(x, y), compare_samples, errors=(SCALAR_ERR,)),
        Op("atan2", lambda m, x, y: m.atan2(x, y), compare_samples, errors=(SCALAR_ERR,)),
    ]
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        rows.append(Op(name, lambda m, x, y, name=name: getattr(m, name)(x, y), scalar_compare_samples,
                       grad=False, errors=(BROADCAST_ERR,)))
    rows.append(Op("gt_operator", lambda m, x, y: x > y, scalar_compare_samples, grad=False))
    for name in ("logical_and", "logical_or", "logical_xor"):
        rows.append(Op(name, lambda m, x, y, name=name: getattr(m, name)(x, y), compare_samples, grad=False,
                       errors=(SCALAR_ERR,)))
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        rows.append(Op(name, lambda m, x, y, name=name: getattr(m, name)(x, y), integral_samples,
                       grad=False, dtypes=("bool", "int64")))
    rows += [
        Op("isclose", lambda m, x, y: m.isclose(x, y, rtol=0.1, atol=0.5), same_dtype_samples, grad=False,
           errors=(SCALAR_ERR, DTYPE_ERR)),
        Op("allclose", lambda m, x, y: m.allclose(x, y, rtol=0.1, atol=0.5), same_dtype_samples, grad=False,
           errors=(SCALAR_ERR, DTYPE_ERR)),
        Op("equal", lambda m, x, y: m.equal(x, y), compare_samples, grad=False, errors=(SCALAR_ERR,)),
        Op("equal_self", lambda m, x: m.equal(x, x.clone()), unary_samples, grad=False),
    ]
    return rows


NUMBER_ERR = Err((1.5,), note="a Python number as input")


def _unary(name, dtypes=ALL, domain="real", call=None, errors=(), **kw):
    if call is None:
        call = lambda m, x: getattr(m, name)(x)  # noqa: E731
        errors = errors + (NUMBER_ERR,)
    return Op(name, call, unary_samples, dtypes=dtypes, domain=domain, errors=errors, **kw)


def _unary_rows():
    rows = [
        _unary("neg", INT_FLOAT),
        _unary("abs", INT_FLOAT),
        _unary("relu", INT_FLOAT),
        _unary("sign", ALL),
        _unary("square"),
        _unary("floor", INT_FLOAT),
        _unary("ceil", INT_FLOAT),
        _unary("trunc", INT_FLOAT),
        _unary("frac", FLOAT),
        _unary("round", INT_FLOAT),
        _unary("round_decimals", FLOAT, call=lambda m, x: m.round(x, decimals=1)),
        _unary("logical_not", grad=False),
        _unary("bitwise_not", ("bool", "int64"), grad=False),
        _unary("isnan", grad=False),
        _unary("isinf", grad=False),
        _unary("isfinite", grad=False),
        _unary("clone"),
        _unary("to_float32", call=lambda m, x: x.to(m.float32), fd=(1e-3, 1e-3, 1e-4)),
        _unary("double", call=lambda m, x: x.double()),
        _unary("clamp", call=lambda m, x: m.clamp(x, -0.5, 1.5),
               errors=(Err((arr(3),), call=lambda m, x: m.clamp(x), note="no bounds"),)),
        _unary("clamp_min", call=lambda m, x: x.clamp(min=0.5)),
        _unary("clamp_max", call=lambda m, x: x.clamp(max=1)),
    ]
    for name in ("exp", "exp2", "expm1", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "asinh",
                 "sigmoid", "erf", "erfc", "reciprocal"):
        rows.append(_unary(name))
    for name in ("log", "log2", "log10", "log1p", "sqrt", "rsqrt", "lgamma", "digamma"):
        rows.append(_unary(name, domain="positive"))
    for name in ("asin", "acos", "atanh", "erfinv"):
        rows.append(_unary(name, domain="unit"))
    rows.append(_unary("acosh", domain="above1"))
    return rows


def _reduction_rows():
    return [
        Op("sum", lambda m, x: m.sum(x), unary_samples),
        Op("sum_dim", lambda m, x: x.sum(-1), dim_samples, errors=(Err((arr(2, 3),), call=lambda m, x: x.sum(2)),)),
        Op("sum_dims_keepdim", lambda m, x: x.sum((0, 1), keepdim=True), samples_of((2, 3), (0, 3))),
        Op("sum_dtype", lambda m, x: m.sum(x, dtype=m.float64), unary_samples),
        Op("mean", lambda m, x: x.mean(), unary_samples, dtypes=FLOAT),
        Op("mean_dim", lambda m, x: m.mean(x, -1), dim_samples, dtypes=FLOAT),
        Op("mean_keepdim", lambda m, x: x.mean(0, keepdim=True), samples_of((2, 3)), dtypes=FLOAT),
        Op("prod", lambda m, x: x.prod(), unary_samples),
        Op("prod_dim", lambda m, x: m.prod(x, 1), samples_of((2, 3))),
        Op("max", lambda m, x: x.max(), samples_of((2, 3), ()),
           errors=(Err((arr(0, 3),), note="max of an empty tensor"),)),
        Op("min", lambda m, x: m.min(x), samples_of((2, 3), ())),
        Op("max_dim", lambda m, x: m.max(x, -1), dim_samples,
           errors=(Err((arr(2, 3),), call=lambda m, x: x.max(2)),)),
        Op("max_dim_keepdim", lambda m, x: x.max(0, keepdim=True), samples_of((2, 3))),
        Op("min_dim", lambda m, x: x.min(dim=-1), dim_samples),
        Op("amax", lambda m, x: m.amax(x, -1), samples_of((2, 3))),
        Op("amin", lambda m, x: x.amin((0, 1)), samples_of((2, 3))),
        Op("argmax", lambda m, x: m.argmax(x), samples_of((2, 3), ()), dtypes=INT_FLOAT, grad=False,
           errors=(Err((arr(0, 3),), note="argmax of an empty tensor"),)),
        Op("argmax_dim", lambda m, x: x.argmax(-1), dim_samples, dtypes=INT_FLOAT, grad=False),
        Op("argmax_keepdim", lambda m, x: m.argmax(x, 1, keepdim=True), samples_of((2, 3)), dtypes=INT_FLOAT,
           grad=False),
        Op("argmin", lambda m, x: x.argmin(), samples_of((2, 3), ()), dtypes=INT_FLOAT, grad=False),
        Op("all", lambda m, x: m.all(x), unary_samples, grad=False),
        Op("all_dim", lambda m, x: x.all(-1), dim_samples, grad=False),
        Op("any", lambda m, x: x.any(), unary_samples, grad=False),
        Op("any_dim", lambda m, x: m.any(x, 0, keepdim=True), samples_of((2, 3)), grad=False),
        Op("norm", lambda m, x: x.norm(), unary_samples, dtypes=FLOAT),
        Op("norm_p1", lambda m, x: m.norm(x, p=1), samples_of((2, 3)), dtypes=FLOAT),
        Op("norm_inf_dim", lambda m, x: m.norm(x, p=float("inf"), dim=1), samples_of((2, 3)), dtypes=FLOAT),
        Op("norm_p3_keepdim", lambda m, x: x.norm(3, dim=0, keepdim=True), samples_of((2, 3)), dtypes=FLOAT),
        Op("total_norm", lambda m, x: m.nn.utils.get_total_norm([x, x.T * 2], 2.0), samples_of((2, 3)), dtypes=FLOAT,
           grad=False),
        Op("total_norm_p3", lambda m, x: m.nn.utils.get_total_norm([x[0], x], 3), samples_of((2, 3)), dtypes=FLOAT,
           grad=False),
        Op("logsumexp", lambda m, x: m.logsumexp(x, 1), samples_of((2, 3))),
        Op("cumsum", lambda m, x: x.cumsum(-1), dim_samples),
        Op("var", lambda m, x: m.var(x), samples_of((2, 3)), dtypes=FLOAT),
        Op("var_dim", lambda m, x: x.var(1, correction=0), samples_of((2, 3)), dtypes=FLOAT),
        Op("std", lambda m, x: x.std(), samples_of((2, 3)), dtypes=FLOAT),
        Op("std_dim_keepdim", lambda m, x: m.std(x, 0, keepdim=True), samples_of((2, 3)), dtypes=FLOAT),
    ]


MM_DIMS_ERR = Err((arr(2, 3), arr(2, 3)), note="inner dimensions differ")


def _linalg_rows():
    return [
        Op("dot", lambda m, x, y: m.dot(x, y), matmul_samples(((3,), (3,)), ((0,), (0,))), dtypes=INT_FLOAT,
           errors=(Err((arr(3), arr(3, dtype="float64")), note="dtypes differ"),
                   Err((arr(2, 3), arr(3)), note="2-D input"), Err((arr(3), arr(4))))),
        Op("matmul_1d_1d", lambda m, x, y: x @ y, matmul_samples(((3,), (3,))), dtypes=INT_FLOAT),
        Op("matmul_2d_1d", lambda m, x, y: m.matmul(x, y), matmul_samples(((2, 3), (3,))), dtypes=INT_FLOAT),
        Op("matmul_1d_2d", lambda m, x, y: m.matmul(x, y), matmul_samples(((3,), (3, 2))), dtypes=INT_FLOAT),
        Op("matmul_2d_2d", lambda m, x, y: x @ y, matmul_samples(((2, 3), (3, 2))), dtypes=INT_FLOAT,
           errors=(MM_DIMS_ERR, Err((arr(2, 3), arr(3, 2, dtype="float64")), note="dtypes differ"),
                   Err((arr(3), arr()), note="0-d operand"))),
        Op("matmul_batched", lambda m, x, y: m.matmul(x, y), matmul_samples(((2, 2, 3), (2, 3, 2))),
           dtypes=INT_FLOAT, errors=(Err((arr(2, 2, 3), arr(2, 2, 3))),)),
        Op("matmul_3d_2d", lambda m, x, y: x @ y, matmul_samples(((2, 2, 3), (3, 2))), dtypes=INT_FLOAT),
        Op("matmul_broadcast", lambda m, x, y: m.matmul(x, y), matmul_samples(((2, 1, 2, 3), (3, 3, 2))),
           dtypes=INT_FLOAT, errors=(Err((arr(2, 2, 3), arr(3, 3, 2)), note="batch sizes do not broadcast"),)),
        Op("matmul_1d_3d", lambda m, x, y: m.matmul(x, y), matmul_samples(((3,), (2, 3, 2))), dtypes=INT_FLOAT),
        # PyTorch folds the batch into mm/mv rows when the smaller operand requires grad or the
        # fold needs no copy, and else expands both for bmm (the frozen samples)
        Op("matmul_2d_3d", lambda m, x, y: x @ y,
           lambda make: [Sample((make(2, 3), make(2, 3, 2))), Sample((make(2, 3), make(2, 3, 2)), frozen=(0,))],
           dtypes=INT_FLOAT),
        Op("matmul_3d_1d", lambda m, x, y: x.matmul(y), matmul_samples(((2, 2, 3), (3,))), dtypes=INT_FLOAT),
        Op("matmul_transposed_1d", lambda m, x, y: x.mT @ y,
           lambda make: [Sample((make(2, 3, 2), make(3))), Sample((make(2, 3, 2), make(3)), frozen=(1,))],
           dtypes=INT_FLOAT),
        # a batch of one that requires grad is squeezed to a matrix, which then folds
        Op("matmul_batch_of_one", lambda m, x, y: m.matmul(x, y),
           lambda make: [Sample((make(2, 2, 3), make(1, 3, 2))), Sample((make(1, 2, 3), make(2, 3, 2))),
                         Sample((make(2, 2, 3), make(1, 3, 2)), frozen=(1,))],
           dtypes=INT_FLOAT),
        Op("mm", lambda m, x, y: m.mm(x, y), matmul_samples(((2, 3), (3, 2)), ((0, 3), (3, 2))),
           dtypes=INT_FLOAT, errors=(MM_DIMS_ERR, Err((arr(3), arr(3, 2)), note="1-D input"))),
        Op("mv", lambda m, x, y: x.mv(y), matmul_samples(((2, 3), (3,))), dtypes=INT_FLOAT,
           errors=(Err((arr(2, 3), arr(2))),)),
        Op("bmm", lambda m, x, y: m.bmm(x, y), matmul_samples(((2, 2, 3), (2, 3, 2))), dtypes=INT_FLOAT,
           errors=(Err((arr(2, 3), arr(3, 2)), note="2-D input"),)),
        Op("outer", lambda m, x, y: m.outer(x, y), matmul_samples(((3,), (2,)))),
        Op("addmm", lambda m, b, x, y: m.addmm(b, x, y), addmm_samples, dtypes=INT_FLOAT),
        Op("addmm_scaled", lambda m, b, x, y: m.addmm(b, x, y, beta=2, alpha=3), addmm_samples, dtypes=INT_FLOAT),
    ]


def _shape_rows():
    return [
        Op("cat", lambda m, xs: m.cat(xs), list_samples,
           errors=(Err(([arr(2, 3), arr(3)],), note="ranks differ"), Err(([arr(2, 3), arr(2, 2)],)),
                   Err(([],), note="empty list"))),
        Op("cat_dim", lambda m, x, y: m.cat([x, y], dim=-1), two_of((2, 3), (2, 1))),
        Op("cat_promote", lambda m, x, y: m.cat([x, y.double()]), two_of((2,), (3,))),
        Op("stack", lambda m, xs: m.stack(xs), list_samples, errors=(Err(([arr(2, 3), arr(3, 2)],)),)),
        Op("stack_dim", lambda m, x, y: m.stack((x, y), dim=-1), two_of((2, 3), (2, 3))),
        Op("reshape", lambda m, x: x.reshape(3, -1), samples_of((2, 3), (6,)),
           errors=(Err((arr(2, 3),), call=lambda m, x: x.reshape(4, -1)),
                   Err((arr(2, 3),), call=lambda m, x: x.reshape(-1, -1)))),
        Op("reshape_0d", lambda m, x: m.reshape(x, (1, 1)), samples_of(())),
        Op("reshape_noncontiguous", lambda m, x: x.t().reshape(6), samples_of((2, 3))),
        # non-contiguous but viewable: PyTorch's _reshape_alias (ReshapeAliasBackward0)
        Op("reshape_alias", lambda m, x: x.t().reshape(3, 1, 2), samples_of((2, 3))),
        Op("view", lambda m, x: x.view(-1), samples_of((2, 3), (), (0, 3)),
           errors=(Err((arr(2, 3),), call=lambda m, x: x.view(4)),
                   Err((arr(2, 3),), call=lambda m, x: x.t().view(6), note="view of a transposed tensor"))),
        # the bytes read as another dtype (a view that never requires grad)
        Op("view_dtype", lambda m, x: (x.view(m.int32), x.view(m.uint8)), samples_of((2, 4), (1, 2)), grad=False,
           errors=(Err((arr(2, 3),), call=lambda m, x: x[:, :1].view(m.float64)),
                   Err((arr(2, 3),), call=lambda m, x: x.t().view(m.uint8)))),
        Op("flatten", lambda m, x: m.flatten(x), samples_of((2, 3), (), (2, 0, 3))),
        Op("flatten_dims", lambda m, x: x.flatten(1), samples_of((2, 1, 3)),
           errors=(Err((arr(2, 3, 4),), call=lambda m, x: x.flatten(2, 1)),)),
        Op("squeeze", lambda m, x: x.squeeze(), samples_of((2, 1, 3), (1,), ())),
        Op("squeeze_dim", lambda m, x: m.squeeze(x, 1), samples_of((2, 1, 3), (2, 3)),
           errors=(Err((arr(2, 3),), call=lambda m, x: x.squeeze(2)),)),
        Op("squeeze_dims", lambda m, x: x.squeeze((0, 1)), samples_of((1, 1, 3), (2, 1))),
        Op("unsqueeze", lambda m, x: m.unsqueeze(x, -1), samples_of((2, 3), ()),
           errors=(Err((arr(2, 3),), call=lambda m, x: x.unsqueeze(3)),)),
        Op("transpose", lambda m, x: m.transpose(x, 0, -1), samples_of((2, 3), (2, 1, 3)),
           errors=(Err((arr(2, 3),), call=lambda m, x: x.transpose(0, 2)),)),
        Op("t", lambda m, x: x.t(), samples_of((2, 3), (3,), ()),
           errors=(Err((arr(2, 3, 4),), note="3-D input"),)),
        Op("T", lambda m, x: x.T, samples_of((2, 3))),
        Op("permute", lambda m, x: x.permute(2, 0, 1), samples_of((2, 1, 3)),
           errors=(Err((arr(2, 3),), call=lambda m, x: x.permute(0)),
                   Err((arr(2, 3),), call=lambda m, x: x.permute(0, 0)))),
        Op("expand", lambda m, x: x.expand(2, 3), samples_of((3,), (1, 3)),
           errors=(Err((arr(2, 3),), call=lambda m, x: x.expand(4, 3)),)),
        Op("repeat", lambda m, x: x.repeat(2, 1), samples_of((3,), (2, 3))),
        Op("flip", lambda m, x: m.flip(x, (0,)), samples_of((2, 3))),
        Op("diagonal", lambda m, x: m.diagonal(x), samples_of((3, 3), (2, 3))),
        Op("select", lambda m, x: x.select(1, -1), samples_of((2, 3)),
           errors=(Err((arr(2, 3),), call=lambda m, x: x.select(1, 3)),)),
        Op("narrow", lambda m, x: x.narrow(1, 1, 2), samples_of((2, 3))),
        Op("unbind", lambda m, x: x.unbind(1), samples_of((2, 3))),
        Op("split", lambda m, x: x.split(2, dim=1), samples_of((2, 3))),
        Op("split_sizes", lambda m, x: m.split(x, [1, 2], 1), samples_of((2, 3)),
           errors=(Err((arr(2, 3),), call=lambda m, x: m.split(x, [1, 1], 1)),)),
        Op("chunk", lambda m, x: x.chunk(2), samples_of((3, 2))),
        Op("getitem_int", lambda m, x: x[1], samples_of((2, 3)),
           errors=(Err((arr(2, 3),), call=lambda m, x: x[2]), Err((arr(2, 3),), call=lambda m, x: x[0, 0, 0]))),
        Op("getitem_int_int", lambda m, x: x[0, -1], samples_of((2, 3))),
        Op("getitem_slice", lambda m, x: x[:, 1:], samples_of((2, 3))),
        Op("getitem_step", lambda m, x: x[::2], samples_of((3, 2))),
        Op("getitem_none_ellipsis", lambda m, x: x[None, ..., 0], samples_of((2, 3))),
        Op("getitem_ellipsis", lambda m, x: x[...], samples_of((2, 3))),
        Op("getitem_tensor", lambda m, x, i: x[i], with_index((2, 3), index(1, 0, 1), index(-1))),
        Op("getitem_list", lambda m, x: x[[0, 2]], samples_of((3, 2)),
           errors=(Err((arr(3, 2),), call=lambda m, x: x[[0, 3]]),)),
        Op("getitem_mixed", lambda m, x, i: x[1:, i], with_index((2, 3), index(0, 2))),
        # PyTorch selects the integer first, so this is (3, 2) where numpy gives (2, 3)
        Op("getitem_int_slice_list", lambda m, x: x[0, :, [0, 1]], samples_of((2, 3, 2))),
        Op("getitem_mask", lambda m, x, mask: x[mask], with_index((2, 3), np.array([True, False]),
                                                                    np.array([[True, False, True]] * 2))),
        Op("getitem_gt_mask", lambda m, x: x[x > 0], samples_of((2, 3))),
        Op("where", lambda m, c, x, y: m.where(c, x, y), where_samples,
           errors=(Err((arr(2, 3), arr(2, 3), arr(2, 3)), note="float condition"),)),
        Op("where_scalar", lambda m, x: m.where(x > 0, x, 0.0), unary_samples),
        Op("clamp_tensor", lambda m, x, lo, hi: m.clamp(x, lo, hi), clamp_tensor_samples, dtypes=INT_FLOAT),
        Op("masked_fill", lambda m, x, mask: x.masked_fill(mask, 0.5),
           with_index((2, 3), np.array([True, False, True])),
           errors=(Err((arr(2, 3), arr(3, dtype="int64")), note="integer mask"),)),
        Op("masked_fill_tensor", lambda m, x, v: x.masked_fill(m.tensor([True, False, True]), v), two_of((2, 3), ()),
           errors=(Err((arr(2, 3), arr(2)), note="value is not 0-d"),)),
        Op("masked_fill_tensor_view_", masked_fill_view_, two_of((2, 3), ())),
        Op("setitem_basic", setitem_basic, two_of((2, 3), (2,))),
        Op("setitem_advanced", lambda m, x, v: setitem_advanced(m, x, m.tensor([1, 0]), v), two_of((3, 2), (2,))),
        Op("setitem_mask", setitem_mask, samples_of((2, 3))),
        Op("index_put", lambda m, x, v: x.index_put((m.tensor([0, 2]),), v), two_of((3, 2), (2,))),
        Op("write_through_view", write_through_view, two_of((2, 3), (2,))),
        Op("fill_", fill_, samples_of((2, 3))),
        Op("fill_tensor", lambda m, x, v: x.clone().fill_(v), two_of((2, 3), ()),
           errors=(Err((arr(2, 3), arr(2)), note="value is not 0-d"),)),
        Op("setitem_0d_tensor", setitem_0d_tensor, two_of((3, 2), ())),
        Op("zero_", zero_, samples_of((2, 3))),
        Op("copy_", copy_, two_of((2, 3), (3,))),
        Op("copy_into_plain", copy_into_plain, samples_of((3,))),
        Op("setitem_into_plain", setitem_into_plain, samples_of((3,))),
    ]


# ====================================================================== op breadth (issue #4)
# Rows for the ops of _api/extra_math.py, reductions.py, indexing.py, rearrange.py, products.py
# and linalg.py. Samples are kept to one or two per dtype: compiling dominates the run time.

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
        _e("sgn", lambda m, x: m.sgn(x), unary_samples),
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
           samples_of((2, 5)), dtypes=FLOAT),
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
        _e("einsum_diagonal", lambda m, x: m.einsum("bii->ib", x), samples_of((2, 3, 3))),
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
        _e("pdist", lambda m, x: m.pdist(x), samples_of((4, 3)), dtypes=FLOAT,
           errors=(Err((arr(3),), note="1-D input"), Err((arr(3, 2),), {"p": -1.0}, note="negative p"))),
        _e("pdist_p1", lambda m, x: m.nn.functional.pdist(x, p=1), samples_of((3, 2)), dtypes=FLOAT),
        _e("pdist_p3_one_row", lambda m, x: m.pdist(x, 3), samples_of((1, 2), (5, 2)), dtypes=FLOAT),
        _e("pdist_inf", lambda m, x: m.pdist(x, p=float("inf")), samples_of((3, 2)), dtypes=FLOAT),
        _e("unique", lambda m, x: m.unique(x, return_inverse=True, return_counts=True), mode_samples, grad=False),
        _e("unique_dim", lambda m, x: x.unique(dim=0), lambda make: [Sample((np.array(
            [[1, 2], [1, 2], [0, 5]]).astype(make.dtype),))], grad=False),
        _e("unique_consecutive", lambda m, x: m.unique_consecutive(x, return_counts=True), mode_samples,
           grad=False),
        _e("tril_indices", lambda m, x: m.tril_indices(3, 4, -1), samples_of(()), grad=False),
        _e("triu_indices", lambda m, x: m.triu_indices(4, 3, 1, dtype=m.int32), samples_of(()), grad=False),
        _e("ravel", lambda m, x: m.ravel(x), samples_of((2, 3))),
    ]


def _nn_functional_rows():
    """One row per ``nn.functional`` op family, reaching every op they register; the full
    configuration table is ``tests/test_nn_functional.py``."""
    def f(name, **kw):
        return lambda m, *a: getattr(m.nn.functional, name)(*a, **kw)

    def probs(make, *shape):
        return (make(*shape, domain="unit") * 0.5 + 0.5).astype(make.dtype)

    def inplace_acts(m, x):
        F = m.nn.functional
        return (F.leaky_relu(x * 1, inplace=True), F.elu(x * 1, inplace=True), F.celu(x * 1, inplace=True),
                F.threshold(x * 1, 0.5, -1.0, inplace=True))

    def pads(m, x):
        F = m.nn.functional
        return tuple(F.pad(y, p, mode=mode) for mode in ("constant", "reflect", "replicate")
                     for y, p in ((x[0, 0], (1, 1)), (x[0], (1, 0, 0, 1)), (x, (1, 1, 0, 1, 1, 0))))

    def resize(m, x):
        F = m.nn.functional
        out = []
        for mode in ("nearest", "nearest-exact"):
            out += [F.interpolate(y, scale_factor=1.5, mode=mode) for y in (x[0, 0], x[0], x)]
        return tuple(out) + (F.interpolate(x[0, 0], size=3, mode="linear"),
                             F.interpolate(x[0], size=(3, 3), mode="bilinear"),
                             F.interpolate(x[0], size=(3, 3), mode="bicubic"),
                             F.interpolate(x, size=3, mode="trilinear", align_corners=True))

    def pools(m, x):
        F = m.nn.functional
        return (F.max_pool2d(x, 2, return_indices=True), F.avg_pool2d(x, 2, padding=1),
                F.adaptive_avg_pool2d(x, (2, 1)), F.adaptive_max_pool2d(x, 2, return_indices=True))

    def pools3d(m, x):
        F = m.nn.functional
        return (F.max_pool3d(x, 2), F.avg_pool3d(x, 2), F.adaptive_avg_pool3d(x, 2), F.adaptive_max_pool3d(x, 2))

    def regression(m, x, t):
        F = m.nn.functional
        return F.mse_loss(x, t), F.smooth_l1_loss(x, t, beta=0.5), F.huber_loss(x, t, reduction="none")

    def classification(m, x, t, x4, t4):
        F = m.nn.functional
        return F.cross_entropy(x, t, label_smoothing=0.1), F.nll_loss(x4, t4)

    def binary(m, p, t, x):
        F = m.nn.functional
        pos_weight = m.full((3,), 2.0, dtype=x.dtype)
        return F.binary_cross_entropy(p, t), F.binary_cross_entropy_with_logits(x, t, pos_weight=pos_weight)

    def distances(m, a, b, t, p):
        F = m.nn.functional
        return (F.pairwise_distance(a, b), F.cosine_embedding_loss(a, b, t), F.normalize(a),
                F.cross_entropy(a, p), F.kl_div(F.log_softmax(a, 1), p, reduction="batchmean"))

    def attention(m, q, k, v):
        F = m.nn.functional
        return F.scaled_dot_product_attention(q, k, v), F.scaled_dot_product_attention(q[0], k[0], v[0])

    def embeddings(m, w):
        F = m.nn.functional
        return F.embedding(m.tensor([[0, 2], [3, 1]]), w)

    def renorm(m, w):
        return m.nn.functional.embedding(m.tensor([0, 2]), w, max_norm=1.0)

    def shuffles(m, x):
        F = m.nn.functional
        return F.pixel_shuffle(x, 2), F.pixel_unshuffle(x, 2)

    def patches(m, x):
        F = m.nn.functional
        cols = F.unfold(x, 2)
        return cols, F.fold(cols, (3, 4), 2)

    def one(*shape, **kw):
        return lambda make: [Sample((make(*shape),), kw)]

    acts = [Op(f"F.{n}", f(n), one(2, 3), dtypes=FLOAT) for n in
            ("leaky_relu", "elu", "celu", "gelu", "silu", "mish", "softplus", "hardsigmoid", "hardswish",
             "logsigmoid", "hardshrink", "softshrink")]
    acts += [Op(f"F.{n}", f(n, dim=-1), one(2, 4), dtypes=FLOAT) for n in ("glu", "log_softmax", "softmax")]
    return acts + [
        Op("F.relu6", f("relu6"), one(2, 3), dtypes=INT_FLOAT),
        Op("F.threshold", f("threshold", threshold=0.5, value=-1.0), one(2, 3), dtypes=INT_FLOAT),
        Op("F.prelu", lambda m, x, w: m.nn.functional.prelu(x, w), two_of((2, 3, 2), (3,)), dtypes=FLOAT),
        Op("F.inplace_activations", inplace_acts, one(2, 3), dtypes=FLOAT),
        Op("F.linear_bilinear", lambda m, a, b, w: m.nn.functional.bilinear(a, b, w),
           lambda make: [Sample((make(2, 3), make(2, 2), make(4, 3, 2)))], dtypes=INT_FLOAT),
        Op("F.embedding", embeddings, one(4, 3)),
        Op("F.embedding_max_norm", renorm, lambda make: [Sample((make(4, 3),), grad=False)], dtypes=FLOAT),
        Op("F.one_hot", lambda m, i: m.nn.functional.one_hot(i, 4),
           lambda make: [Sample((index(0, 3, 1).astype(make.dtype),))], dtypes=("int64",), grad=False),
        Op("F.batch_norm", lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, training=True),
           lambda make: [Sample((make(3, 2, 2), make(2), make(2)))], dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
        Op("F.layer_norm", lambda m, x, w: m.nn.functional.layer_norm(x, (3,), w), two_of((2, 3), (3,)),
           dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
        Op("F.group_norm", lambda m, x: m.nn.functional.group_norm(x, 2), one(2, 4, 2), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        Op("F.conv2d", lambda m, x, w, b: m.nn.functional.conv2d(x, w, b, padding=1),
           lambda make: [Sample((make(1, 2, 3, 3), make(2, 2, 2, 2), make(2)))], dtypes=INT_FLOAT,
           tol={"float32": (1e-4, 1e-5)}, errors=(Err((arr(1, 2, 3, 3), arr(2, 3, 2, 2))),)),
        Op("F.pools", pools, one(1, 2, 4, 4), dtypes=FLOAT),
        Op("F.pools3d", pools3d, one(1, 1, 2, 4, 4), dtypes=FLOAT),
        Op("F.pad", pads, one(1, 1, 2, 3, 3), dtypes=INT_FLOAT,
           errors=(Err((arr(2, 3),), call=lambda m, x: m.nn.functional.pad(x, (1,))),)),
        Op("F.pad_circular", lambda m, x: m.nn.functional.pad(x, (1, 2), mode="circular"), one(1, 2, 3), dtypes=ALL),
        Op("F.interpolate", resize, one(1, 1, 2, 2, 3), dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
        Op("F.unfold_fold", patches, one(1, 2, 3, 4), dtypes=("bool",) + FLOAT),
        Op("F.pixel_shuffle", shuffles, one(1, 4, 2, 4), dtypes=ALL),
        Op("F.attention", attention, lambda make: [Sample((make(1, 2, 3, 4), make(1, 2, 3, 4), make(1, 2, 3, 4)))],
           dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
        Op("F.regression_losses", regression, two_of((2, 3), (2, 3)), dtypes=FLOAT),
        Op("F.classification_losses", classification,
           lambda make: [Sample((make(3, 4), index(0, 3, 1), make(2, 3, 2, 2),
                                 index(0, 2, 1, 1, 2, 0, 0, 1).reshape(2, 2, 2)))],
           dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
        Op("F.binary_losses", binary, lambda make: [Sample((probs(make, 2, 3), probs(make, 2, 3), make(2, 3)))],
           dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
        Op("F.distances", distances,
           lambda make: [Sample((make(2, 3), make(2, 3), np.array([1.0, -1.0], make.dtype), probs(make, 2, 3)),
                                frozen=(2, 3))],
           dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
    ]


OPS = (_binary_rows() + _unary_rows() + _reduction_rows() + _linalg_rows() + _shape_rows()
       + _breadth_elementwise_rows() + _breadth_reduction_rows() + _breadth_linalg_rows()
       + _breadth_shape_rows() + _nn_functional_rows())
BY_NAME = {row.name: row for row in OPS}
assert len(BY_NAME) == len(OPS), "row names must be unique"

# Registered ops that no row reaches yet (their rows come with the issues that add them). The
# coverage test keeps this set exact: a new op needs a row, and a new row takes its op out.
# ``copy`` and ``copy_slices`` are commit_inplace's fallbacks (a leaf written into a tensor; a
# view written with a value not computed from it), which no public call that records as
# PyTorch does reaches; ``rnn_layer`` (nn.RNN/LSTM/GRU, one op per layer) has no functional
# form, and its node is one StackBackward0 where PyTorch records the per-step cell ops.
PENDING = frozenset({"copy", "copy_slices", "rnn_layer"})


# ====================================================================== gradients at kinks

@dataclass(frozen=True)
class Kink:
    """A gradient at a kink or special point (reference Appendix A), float32 as observed there."""

    name: str
    call: Callable
    inputs: tuple   # lists of floats; all require grad
    expected: tuple  # the gradient of call(...).sum() for each input
    warns: str = None  # part of the UserWarning PyTorch gives (no warning when None)
    tol: tuple = None  # (rtol, atol) where the last bits may differ (exact when None)


INF = float("inf")
NAN = float("nan")

KINKS = [
    Kink("relu_at_0", lambda m, x: m.relu(x), ([-1.0, 0.0, 1.0],), ([0.0, 0.0, 1.0],)),
    Kink("abs_at_0", lambda m, x: x.abs(), ([-1.0, 0.0, 1.0],), ([-1.0, 0.0, 1.0],)),
    Kink("sqrt_at_0", lambda m, x: m.sqrt(x), ([0.0, 4.0],), ([INF, 0.25],)),
    Kink("pow_half_at_0", lambda m, x: x ** 0.5, ([0.0, 4.0],), ([INF, 0.25],)),
    Kink("pow_1_5_at_0", lambda m, x: x ** 1.5, ([0.0],), ([0.0],)),
    Kink("pow_2_at_0", lambda m, x: x ** 2, ([0.0],), ([0.0],)),
    Kink("pow_0_at_0", lambda m, x: x ** 0, ([0.0],), ([0.0],)),
    Kink("log_at_0", lambda m, x: m.log(x), ([0.0],), ([INF],)),
    Kink("reciprocal_at_0", lambda m, x: 1 / x, ([0.0],), ([-INF],)),
    Kink("max_ties", lambda m, x: x.max(), ([1.0, 3.0, 3.0],), ([0.0, 0.5, 0.5],)),
    Kink("min_ties", lambda m, x: x.min(), ([1.0, 1.0, 3.0],), ([0.5, 0.5, 0.0],)),
    Kink("amax_ties", lambda m, x: x.amax(), ([1.0, 3.0, 3.0],), ([0.0, 0.5, 0.5],)),
    Kink("max_dim_ties", lambda m, x: x.max(0).values, ([1.0, 3.0, 3.0],), ([0.0, 1.0, 0.0],)),
    Kink("maximum_tie", lambda m, x, y: m.maximum(x, y), ([2.0], [2.0]), ([0.5], [0.5])),
    Kink("max_binary_tie", lambda m, x, y: m.max(x, y), ([2.0], [2.0]), ([0.5], [0.5])),
    Kink("clamp_bounds", lambda m, x: x.clamp(0, 1), ([-1.0, 0.0, 0.5, 1.0, 2.0],), ([0.0, 1.0, 1.0, 1.0, 0.0],)),
    Kink("sign_grad", lambda m, x: x.sign(), ([-1.0, 0.0, 2.0],), ([0.0, 0.0, 0.0],)),
    Kink("floor_grad", lambda m, x: x.floor(), ([-1.5, 0.0, 2.0],), ([0.0, 0.0, 0.0],)),
    Kink("round_grad", lambda m, x: x.round(), ([-1.5, 0.5, 2.0],), ([0.0, 0.0, 0.0],)),
    Kink("where_sqrt_at_0", lambda m, x: m.where(x > 0, m.sqrt(x), 0.0), ([0.0, 4.0],), ([NAN, 0.25],)),
    Kink("zero_base_pow", lambda m, b, x: b ** x, (0.0, 2.0), (0.0, 0.0)),
    Kink("pow_at_0_0", lambda m, x, y: x ** y, ([0.0], [2.0]), ([0.0], [0.0])),
    Kink("norm_at_0", lambda m, x: x.norm(), ([0.0, 0.0],), ([0.0, 0.0],)),
    Kink("sigmoid_at_0", lambda m, x: m.sigmoid(x), ([0.0],), ([0.25],)),
    Kink("std_of_one", lambda m, x: x.std(), ([1.0],), ([NAN],), warns="std(): degrees of freedom is <= 0"),
]


# ====================================================================== more ops (appended)

def _signs(make, *shape):
    """+-1 targets in the sample's dtype."""
    return np.where(make(*shape, dtype="float64") > 0, 1, -1).astype(make.dtype)


def _more_loss_rows():
    def f(name, **kw):
        return lambda m, *a: getattr(m.nn.functional, name)(*a, **kw)

    def pos(make, *shape):
        return make(*shape, domain="positive")

    def loss_pair(make):
        return [Sample((make(2, 3), _signs(make, 2, 3)), frozen=(1,))]

    mlm_target = index(3, 0, -1, 1, 1, -1, 2, 2).reshape(2, 4)
    return [
        Op("F.poisson_nll_loss", f("poisson_nll_loss"),
           lambda make: [Sample((make(2, 3), pos(make, 2, 3)))], dtypes=INT_FLOAT),
        Op("F.poisson_nll_loss_full", f("poisson_nll_loss", log_input=False, full=True, reduction="none"),
           lambda make: [Sample((pos(make, 2, 3), make(2, 3, domain="above1")))], dtypes=INT_FLOAT),
        Op("F.poisson_nll_loss_sum", f("poisson_nll_loss", log_input=False, reduction="sum"),
           lambda make: [Sample((pos(make, 4), pos(make, 4)), frozen=(1,))], dtypes=INT_FLOAT,
           errors=(Err((arr(3), arr(3)), {"reduction": "avg"}),)),
        Op("F.gaussian_nll_loss", f("gaussian_nll_loss"),
           lambda make: [Sample((make(2, 3), make(2, 3), pos(make, 2, 3)))], dtypes=FLOAT,
           errors=(Err((arr(2, 3), arr(2, 3), arr(3)), note="var of incorrect size"),
                   Err((arr(2, 3), arr(2, 3), -arr(2, 3)), note="negative var"),
                   Err((arr(2, 3), arr(2, 3), arr(2, 3)), {"reduction": "avg"}))),
        Op("F.gaussian_nll_loss_full", f("gaussian_nll_loss", full=True, reduction="sum"),
           lambda make: [Sample((make(2, 3), make(2, 3), pos(make, 2))),
                         Sample((make(2, 3), make(2, 3), pos(make, 2, 1)))], dtypes=FLOAT),
        Op("F.gaussian_nll_loss_float_var", lambda m, x, t: m.nn.functional.gaussian_nll_loss(x, t, 0.5,
                                                                                            reduction="none"),
           two_of((2, 3), (2, 3)), dtypes=INT_FLOAT),
        Op("F.soft_margin_loss", f("soft_margin_loss"), loss_pair, dtypes=FLOAT,
           errors=(Err((arr(3), arr(2, 3)), note="target does not broadcast to input"),
                   Err((arr(3), arr(3)), call=lambda m, x, t: m.nn.functional.soft_margin_loss(
                       x, t.requires_grad_()), note="target requires grad"))),
        Op("F.soft_margin_loss_none", f("soft_margin_loss", reduction="none"),
           lambda make: [Sample((make(2, 3), _signs(make, 3)), frozen=(1,))], dtypes=FLOAT),
        Op("F.hinge_embedding_loss", f("hinge_embedding_loss", margin=0.5), loss_pair, dtypes=FLOAT),
        Op("F.hinge_embedding_loss_none", f("hinge_embedding_loss", reduction="none"), loss_pair, dtypes=INT_FLOAT),
        Op("F.multilabel_margin_loss", f("multilabel_margin_loss"),
           lambda make: [Sample((make(2, 4), mlm_target))], dtypes=FLOAT,
           errors=(Err((arr(2, 4), index(1, 2, 3, 0)), note="target shape"),
                   Err((arr(2, 4), index(1, 2, 3, 4, 0, 1, -1, 0).reshape(2, 4)), note="out of range"),
                   Err((arr(2, 4), arr(2, 4)), note="float target"),
                   Err((arr(1, 2, 4), index(0, 1, 2, 3).reshape(1, 1, 4)), note="3-D input"))),
        Op("F.multilabel_margin_loss_1d", f("multilabel_margin_loss", reduction="none"),
           lambda make: [Sample((make(4), index(2, 1, -1, 0)))], dtypes=FLOAT),
        Op("F.multilabel_soft_margin_loss", f("multilabel_soft_margin_loss"),
           lambda make: [Sample((make(2, 3), (make(2, 3, dtype="float64") > 0).astype(make.dtype)), frozen=(1,))],
           dtypes=FLOAT, errors=(Err((arr(2, 3), arr(2, 3)), {"reduction": "avg"}),)),
        Op("F.multilabel_soft_margin_loss_weight",
           lambda m, x, t, w: m.nn.functional.multilabel_soft_margin_loss(x, t, weight=w, reduction="none"),
           lambda make: [Sample((make(2, 3), make(2, 3, domain="unit"), pos(make, 3)))], dtypes=FLOAT),
        Op("F.multi_margin_loss", f("multi_margin_loss"),
           lambda make: [Sample((make(3, 4), index(1, 3, 0)))], dtypes=FLOAT,
           errors=(Err((arr(3, 4), index(1, 4, 0)), note="target out of range"),
                   Err((arr(3, 4), index(1, 2)), note="target size"),
                   Err((arr(3, 4), arr(3)), note="float target"),
                   Err((arr(3, 4), index(1, 2, 0)), {"p": 3}),
                   Err((arr(3, 4), index(1, 2, 0)), {"weight": arr(3)}, note="weight size"),
                   Err((arr(3, 4), index(1, 2, 0)), {"weight": arr(2, 2)}, note="2-D weight"),
                   Err((arr(3, 4), index(1, 2, 0)), call=lambda m, x, t: m.nn.functional.multi_margin_loss(
                       x, t, weight=m.ones(4, requires_grad=True)), note="weight requires grad"))),
        Op("F.multi_margin_loss_p2_weight",
           lambda m, x, t, w: m.nn.functional.multi_margin_loss(x, t, p=2, margin=0.5, weight=w, reduction="none"),
           lambda make: [Sample((make(3, 4), index(1, 3, 0), pos(make, 4)), frozen=(2,))], dtypes=FLOAT),
        Op("F.multi_margin_loss_1d", f("multi_margin_loss", reduction="none"),
           lambda make: [Sample((make(4), index(2))), Sample((make(4), index(2).reshape(())))], dtypes=FLOAT),
        Op("F.alpha_dropout", lambda m, x: (m.nn.functional.alpha_dropout(x, 1.0, True),
                                            m.nn.functional.alpha_dropout(x, 0.5),
                                            m.nn.functional.feature_alpha_dropout(x, 1.0, True)),
           samples_of((2, 3)), dtypes=ALL,
           errors=(Err((arr(3),), {"p": 1.5}),
                   Err((arr(3),), call=lambda m, x: m.nn.functional.feature_alpha_dropout(x, 0.5, True)))),
    ]


OPS = OPS + _more_loss_rows()
BY_NAME = {row.name: row for row in OPS}
assert len(BY_NAME) == len(OPS), "row names must be unique"


def _quiet(fn):
    """``fn`` with deprecation warnings silenced (torch.cholesky / torch.qr warn)."""
    import warnings

    def call(m, *args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return fn(m, *args, **kwargs)
    return call


def _more_op_rows():
    def special(name, **kw):
        return lambda m, *a: getattr(m.special, name)(*a, **kw)

    def chol_solve(m, b, x):
        return m.cholesky_solve(b, m.linalg.cholesky(spd(m, x))), m.cholesky_solve(b, well(m, x).triu(), upper=True)

    def chol_inverse(m, x):
        return m.cholesky_inverse(m.linalg.cholesky(spd(m, x))), m.cholesky_inverse(well(m, x).triu(), True)

    square = matrix_of((3, 3))
    return [
        Op("softmax_top", lambda m, x: m.softmax(x, 1), samples_of((2, 3)), dtypes=FLOAT),
        Op("log_softmax_method", lambda m, x: x.log_softmax(-1), samples_of((2, 3), (3,)), dtypes=FLOAT),
        Op("softmax_method_dtype", lambda m, x: x.softmax(0, dtype=m.float64), samples_of((2, 3))),
        Op("kthvalue", lambda m, x: m.kthvalue(x, 2, 1), lambda make: [distinct(make, 2, 4)], dtypes=INT_FLOAT,
           errors=(Err((arr(2, 3),), call=lambda m, x: m.kthvalue(x, 4)),
                   Err((arr(2, 3),), call=lambda m, x: m.kthvalue(x, 1, 2)))),
        Op("kthvalue_keepdim", lambda m, x: x.kthvalue(3, 0, keepdim=True), lambda make: [distinct(make, 4, 2)],
           dtypes=INT_FLOAT),
        Op("dist", lambda m, x, y: m.dist(x, y), two_of((2, 3), (3,)), dtypes=FLOAT,
           errors=(BROADCAST_ERR,)),
        Op("dist_p", lambda m, x, y: (x.dist(y, 1), m.dist(x, y, 3), m.dist(x, y, float("inf"))),
           two_of((2, 3), (2, 3)), dtypes=FLOAT),
        Op("dist_p0", lambda m, x, y: m.dist(x, y, 0), two_of((2, 3), (2, 3)), dtypes=FLOAT, grad=False),
        Op("renorm", lambda m, x: m.renorm(x, 2, 0, 1.5), samples_of((3, 4)), dtypes=FLOAT,
           errors=(Err((arr(3, 4),), call=lambda m, x: m.renorm(x, 0, 0, 1.0)),
                   Err((arr(3, 4),), call=lambda m, x: m.renorm(x, 2, 0, -1.0)),
                   Err((arr(3),), call=lambda m, x: m.renorm(x, 2, 0, 1.0)))),
        Op("renorm_p1_dim1", lambda m, x: x.renorm(1, 1, 2.0), samples_of((3, 2, 2)), dtypes=FLOAT),
        Op("hsplit", lambda m, x: m.hsplit(x, 2), samples_of((3, 4)),
           errors=(Err((arr(3, 3),), {}, call=lambda m, x: m.hsplit(x, 2)),
                   Err((arr(),), call=lambda m, x: m.hsplit(x, 1)))),
        Op("hsplit_1d_indices", lambda m, x: x.hsplit([1, 3]), samples_of((5,))),
        Op("vsplit", lambda m, x: m.vsplit(x, [1]), samples_of((3, 2)),
           errors=(Err((arr(3),), call=lambda m, x: m.vsplit(x, 1)),)),
        Op("dsplit", lambda m, x: x.dsplit(2), samples_of((1, 2, 4)),
           errors=(Err((arr(2, 4),), call=lambda m, x: m.dsplit(x, 2)),)),
        Op("select_scatter", lambda m, x, s: m.select_scatter(x, s, 0, -1), two_of((2, 3), (3,)),
           errors=(Err((arr(2, 3), arr(2))),
                   Err((arr(2, 3), arr(3)), call=lambda m, x, s: m.select_scatter(x, s, 0, 2)))),
        Op("slice_scatter", lambda m, x, s: x.slice_scatter(s, 1, 0, 4, 2), two_of((2, 4), (2, 2)),
           errors=(Err((arr(2, 4), arr(2, 3))),)),
        Op("slice_scatter_default", lambda m, x, s: m.slice_scatter(x, s, start=1), two_of((3, 2), (2, 2))),
        Op("diagonal_scatter", lambda m, x, s: m.diagonal_scatter(x, s), two_of((3, 4), (3,)),
           errors=(Err((arr(3, 4), arr(4))),)),
        Op("diagonal_scatter_offset", lambda m, x, s: x.diagonal_scatter(s, -1, 1, 2), two_of((2, 3, 3), (2, 2))),
        Op("cholesky_legacy", _quiet(lambda m, x: (m.cholesky(spd(m, x)), spd(m, x).cholesky(upper=True))),
           square, dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)},
           errors=(Err((arr(2, 3),), call=_quiet(lambda m, x: m.cholesky(x))),
                   Err((arr(2, 2),), call=_quiet(lambda m, x: m.cholesky(-x))))),
        Op("cholesky_solve", chol_solve, lambda make: [Sample((make(3, 2), make(3, 3)))], dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)},
           errors=(Err((arr(3, 2), arr(2, 2)), call=lambda m, b, a: m.cholesky_solve(b, a), note="sizes"),
                   Err((arr(3), arr(3, 3)), call=lambda m, b, a: m.cholesky_solve(b, a), note="1-D b"),
                   Err((arr(3, 2), arr(3, 3, dtype="float64")), call=lambda m, b, a: m.cholesky_solve(b, a)))),
        Op("cholesky_inverse", chol_inverse, square, dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)},
           errors=(Err((arr(2, 3),), call=lambda m, x: m.cholesky_inverse(x)),
                   Err((arr(3),), call=lambda m, x: m.cholesky_inverse(x)))),
        Op("svd_legacy", lambda m, x: m.svd(x), matrix_of((3, 2)), dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
        Op("svd_legacy_full", lambda m, x: x.svd(some=False).S, matrix_of((2, 3)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        Op("svd_legacy_no_uv", lambda m, x: m.svd(x, compute_uv=False), matrix_of((2, 3)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        Op("qr_legacy", _quiet(lambda m, x: (m.qr(x), x[:2].qr(some=False))), matrix_of((3, 2)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        Op("sum_to_size", lambda m, x: (x.sum_to_size(1, 3), x.sum_to_size((3,)), x.sum_to_size(2, 3)),
           samples_of((2, 3)), errors=(Err((arr(2, 3),), call=lambda m, x: x.sum_to_size(2)),)),
        Op("special.aliases", lambda m, x: (m.special.expit(x), m.special.erf(x), m.special.erfc(x),
                                            m.special.exp2(x), m.special.expm1(x), m.special.sinc(x),
                                            m.special.round(x), m.special.logsumexp(x, 1),
                                            m.special.softmax(x, 1), m.special.log_softmax(x, 0)),
           samples_of((2, 3)), dtypes=FLOAT),
        Op("special.gamma_aliases", lambda m, x: (m.special.gammaln(x), m.special.digamma(x), m.special.psi(x),
                                                  m.special.polygamma(1, x), m.special.multigammaln(x + 1, 2),
                                                  m.special.i0(x), m.special.log1p(x), m.special.logit(x / 3),
                                                  m.special.erfinv(x / 3)),
           samples_of((2, 3)), domain="positive", tol={"float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}),
        Op("special.xlogy", lambda m, x, y: m.special.xlogy(x, y), two_of((2, 3), (3,)), domain="positive"),
        Op("special.entr", special("entr"), samples_of((2, 3), ()), domain="positive"),
        Op("special.entr_special_points", special("entr"),
           lambda make: [Sample((np.array([-1.0, 0.0, 0.5, 2.0]).astype(make.dtype),), grad=False)]),
        Op("special.ndtr", special("ndtr"), samples_of((2, 3))),
        Op("special.ndtri", special("ndtri"),
           lambda make: [Sample(((make(2, 3, domain="unit") * 0.5 + 0.5).astype(make.dtype),))],
           tol={"float32": (1e-4, 1e-5)}),
        Op("special.log_ndtr", special("log_ndtr"), samples_of((2, 3))),
        Op("special.i0e", special("i0e"), samples_of((2, 3))),
        Op("special.i1", special("i1"), samples_of((2, 3))),
        Op("special.i1e", special("i1e"), samples_of((2, 3))),
        Op("special.erfcx", special("erfcx"), samples_of((2, 3)), tol={"float32": (1e-4, 1e-5)}),
        Op("special.xlog1py", lambda m, x, y: m.special.xlog1py(x, y), two_of((2, 3), (3,)), domain="positive"),
        Op("special.xlog1py_scalars", lambda m, x: (m.special.xlog1py(2.0, x), m.special.xlog1py(x, 0.5)),
           samples_of((2, 3)), domain="positive"),
    ]


OPS = OPS + _more_op_rows()
BY_NAME = {row.name: row for row in OPS}
assert len(BY_NAME) == len(OPS), "row names must be unique"


# ---------------------------------------------------------------------- statistics, integration, ...
# cov/corrcoef, trapezoid, vander, gradient, put, frexp, histogram, isin, unfold, new_*, and the
# activations at the top level (_api/more_ops.py)

def _increasing(make, n):
    """``n`` strictly increasing sample points (distinct, so differences never vanish)."""
    steps = make(n, domain="positive")
    return np.cumsum(steps.astype(np.float64)).astype(make.dtype)


def _tensor_more_rows():
    fw = [1, 2, 1, 3]

    def cov_weighted(m, x, w):
        f = m.tensor(fw)
        return m.cov(x, fweights=f, aweights=w), m.cov(x, fweights=f, aweights=w, correction=0)

    def isin_samples(make):
        x = make(2, 3)
        return [Sample((x, np.concatenate([x.reshape(-1)[:2], make(3)])), grad=False)]

    def coords(make):
        return [Sample((make(3, 4), _increasing(make, 3), _increasing(make, 4)))]

    def histogram_options(m, x, e, w):
        return (m.histogram(x, e), m.histogram(x, 3, range=(-1.0, 1.5), weight=w),
                x.histogram(4, density=True), m.histogram(x, 2, range=(0.5, 0.5)))

    def hist_samples(make):
        edges = np.array([-2.0, -0.5, 0.0, 1.0, 2.5]).astype(make.dtype)
        return [Sample((make(2, 5), edges, make(2, 5, domain="positive")), grad=False)]

    def histogramdd_options(m, x, e0, e1, w):
        return (m.histogramdd(x, [e0, e1]), m.histogramdd(x, (2, 3), range=(-1.0, 1.5, -2.0, 2.0), weight=w),
                m.histogramdd(x, 4, density=True), m.histogramdd(x.reshape(2, 3, 2), [2, 1], weight=w.reshape(2, 3)))

    def histogramdd_samples(make):
        e0 = np.array([-2.0, -0.5, 0.0, 1.0, 2.5]).astype(make.dtype)
        e1 = np.array([-1.0, 0.5, 3.0]).astype(make.dtype)
        return [Sample((make(6, 2), e0, e1, make(6, domain="positive")), grad=False)]

    def frexp_samples(make):
        special = np.array([0.0, -3.5, 8.0, 0.375, 1e-3, -1.0]).astype(make.dtype)
        return _first([Sample((make(2, 3),)), Sample((make(),)),
                       Sample((special,), grad=False)], make)

    trap_err = (Err((arr(),), note="0-d y"),
                Err((arr(3),), {"dx": True}, note="bool dx"),
                Err((arr(2, 3),), call=lambda m, y: m.trapezoid(y, y[0], dx=1.0), note="x and dx"),
                Err((arr(2, 3),), call=lambda m, y: m.trapezoid(y, 2.0), note="number as x"))
    put_err = (Err((arr(2, 3), arr(2)), call=lambda m, x, s: x.put(m.tensor([0.0, 1.0]), s), note="float index"),
               Err((arr(2, 3), arr(2)), call=lambda m, x, s: x.put(m.tensor([0, 1], dtype=m.int32), s)),
               Err((arr(2, 3), arr(2, dtype="float64")), call=lambda m, x, s: x.put(m.tensor([0, 1]), s)),
               Err((arr(2, 3), arr(3)), call=lambda m, x, s: x.put(m.tensor([0, 1]), s), note="numel differs"),
               Err((arr(2, 3), arr(2)), call=lambda m, x, s: x.put(m.tensor([0, 6]), s), note="out of range"),
               Err((arr(2, 3), arr(2)), call=lambda m, x, s: x.put(m.tensor([-7, 0]), s), note="out of range"),
               Err((arr(0), arr(1)), call=lambda m, x, s: x.put(m.tensor([0]), s), note="empty self"))
    return [
        Op("cov", lambda m, x: m.cov(x), samples_of((2, 4), (4,), (3, 2)), dtypes=INT_FLOAT,
           errors=(Err((arr(2, 2, 2),)), Err((arr(2, 3),), {"correction": 1.5}))),
        Op("cov_correction", lambda m, x: (x.cov(correction=0), m.cov(x, correction=2)), samples_of((3, 5)),
           dtypes=INT_FLOAT),
        Op("cov_fweights", lambda m, x: (m.cov(x, fweights=m.tensor(fw)), m.cov(x, fweights=m.tensor(fw),
                                                                              correction=0)),
           samples_of((2, 4), (4,)), dtypes=INT_FLOAT,
           errors=(Err((arr(2, 4), arr(4)), call=lambda m, x, f: m.cov(x, fweights=f), note="float fweights"),
                   Err((arr(2, 4),), call=lambda m, x: m.cov(x, fweights=-m.tensor(fw)), note="negative"),
                   Err((arr(2, 4),), call=lambda m, x: m.cov(x, fweights=m.tensor(fw[:3])), note="numel"),
                   Err((arr(2, 4),), call=lambda m, x: m.cov(x, fweights=m.tensor([fw])), note="2-D"),
                   Err((arr(2, 4),), call=lambda m, x: m.cov(x, fweights=m.zeros(4, dtype=m.int64)),
                       note="weights sum to zero"))),
        Op("cov_aweights", lambda m, x, w: m.cov(x, aweights=w),
           lambda make: [Sample((make(2, 4), make(4, domain="positive"))),
                         Sample((make(4), make(4, domain="positive")))],
           dtypes=FLOAT,
           errors=(Err((arr(2, 4),), call=lambda m, x: m.cov(x, aweights=m.tensor(fw)), note="integer aweights"),
                   Err((arr(2, 4), arr(4)), call=lambda m, x, w: m.cov(x, aweights=-w), note="negative"),
                   Err((arr(2, 4), arr(3)), call=lambda m, x, w: m.cov(x, aweights=w), note="numel"))),
        Op("cov_weighted", cov_weighted,
           lambda make: [Sample((make(3, 4), make(4, domain="positive")))], dtypes=FLOAT),
        Op("corrcoef", lambda m, x: (m.corrcoef(x), x.corrcoef()), samples_of((3, 5), (5,)), dtypes=INT_FLOAT,
           errors=(Err((arr(2, 2, 2),)),)),
        Op("trapezoid", lambda m, y: (m.trapezoid(y), m.trapz(y, dim=0), m.trapezoid(y, dx=0.5),
                                      m.trapz(y, dx=2)),
           samples_of((3, 4), (4,)), dtypes=INT_FLOAT, errors=trap_err),
        Op("trapezoid_x", lambda m, y, x: (m.trapezoid(y, x), m.trapz(y, x), m.cumulative_trapezoid(y, x)),
           lambda make: _first([Sample((make(2, 4), _increasing(make, 4))), Sample((make(2, 4), make(2, 4))),
                                Sample((make(2, 3, 4), make(3, 4)))], make),
           dtypes=INT_FLOAT,
           errors=(Err((arr(2, 3), arr(2))), Err((arr(2, 3), arr(3, dtype="bool"))),
                   Err((arr(2, 3), arr(2)), call=lambda m, y, x: m.cumulative_trapezoid(y, x)),
                   Err((arr(2, 3), arr(3, dtype="bool")), call=lambda m, y, x: m.cumulative_trapezoid(y, x)))),
        Op("trapezoid_x_dim0", lambda m, y, x: (m.trapezoid(y, x, dim=0), m.cumulative_trapezoid(y, x, dim=0)),
           two_of((3, 2), (3,)), dtypes=INT_FLOAT),
        Op("trapezoid_empty", lambda m, y: (m.trapezoid(y), m.cumulative_trapezoid(y)), samples_of((2, 0)),
           dtypes=INT_FLOAT, grad=False),
        Op("cumulative_trapezoid", lambda m, y: (m.cumulative_trapezoid(y), m.cumulative_trapezoid(y, dx=2, dim=0),
                                                 m.cumulative_trapezoid(y, dx=0.5)),
           samples_of((3, 4), (4,)), dtypes=INT_FLOAT,
           errors=(Err((arr(3),), {"dx": True}, call=lambda m, y, dx: m.cumulative_trapezoid(y, dx=dx)),)),
        Op("vander", lambda m, x: (m.vander(x), m.vander(x, 2, True), m.vander(x, N=4)), samples_of((3,)),
           grad=False,     # PyTorch's own vander backward raises (the Err row below checks ours does too)
           errors=(Err((arr(2, 2),)), Err((arr(),)), Err((arr(3),), {"N": -1}),
                   Err((arr(3),), call=lambda m, x: m.vander(x.requires_grad_()).sum().backward(),
                       note="the backward raises, as PyTorch's"))),
        Op("vander_small", lambda m, x: (m.vander(x, 1), m.vander(x, 0, True)), samples_of((3,)), grad=False),
        Op("linalg.vander", lambda m, x: m.linalg.vander(x), samples_of((3,), (2, 3)), dtypes=INT_FLOAT,
           errors=(Err((arr(3),), {"N": 1}), Err((arr(3, dtype="float64").astype("float16"),)))),
        Op("linalg.vander_N", lambda m, x: (m.linalg.vander(x, N=4), m.linalg.vander(x[0], N=3)),
           samples_of((2,)), dtypes=INT_FLOAT, errors=(Err((arr(),)),)),
        Op("gradient", lambda m, x: m.gradient(x), samples_of((3, 4), (5,)), dtypes=INT_FLOAT,
           errors=(Err((arr(3, 4),), {"edge_order": 3}),
                   Err((arr(3, 4),), {"dim": (1, 1)}),
                   Err((arr(3, 4),), {"dim": 2}),
                   Err((arr(3, 4),), {"spacing": [1.0, 2.0, 3.0]}),
                   Err((arr(3, 4),), {"spacing": [2.0], "dim": [0, 1]}),
                   Err((arr(2, 4),), {"edge_order": 2}),
                   Err((arr(1),)))),
        Op("gradient_spacing", lambda m, x: (m.gradient(x, spacing=2.0, dim=1, edge_order=2),
                                             m.gradient(x, spacing=[0.5, 2]), m.gradient(x, dim=[0]),
                                             m.gradient(x, spacing=3, dim=[-1, 0])),
           samples_of((3, 4)), dtypes=INT_FLOAT),
        Op("gradient_coords", lambda m, x, c0, c1: (m.gradient(x, spacing=[c0, c1]),
                                                    m.gradient(x, spacing=(c1,), dim=1, edge_order=2)),
           coords, dtypes=INT_FLOAT, tol={"float32": (1e-4, 1e-5)},
           errors=(Err((arr(3, 4), arr(1, 4)), call=lambda m, x, c: m.gradient(x, spacing=[c], dim=1)),)),
        Op("put", lambda m, x, s: (m.put(x, m.tensor([0, 4, -1]), s), x.put(m.tensor([[1, 1, -6]]), s,
                                                                             accumulate=True)),
           two_of((2, 3), (3,)), errors=put_err),
        Op("put_", lambda m, x, s: x.clone().put_(m.tensor([1, -2]), s), two_of((2, 3), (2,))),
        Op("frexp", lambda m, x: m.frexp(x), frexp_samples, dtypes=FLOAT),
        Op("frexp_method", lambda m, x: x.frexp().mantissa * 2, samples_of((2, 3)), dtypes=FLOAT),
        Op("histogram", lambda m, x: m.histogram(x, 4), samples_of((2, 5)), dtypes=FLOAT, grad=False,
           errors=(Err((arr(3),), call=lambda m, x: m.histogram(x, 0)),
                   Err((arr(3),), call=lambda m, x: m.histogram(x, 3, range=(3.0, 1.0))),
                   Err((arr(3), arr(1, 3)), call=lambda m, x, e: m.histogram(x, e), note="2-D bins"),
                   Err((arr(3), arr(3, dtype="float64")), call=lambda m, x, e: m.histogram(x, e), note="bins dtype"),
                   Err((arr(3), arr(1)), call=lambda m, x, e: m.histogram(x, e), note="one edge"),
                   Err((arr(3), arr(2)), call=lambda m, x, w: m.histogram(x, 2, weight=w), note="weight shape"),
                   Err((arr(3), arr(3, dtype="float64")), call=lambda m, x, w: m.histogram(x, 2, weight=w)),
                   Err((np.array([1.0, np.nan], np.float32),), call=lambda m, x: m.histogram(x, 2),
                       note="range not finite"))),
        Op("histogram_options", histogram_options, hist_samples, dtypes=FLOAT, grad=False),
        Op("histogram_flat", lambda m, x: (m.histogram(x, 2), m.histogram(x[:0], 2)),
           lambda make: [Sample((np.ones((2, 2), make.dtype),), grad=False)], dtypes=FLOAT, grad=False),
        Op("histogramdd", histogramdd_options, histogramdd_samples, dtypes=FLOAT, grad=False,
           errors=(Err((arr(3),), call=lambda m, x: m.histogramdd(x, 3), note="1-D input"),
                   Err((arr(3, 2),), call=lambda m, x: m.histogramdd(x, [3]), note="bins per dim"),
                   Err((arr(3, 2),), call=lambda m, x: m.histogramdd(x, 3, range=(0.0, 1.0)), note="range length"),
                   Err((arr(3, 2), arr(2)), call=lambda m, x, w: m.histogramdd(x, 2, weight=w),
                       note="weight shape"))),
        Op("isin", lambda m, x, y: (m.isin(x, y), m.isin(x, y, invert=True), m.isin(x, 1),
                                    m.isin(1, y), m.isin(x, y, assume_unique=True)),
           isin_samples, dtypes=INT_FLOAT, grad=False,
           errors=(Err((), call=lambda m: m.isin(2, 3), note="no tensor"),
                   Err((index(1, 2), arr(2, dtype="bool")), note="bool test elements"))),
        Op("unfold", lambda m, x: (x.unfold(1, 2, 1), x.unfold(0, 2, 1), x.unfold(-1, 2, 2), x.unfold(1, 0, 3),
                                   x.unfold(1, 2, 1).reshape(-1), x.unfold(0, 3, 1).stride()),
           samples_of((3, 4)),
           errors=(Err((arr(3, 4),), call=lambda m, x: x.unfold(1, 5, 1)),
                   Err((arr(3, 4),), call=lambda m, x: x.unfold(1, 2, 0)),
                   Err((arr(3, 4),), call=lambda m, x: x.unfold(1, -1, 1)),
                   Err((arr(3, 4),), call=lambda m, x: x.unfold(2, 1, 1)),
                   Err((arr(),), call=lambda m, x: x.unfold(0, 2, 1)))),
        Op("unfold_0d", lambda m, x: (x.unfold(0, 1, 1), x.unfold(-1, 0, 2)), samples_of(())),
        Op("unfold_write", lambda m, x, v: _unfold_write(m, x, v), two_of((2, 4), (2, 2))),
        Op("new_factories", lambda m, x: (x.new_zeros(2, 3), x.new_ones((2,)), x.new_full((2,), 3),
                                          x.new_full([1], 2.5), x.new_empty(2).fill_(1), x.new_tensor([1, 2]),
                                          x.new_tensor(3), x.new_zeros([2], dtype=m.int64),
                                          x.new_ones(1, dtype=m.float64, device="cpu")),
           samples_of((2,)), grad=False,
           errors=(Err((arr(2),), call=lambda m, x: x.new_full(2, 1.0)),
                   Err((arr(2),), call=lambda m, x: x.new_zeros(-1)),
                   Err((index(1),), call=lambda m, x: x.new_ones(2, requires_grad=True)))),
        Op("new_requires_grad", lambda m, x: (x.new_ones(2, requires_grad=True), x.new_tensor([1.5],
                                                                                              requires_grad=True)),
           samples_of((2,)), dtypes=FLOAT, grad=False),
        Op("top_activations", lambda m, x: (m.selu(x), m.celu(x, 0.5), m.threshold(x, 0.5, -1.0), m.rrelu(x),
                                            m.rrelu(x, 0.1, 0.2), m.dropout(x, 0.3, False), m.prelu(x, x[0])),
           samples_of((2, 3)), dtypes=FLOAT,
           errors=(Err((arr(2, 3),), call=lambda m, x: m.celu(x, 0.0)),
                   Err((arr(2, 3),), call=lambda m, x: m.rrelu(x, 0.3, 0.1)),
                   Err((arr(2, 3),), call=lambda m, x: m.prelu(x, x[0, :2])),
                   Err((arr(2, 3),), call=lambda m, x: m.dropout(x, 1.5, False)),
                   Err((arr(2, 3),), call=lambda m, x: m.dropout(x, 0.5)))),
        Op("top_threshold", lambda m, x: m.threshold(x, 1, 5), samples_of((2, 3)), dtypes=INT_FLOAT),
        Op("top_dropout", lambda m, x: (m.dropout(x, 0.0, True), m.dropout(x, 1.0, True)), samples_of((2, 3)),
           dtypes=ALL),
        Op("top_activations_", lambda m, x: (m.selu_(x.clone()), m.celu_(x.clone(), 2.0),
                                             m.threshold_(x.clone(), 0.5, 0.0), m.rrelu_(x.clone()),
                                             m.dropout_(x.clone(), 0.5, False)),
           samples_of((2, 3)), dtypes=FLOAT),
        Op("rrelu_training", lambda m, x: (m.rrelu(x, 0.2, 0.2, training=True),
                                           m.nn.functional.rrelu(x, 0.3, 0.3, True),
                                           m.nn.functional.rrelu_(x.clone(), 0.25, 0.25, True),
                                           m.nn.functional.rrelu(x.abs(), training=True)),
           samples_of((2, 3)), dtypes=FLOAT,
           errors=(Err((index(1, 2),), call=lambda m, x: m.nn.functional.rrelu(x)),)),
        # random slopes: only their range can be compared
        Op("rrelu_training_range", lambda m, x: _slopes_within(m.rrelu(-x.abs(), 0.1, 0.3, training=True) / -x.abs(),
                                                               0.1, 0.3),
           samples_of((4, 5)), dtypes=FLOAT, grad=False),
        Op("nn.RReLU", lambda m, x: (m.nn.RReLU(0.2, 0.2)(x), m.nn.RReLU().eval()(x),
                                     m.nn.RReLU(inplace=True).eval()(x.clone())),
           samples_of((2, 3)), dtypes=FLOAT),
    ]


def _slopes_within(slopes, lower, upper):
    return ((slopes >= lower - 1e-6) & (slopes <= upper + 1e-6)).all(), (slopes.std() > 0.01)


def _unfold_write(m, x, v):
    """Writing through a (non-overlapping) unfold view reaches the base."""
    y = x.clone()
    y.unfold(1, 2, 2)[:, 1].mul_(v)
    return y


OPS = OPS + _tensor_more_rows()
BY_NAME = {row.name: row for row in OPS}
assert len(BY_NAME) == len(OPS), "row names must be unique"


# ====================================================================== from test_ops_breadth.py
# The hand-written breadth tests, as rows: gradients at ties and kinks (KINKS, with PyTorch's
# gradients as literals so they run without it), host-sized outputs, in-place twins on a
# non-leaf with their version counts, rejected in-place writes, dtype conversions, SVD
# invariants, index lists and searchsorted's options.

BREADTH_KINKS = [
    Kink("fmax_tie_to_input", lambda m, x, y: m.fmax(x, y), ([1.0, 2.0, 3.0], [1.0, 5.0, 3.0]),
         ([1.0, 0.0, 1.0], [0.0, 1.0, 0.0])),
    Kink("fmin_nan_other", lambda m, x, y: m.fmin(x, y), ([1.0, 2.0], [NAN, 1.0]), ([1.0, 0.0], [0.0, 1.0])),
    Kink("median_ties_shared", lambda m, x: x.median(), ([2.0, 2.0, 2.0, 3.0],), ([1 / 3, 1 / 3, 1 / 3, 0.0],)),
    Kink("median_lower", lambda m, x: m.median(x), ([1.0, 2.0, 3.0, 4.0],), ([0.0, 1.0, 0.0, 0.0],)),
    Kink("nanmedian_skips_nan", lambda m, x: x.nanmedian(), ([1.0, NAN, 3.0, 2.0],), ([0.0, 0.0, 0.0, 1.0],)),
    Kink("topk_tie_first_index", lambda m, x: x.topk(1).values, ([3.0, 1.0, 3.0],), ([1.0, 0.0, 0.0],)),
    Kink("aminmax_ties", lambda m, x: m.stack(m.aminmax(x)), ([1.0, 3.0, 3.0, 1.0],), ([0.5, 0.5, 0.5, 0.5],)),
    Kink("cummax_latest_index", lambda m, x: x.cummax(0).values, ([1.0, 3.0, 3.0, 2.0],),
         ([1.0, 1.0, 2.0, 0.0],)),
    Kink("cummin_latest_index", lambda m, x: m.cummin(x, 0).values, ([3.0, 1.0, 1.0, 2.0],),
         ([1.0, 1.0, 2.0, 0.0],)),
    Kink("copysign_at_zero", lambda m, x: m.copysign(x, -1.0), ([0.0, 2.0, -1.0],), ([0.0, -1.0, 1.0],)),
    Kink("xlogy_zero_x", lambda m, x, y: m.xlogy(x, y), ([0.0, 2.0], [0.0, 3.0]),
         ([0.0, np.log(3.0)], [NAN, 2 / 3])),
    Kink("logit_eps_bounds", lambda m, x: m.logit(x, eps=0.25), ([0.25, 0.75, 0.1, 0.5],),
         ([16 / 3, 16 / 3, 0.0, 4.0],)),
    # x inside [lo, hi] -> x; below lo -> lo; above hi -> hi (bounds inclusive for x); lo > hi -> hi
    Kink("clamp_tensor_bounds", lambda m, x, lo, hi: m.clamp(x, lo, hi),
         ([0.0, 1.0, -1.0, 2.0, 0.5], [0.0, 0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0, 0.0]),
         ([1.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 1.0])),
    Kink("clamp_equal_bounds", lambda m, x, lo, hi: m.clamp(x, lo, hi), ([-1.0, 2.0], [0.5, 0.5], [0.5, 0.5]),
         ([0.0, 0.0], [0.0, 0.0], [0.0, 1.0])),
    Kink("clamp_min_tensor_tie", lambda m, x, y: m.clamp_min(x, y), ([1.0, 2.0], [1.0, 3.0]),
         ([1.0, 0.0], [0.0, 1.0])),
    Kink("nan_to_num_replaced", lambda m, x: m.nan_to_num(x, posinf=1.0), ([NAN, INF, 2.0],), ([0.0, 0.0, 1.0],)),
    Kink("hypot_at_zero", lambda m, x, y: m.hypot(x, y), ([0.0, 3.0], [0.0, 4.0]), ([NAN, 0.6], [NAN, 0.8])),
    Kink("pdist_equal_rows", lambda m, x: m.pdist(x), ([[0.0, 0.0], [0.0, 0.0], [1.0, 2.0]],),
         ([[-0.4472135954999579, -0.8944271909999159], [-0.4472135954999579, -0.8944271909999159],
           [0.8944271909999159, 1.7888543819998317]],)),
    Kink("cdist_zero_distance", lambda m, x, y: m.cdist(x, y), ([[0.0, 1.0]], [[0.0, 1.0]]),
         ([[0.0, 0.0]], [[0.0, 0.0]])),
    Kink("fmod_at_multiple", lambda m, x, y: m.fmod(x, y), ([3.0, -4.5], [1.5, 1.5]), ([1.0, 1.0], [-2.0, 3.0])),
    Kink("sinc_at_zero", lambda m, x: m.sinc(x), ([0.0, 0.5],), ([0.0, -1.2732396125793457],)),
    Kink("scatter_amax_ties", lambda m, x, s: m.scatter_reduce(x, 0, m.tensor([0, 0, 2]), s, "amax"),
         ([3.0, 2.0, 3.0], [3.0, 3.0, 1.0]), ([1 / 3, 1.0, 1.0], [1 / 3, 1 / 3, 0.0])),
    Kink("scatter_prod_zero", lambda m, x, s: m.scatter_reduce(x, 0, m.tensor([0, 0, 1]), s, "prod"),
         ([2.0, 0.0, 1.0], [0.0, 3.0, 4.0]), ([0.0, 4.0, 1.0], [6.0, 0.0, 0.0])),
    Kink("scatter_overwrites", lambda m, x, s: m.scatter(x, 0, m.tensor([1]), s), ([1.0, 2.0], [5.0]),
         ([1.0, 0.0], [1.0])),
    Kink("quantile_between", lambda m, x: m.quantile(x, 0.5), ([4.0, 1.0, 3.0, 2.0],), ([0.0, 0.0, 0.5, 0.5],)),
    # the nuclear norm's gradient at a rank-1 matrix: the last bits differ from PyTorch's
    Kink("norm_nuc_at_rank1", lambda m, x: m.linalg.matrix_norm(x, "nuc"), ([[1.0, 2.0], [2.0, 4.0]],),
         ([[0.9999999403953552, -8.940696716308594e-08], [1.1920928955078125e-07, 1.0]],), tol=(1e-6, 1e-6)),
    Kink("sort_stable_ties", lambda m, x: x.sort(stable=True, descending=True).values * m.arange(4.0),
         ([1.0, 2.0, 1.0, 2.0],), ([2.0, 0.0, 3.0, 1.0],)),
    Kink("index_fill_tensor_value", lambda m, x, v: x.index_fill(0, m.tensor([0, 2]), v), ([1.0, 2.0, 3.0], 5.0),
         ([0.0, 1.0, 0.0], 2.0)),
]
# Gradients at ordinary points that once came out NaN or wrong (issue #11): constant values
# under std, atan2 at the origin, i0 at 0, logit and the gamma family at their poles, and the
# vector and matrix norms of every order at zero vectors and zero entries.
POINT_KINKS = [
    Kink("std_constant", lambda m, x: x.std(), ([2.0, 2.0, 2.0],), ([0.0, 0.0, 0.0],)),
    Kink("std_dim_constant_row", lambda m, x: x.std(1), ([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]],),
         ([[0.0, 0.0, 0.0], [-0.4364357590675354, -0.10910891741514206, 0.5455447435379028]],), tol=(1e-6, 0)),
    Kink("std_mean_constant", lambda m, x: m.stack(m.std_mean(x)), ([2.0, 2.0],), ([0.5, 0.5],)),
    Kink("atan2_at_origin", lambda m, x, y: m.atan2(x, y), ([0.0, 1.0], [0.0, 1.0]), ([0.0, 0.5], [-0.0, -0.5])),
    Kink("i0_at_0", lambda m, x: m.special.i0(x), ([0.0, 1.0],), ([0.0, 0.5651590824127197],), tol=(1e-6, 0)),
    Kink("logit_at_0_and_1", lambda m, x: m.logit(x), ([0.0, 1.0, 0.5],), ([INF, INF, 4.0],)),
    Kink("lgamma_at_poles", lambda m, x: m.lgamma(x), ([0.0, -0.0, -1.0, 2.5],),
         ([-INF, INF, NAN, 0.7031567692756653],), tol=(1e-6, 0)),
    # trigamma at -1 is huge and finite (PyTorch's sin(pi x) is not exactly 0 there)
    Kink("digamma_at_poles", lambda m, x: m.digamma(x), ([0.0, -0.0, -1.0, -2.5],),
         ([INF, INF, 1291369695936512.0, 9.539247512817383],), tol=(1e-6, 0)),
    Kink("polygamma_negative", lambda m, x: m.polygamma(1, x), ([-8.3, -0.5],),
         ([68.82452392578125, -0.8287966251373291],), tol=(1e-6, 0)),
    Kink("maximum_unselected_gets_0", lambda m, x, y: m.maximum(x, y), ([1.0, 2.0, 3.0], [2.0, 2.0, 1.0]),
         ([0.0, 0.5, 1.0], [1.0, 0.5, 0.0])),
    Kink("vector_norm_1_at_0", lambda m, x: m.linalg.vector_norm(x, 1), ([0.0, 0.0],), ([0.0, 0.0],)),
    Kink("vector_norm_half_zero_entry", lambda m, x: m.linalg.vector_norm(x, 0.5), ([0.0, 4.0, 1.0],),
         ([0.0, 1.5, 3.0],)),
    Kink("vector_norm_3_at_0", lambda m, x: m.linalg.vector_norm(x, 3), ([0.0, 0.0],), ([0.0, 0.0],)),
    Kink("vector_norm_inf_at_0", lambda m, x: m.linalg.vector_norm(x, INF), ([0.0, 0.0],), ([0.0, 0.0],)),
    Kink("vector_norm_neg_inf_zero_entry", lambda m, x: m.linalg.vector_norm(x, -INF), ([0.0, 3.0, -4.0],),
         ([0.0, 0.0, -0.0],)),
    Kink("vector_norm_neg_1_zero_entry", lambda m, x: m.linalg.vector_norm(x, -1), ([0.0, 3.0, -4.0],),
         ([0.0, 0.0, -0.0],)),
    Kink("dist_1_equal_entry", lambda m, x, y: m.dist(x, y, 1), ([1.0, 2.0], [1.0, 3.0]), ([0.0, -1.0], [-0.0, 1.0])),
    Kink("matrix_norm_nuc_at_0", lambda m, x: m.linalg.matrix_norm(x, "nuc"), ([[0.0, 0.0], [0.0, 0.0]],),
         ([[1.0, 0.0], [0.0, 1.0]],)),
    Kink("matrix_norm_2_at_0", lambda m, x: m.linalg.matrix_norm(x, 2), ([[0.0, 0.0], [0.0, 0.0]],),
         ([[0.5, 0.0], [0.0, 0.5]],)),
    Kink("matrix_norm_inf_zero_entry", lambda m, x: m.linalg.matrix_norm(x, INF), ([[0.0, 1.0], [0.0, 2.0]],),
         ([[0.0, 0.0], [0.0, 1.0]],)),
]
KINKS = KINKS + BREADTH_KINKS + POINT_KINKS


def _fixed(*arrays, grad=True):
    """One sample of fixed values (nested lists of numbers) in the dtype being checked."""
    def samples(make):
        return [Sample(tuple(np.asarray(a).astype(make.dtype) for a in arrays), grad=grad)]
    return samples


def _twin(fn):
    """``fn(m, y, s)`` writing in place into ``y``, a non-leaf copy of ``x``: its result, ``y``,
    and how many versions the write added to ``y``."""
    def call(m, x, s):
        y = x * 1
        version = y._version
        out = fn(m, y, s)
        return out, y, y._version - version
    return call


def _returns_self(method, *args):
    """``method`` applied in place to a copy of ``x``: its result and whether that is the copy."""
    def call(m, x):
        y = x.clone()
        out = getattr(y, method)(*args)
        return out, out is y
    return call


def _converted(fn):
    """``fn`` on ``y``, a float32 copy of ``x`` (which requires grad in the float64 samples):
    ``y``, the result's dtype name and its values as float32 (numpy cannot read bfloat16), whose
    node's next function is the result's node (or None where the result does not require grad)."""
    def call(m, x):
        y = x.float()
        out = fn(m, y)
        return y, str(out.dtype), out.float()
    return call


def _svd_reconstruction(m, x):
    """What a wide matrix's reduced SVD determines whatever the signs LAPACK picks."""
    u, s, vh = m.linalg.svd(x, full_matrices=False)
    return (u * s) @ vh, s, m.linalg.svdvals(x)


def _svd_full_loss(m, x):
    """A loss of the full SVD that ignores the extra columns of U and every sign."""
    u, s, vh = m.linalg.svd(x, full_matrices=True)
    return u[:, :2].abs().sum() + s.sum() + vh.abs().sum()


def _searchsorted_options(m, seq, values, sorter):
    return (m.searchsorted(seq, values, side="left", sorter=sorter),
            m.searchsorted(seq, values, side="right", sorter=sorter),
            m.searchsorted(m.tensor([1.0, 2.0]), 1.5))


_HOST = [2, 1, 2, 2, 3, 3, 1, 2]
_TRI_ARGS = ((3, 3), (3, 4, -1), (4, 3, 2), (0, 2))
_BAD_WRITE = np.array([1.0, 2.0, 3.0], np.float32)
_CONVERSIONS = {
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


def _breadth_test_rows():
    host = _fixed(_HOST, grad=False)
    pair = two_of((2, 3), (2, 3))

    def write(call, **kw):
        return Err((_BAD_WRITE,), call=call, **kw)

    return [
        # a singular matrix: slogdet is (0, -inf)
        Op("slogdet_singular", lambda m, x: m.linalg.slogdet(x), _fixed([[1.0, 1.0], [1.0, 1.0]]), dtypes=FLOAT,
           grad=False),
        # data-dependent output sizes
        Op("unique_sorted", lambda m, x: m.unique(x), host, grad=False),
        Op("unique_inverse_counts", lambda m, x: m.unique(x, return_inverse=True, return_counts=True), host,
           grad=False),
        Op("unique_dim_inverse_counts", lambda m, x: m.unique(x.reshape(4, 2), dim=0, return_inverse=True,
                                                              return_counts=True), host, grad=False),
        Op("unique_consecutive_inverse_counts", lambda m, x: m.unique_consecutive(x, return_inverse=True,
                                                                                  return_counts=True),
           host, grad=False),
        Op("unique_consecutive_dim", lambda m, x: x.reshape(4, 2).unique_consecutive(dim=0), host, grad=False),
        Op("masked_select_broadcast", lambda m, x: m.masked_select(x.reshape(2, 4)[:1], x.reshape(2, 4) > 1), host,
           grad=False),
        Op("repeat_interleave_repeats_only", lambda m, x: m.repeat_interleave(m.tensor([2, 0, 1])), host, grad=False),
        Op("repeat_interleave_per_element", lambda m, x: x.repeat_interleave(m.tensor([1, 2, 0, 1, 1, 0, 2, 1])),
           _fixed(_HOST)),
        Op("nonzero_after_scatter", lambda m, x: m.nonzero(m.zeros(5).scatter(0, m.tensor([1, 3]), 1.0)), host,
           grad=False),
        Op("bincount_minlength", lambda m, x: m.bincount(m.tensor([0, 3, 3]), minlength=6), host, grad=False),
        Op("combinations_empty", lambda m, x: m.combinations(m.arange(3), 4), host, grad=False),
        # in-place twins on a non-leaf: values, grad_fn, gradients and version counts; rejected
        # writes raise PyTorch's error type and change nothing
        Op("twin.scatter_", _twin(lambda m, x, s: x.scatter_(1, m.tensor([[0], [2]]), s[:, :1])), pair,
           dtypes=INT_FLOAT,
           errors=(write(lambda m, x: x.scatter_(0, m.tensor([3]), 1.0), note="index out of bounds"),
                   write(lambda m, x: x.requires_grad_().scatter_(0, m.tensor([0]), m.zeros(1)),
                         note="a leaf that requires grad", match="leaf Variable"))),
        Op("twin.scatter_add_", _twin(lambda m, x, s: x.scatter_add_(0, m.tensor([[1, 0, 1]]), s[:1])), pair,
           dtypes=INT_FLOAT),
        Op("twin.scatter_reduce_", _twin(lambda m, x, s: x.scatter_reduce_(0, m.tensor([[1, 0, 1]]), s[:1], "amin")),
           pair, dtypes=INT_FLOAT),
        Op("twin.index_add_", _twin(lambda m, x, s: x.index_add_(1, m.tensor([2, 0]), s[:, :2], alpha=-1)), pair,
           dtypes=INT_FLOAT,
           errors=(write(lambda m, x: x.index_add_(0, m.tensor([0, 1]), m.ones(1)), note="source count"),)),
        Op("twin.index_copy_", _twin(lambda m, x, s: x.index_copy_(0, m.tensor([1]), s[:1])), pair, dtypes=INT_FLOAT,
           errors=(write(lambda m, x: x.index_copy_(0, m.tensor([-1]), m.ones(1)), note="negative index"),)),
        Op("twin.index_fill_", _twin(lambda m, x, s: x.index_fill_(1, m.tensor([1]), -2.0)), pair,
           errors=(write(lambda m, x: x.index_fill_(0, m.tensor([5]), 0.0), note="index out of bounds"),)),
        Op("twin.masked_scatter_", _twin(lambda m, x, s: x.masked_scatter_(m.tensor([True, False, True]), s)), pair,
           dtypes=INT_FLOAT,
           errors=(write(lambda m, x: x.masked_scatter_(m.tensor([True, True, True]), m.ones(2)),
                         note="source too short"),)),
        Op("twin.clamp_tensor_", _twin(lambda m, x, s: x.clamp_(min=s[0], max=s[1] + 1)), pair,
           errors=(write(lambda m, x: x.clamp_(min=m.zeros(3), max=1.0), note="a tensor and a number bound"),)),
        Op("twin.lerp_", _twin(lambda m, x, s: x.lerp_(s, 0.25)), pair, dtypes=FLOAT,
           errors=(write(lambda m, x: x.lerp_(m.ones(3, dtype=m.float64), 0.5), note="end has another dtype"),)),
        Op("twin.fmod_", _twin(lambda m, x, s: x.fmod_(1.5)), pair, dtypes=FLOAT),
        Op("twin.hypot_", _twin(lambda m, x, s: x.hypot_(s)), pair, dtypes=FLOAT),
        Op("twin.copysign_", _twin(lambda m, x, s: x.copysign_(s)), pair, dtypes=FLOAT),
        Op("twin.xlogy_", _twin(lambda m, x, s: x.xlogy_(s.abs())), pair, dtypes=FLOAT),
        Op("twin.nan_to_num_", _twin(lambda m, x, s: x.nan_to_num_()), pair),
        Op("twin.logit_", _twin(lambda m, x, s: x.mul_(0.2).add_(0.5).logit_()), pair, dtypes=FLOAT),
        Op("twin.addcmul_", _twin(lambda m, x, s: x.addcmul_(s, s, value=0.5)), pair),
        Op("twin.addcdiv_", _twin(lambda m, x, s: x.addcdiv_(s, s + 3, value=2)), pair, dtypes=FLOAT),
        Op("twin.tril_", _twin(lambda m, x, s: x.tril_()), pair),
        Op("twin.triu_", _twin(lambda m, x, s: x.triu_(1)), pair),
        Op("twin.cumprod_", _twin(lambda m, x, s: x.cumprod_(1)), pair),
        Op("twin.addmv_", _twin(lambda m, x, s: x[:, 0].addmv_(s, m.ones(3, dtype=s.dtype))), pair, dtypes=INT_FLOAT,
           xfail={("errors", "bool"): "an int64 self with bool matrices: NotImplementedError where PyTorch "
                                      "raises RuntimeError (mixed dtypes)"}),
        Op("twin.addr_", _twin(lambda m, x, s: x.addr_(s[0, :2], s[1], beta=0.5)), pair, dtypes=FLOAT),
        Op("twin.clamp_min_", _twin(lambda m, x, s: x.clamp_min_(0.0)), pair, dtypes=FLOAT),
        Op("twin.sgn_", _twin(lambda m, x, s: x.sgn_()), pair),
        Op("twin.deg2rad_", _twin(lambda m, x, s: x.deg2rad_()), pair, dtypes=FLOAT),
        # float_power_ needs a float64 self (the other dtypes must raise) and returns it
        Op("float_power_returns_self", _returns_self("float_power_", 2), samples_of((2, 3)), dtypes=("float64",)),
        # dtype conversions of a float32 tensor that requires grad: values exactly as PyTorch's
        # (the steps of the finite differences are exact in float16 and bfloat16)
        *[Op(f"convert.{name}", _converted(fn), _fixed([1.5, -2.25, 0.0]), tol={"float32": (0, 0)},
             fd=(0.25, 1e-2, 1e-3))
          for name, fn in _CONVERSIONS.items()],
        # type() without arguments names the legacy class
        Op("type_name", lambda m, x: (x.type(), x.half().type()), _fixed([1.0]), grad=False),
        # SVD: a wide matrix reconstructs; full_matrices' extra vectors get no gradient
        Op("svd_wide_reconstructs", _svd_reconstruction, matrix_of((2, 4)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5), "float64": (1e-10, 1e-12)}),
        Op("svd_full_matrices_loss", _svd_full_loss, matrix_of((3, 2)), dtypes=FLOAT,
           tol={"float32": (1e-4, 1e-5)}),
        # shapes and index lists
        Op("broadcast_shapes", lambda m, x: m.broadcast_shapes((2, 1), (3,), 1), samples_of(()), grad=False,
           errors=(Err((arr(),), call=lambda m, x: m.broadcast_shapes((2, 1), (3, 3))),)),
        Op("tril_triu_indices", lambda m, x: tuple(f(*a) for a in _TRI_ARGS for f in (m.tril_indices, m.triu_indices)),
           samples_of(()), grad=False),
        Op("searchsorted_side_sorter", _searchsorted_options,
           lambda make: [Sample((np.array([3.0, 1.0, 2.0, 5.0]).astype(make.dtype),
                                 np.array([2.0, 4.0]).astype(make.dtype), index(1, 2, 0, 3)))],
           dtypes=INT_FLOAT, grad=False),
    ]


OPS = OPS + _breadth_test_rows()


def _family_rows():
    """The rows of every module in ``tests/op_rows/``, in module-name order."""
    import importlib
    import pkgutil

    import op_rows
    return [row for info in sorted(pkgutil.iter_modules(op_rows.__path__), key=lambda i: i.name)
            for row in importlib.import_module(f"op_rows.{info.name}").ROWS]


OPS = OPS + _family_rows()
BY_NAME = {row.name: row for row in OPS}
assert len(BY_NAME) == len(OPS), "row names must be unique"
