"""``tensorgrad.nn.functional`` against PyTorch.

The first half is a table in ``tests/op_table.py``'s format (one row per function, one sample
per configuration) run through ``tests/op_checks.py``: values, dtypes and shapes for each dtype
PyTorch accepts (float32 for the first configuration, float64 for all), gradients against
PyTorch, float64 finite differences, ``grad_fn`` / ``next_functions`` names, and PyTorch's
exception types for rejected inputs and dtypes. The second half tests what a table can't:
gradients at kinks, running statistics, randomness, warnings, in-place variants and messages.
"""

import warnings

import numpy as np
import pytest

import tensorgrad
import tensorgrad.nn.functional as TF

import op_checks as C
from op_table import ALL, FLOAT, INT_FLOAT, Err, Op, Sample, arr, index

F64 = ("float64",)


def fn(name):
    """The row call ``m.nn.functional.<name>(*args, **kwargs)`` for either library."""
    def call(m, *args, **kwargs):
        return getattr(m.nn.functional, name)(*args, **kwargs)
    call.__name__ = name
    return call


def configs(*shapes_and_kwargs, n=1):
    """One sample per ``(shapes, kwargs)``: a tensor of each shape (float samples in the row's
    domain); float32/int/bool get the first ``n`` configurations, float64 gets all."""
    def samples(make):
        out = [Sample(tuple(make(*s) for s in shapes), kwargs) for shapes, kwargs in shapes_and_kwargs]
        return out if make.full else out[:n]
    return samples


def fixed(*builders, n=1):
    """Samples built by ``builder(make) -> Sample`` (inputs that need particular values)."""
    def samples(make):
        out = [b(make) for b in builders]
        return out if make.full else out[:n]
    return samples


def unit(make, *shape):
    """Values in (0.05, 0.95): probabilities (plain samples for integer and bool dtypes)."""
    if not make.dtype.startswith("float"):
        return make(*shape)
    return (make(*shape, domain="unit") * 0.5 + 0.5).astype(make.dtype)


def positive(make, *shape):
    return make(*shape, domain="positive")


LOOSE = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-10)}


# ====================================================================== activations

def _act(name, dtypes=FLOAT, kwargs=({},), shapes=((2, 3), (), (4,)), errors=(), **kw):
    cases = [((shapes[0],), k) for k in kwargs] + [((s,), kwargs[0]) for s in shapes[1:]]
    return Op(name, fn(name), configs(*cases), dtypes=dtypes, errors=errors, **kw)


def _spread(make):
    """Values on both sides of the hard activations' corners at -3 and 3."""
    x = np.array([-4.5, -3.5, -2.0, -0.5, 0.75, 2.5, 3.5, 5.0])
    return Sample((x.astype(make.dtype).reshape(2, 4),))


def _softmax_call(name):
    """``dtype="f64"`` in a sample stands for the library's float64."""
    def call(m, x, **kwargs):
        if kwargs.get("dtype") == "f64":
            kwargs["dtype"] = m.float64
        return getattr(m.nn.functional, name)(x, **kwargs)
    return call


ACTIVATIONS = [
    _act("relu", INT_FLOAT, ({}, {"inplace": False})),
    _act("relu6", INT_FLOAT),
    _act("hardtanh", INT_FLOAT, ({}, {"min_val": -0.5, "max_val": 1.5}),
         errors=(Err((arr(3),), {"min_val": 2.0, "max_val": 1.0}),)),
    _act("leaky_relu", FLOAT, ({}, {"negative_slope": 0.2})),
    _act("elu", FLOAT, ({}, {"alpha": 0.5})),
    _act("selu"),
    _act("celu", FLOAT, ({}, {"alpha": 2.0})),
    _act("gelu", FLOAT, ({}, {"approximate": "tanh"}),
         errors=(Err((arr(3),), {"approximate": "foo"}),)),
    _act("silu"),
    _act("mish"),
    _act("softplus", FLOAT, ({}, {"beta": 2.0, "threshold": 1.0})),
    _act("softsign", INT_FLOAT),
    _act("logsigmoid"),
    _act("tanhshrink", INT_FLOAT),
    _act("hardshrink", FLOAT, ({}, {"lambd": 1.0})),
    _act("softshrink", FLOAT, ({}, {"lambd": 1.0}), errors=(Err((arr(3),), {"lambd": -1.0}),)),
    _act("sigmoid", ALL),
    _act("tanh", ALL),
    Op("threshold", fn("threshold"), configs((((2, 3),), {"threshold": 0.5, "value": -1.0})), dtypes=INT_FLOAT),
    Op("hardsigmoid", fn("hardsigmoid"), fixed(_spread), dtypes=FLOAT),
    Op("hardswish", fn("hardswish"), fixed(_spread), dtypes=FLOAT),
    Op("prelu", fn("prelu"), configs((((2, 3, 2), (1,)), {}), (((2, 3, 2), (3,)), {}), (((4,), (1,)), {})),
       dtypes=FLOAT, errors=(Err((arr(2, 3), arr(2)),),)),
    Op("glu", fn("glu"), configs((((2, 4),), {}), (((4, 3),), {"dim": 0}), (((2, 2, 2),), {"dim": 1})),
       dtypes=FLOAT, errors=(Err((arr(2, 3),)), Err((arr(),)), Err((arr(2, 4),), {"dim": 2}))),
    Op("softmax", _softmax_call("softmax"),
       configs((((2, 3),), {"dim": 1}), (((2, 3),), {"dim": 0}), (((),), {"dim": 0}), (((2, 2, 3),), {"dim": -1}),
               (((2, 3),), {"dim": 1, "dtype": "f64"})),
       dtypes=FLOAT, errors=(Err((arr(2, 3),), {"dim": 2}),)),
    Op("log_softmax", fn("log_softmax"), configs((((2, 3),), {"dim": 1}), (((3, 2),), {"dim": 0}), (((),), {"dim": 0})),
       dtypes=FLOAT),
    Op("softmin", fn("softmin"), configs((((2, 3),), {"dim": 1}), (((2, 3),), {"dim": 0})), dtypes=FLOAT),
]


def _inplace(name, dtypes=FLOAT):
    """``name(x * 1, inplace=True)``: the in-place form on a non-leaf (``x * 1`` of a bool is int64)."""
    def call(m, x):
        return getattr(m.nn.functional, name)(x * 1, inplace=True)
    return Op(f"{name}_inplace", call, configs((((2, 3),), {})), dtypes=dtypes)


INPLACE = [_inplace(n, ALL) for n in ("relu", "relu6", "hardtanh")]
INPLACE += [_inplace(n) for n in ("leaky_relu", "elu", "selu", "celu", "silu", "mish", "hardsigmoid", "hardswish")]
INPLACE.append(Op("threshold_inplace", lambda m, x: m.nn.functional.threshold(x * 1, 0.5, -1.0, inplace=True),
                  configs((((2, 3),), {})), dtypes=ALL))


# ====================================================================== dropout (deterministic cases)

DROPOUT = [
    Op("dropout_eval", fn("dropout"), configs((((2, 3),), {"training": False}), (((2, 3),), {"p": 0.0})), dtypes=ALL,
       errors=(Err((arr(3),), {"p": 1.5}), Err((arr(3),), {"p": -0.1}))),
    Op("dropout_p1", fn("dropout"), configs((((2, 3),), {"p": 1.0})), dtypes=FLOAT),
    Op("dropout1d_p1", fn("dropout1d"), configs((((2, 3, 4),), {"p": 1.0}), (((3, 4),), {"p": 1.0})), dtypes=FLOAT,
       errors=(Err((arr(2, 3, 4, 5),)), Err((arr(3),)))),
    Op("dropout2d_p1", fn("dropout2d"), configs((((2, 3, 2, 2),), {"p": 1.0})), dtypes=FLOAT),
    Op("dropout3d_p1", fn("dropout3d"), configs((((2, 2, 2, 2, 2),), {"p": 1.0}), (((2, 2, 2, 2),), {"p": 1.0})),
       dtypes=FLOAT),
]


# ====================================================================== linear maps and lookups

def _embedding(make, shape=(2, 3), num=5, grad=True, **kwargs):
    rng = np.random.default_rng(len(shape))
    return Sample((rng.integers(0, num, shape), make(num, 3)), kwargs, grad=grad)


LINEAR = [
    Op("linear", fn("linear"),
       configs((((2, 3), (4, 3), (4,)), {}), (((2, 3), (4, 3)), {}), (((3,), (4, 3), (4,)), {}),
               (((3,), (4, 3)), {}), (((2, 2, 3), (4, 3), (4,)), {}), (((2, 2, 3), (4, 3)), {}),
               (((2, 3), (3,)), {}), (((2, 3), (4, 3), (1,)), {})),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(4, 5))), Err((arr(2, 3), arr(4, 3), arr(5))), Err((arr(3), arr(4, 3), arr(5))),
               Err((arr(), arr(4, 3))), Err((arr(2, 3), arr(4, 3, dtype="float64"))),
               Err((arr(2, 3), arr(3), arr())))),
    Op("bilinear", fn("bilinear"),
       configs((((2, 3), (2, 2), (4, 3, 2), (4,)), {}), (((2, 3), (2, 2), (4, 3, 2)), {}),
               (((2, 2, 3), (2, 2, 2), (1, 3, 2)), {}), (((3,), (2,), (4, 3, 2)), {})),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(3, 2), arr(4, 3, 2))), Err((arr(2, 3), arr(2, 2), arr(4, 3, 3))),
               Err((arr(2, 3), arr(2, 2), arr(4, 3, 2), arr(5))), Err((arr(2, 3), arr(2, 2, 2), arr(4, 3, 2))))),
    # padding_idx, scale_grad_by_freq and max_norm give gradients that finite differences can't
    # see (by design): their gradients are compared with PyTorch's in test_embedding_gradients
    Op("embedding", fn("embedding"),
       fixed(_embedding, lambda m: _embedding(m, (4,)), lambda m: _embedding(m, (4,), padding_idx=1, grad=False),
             lambda m: _embedding(m, (), padding_idx=-1, grad=False),
             lambda m: _embedding(m, (3, 2), scale_grad_by_freq=True, grad=False),
             lambda m: _embedding(m, (2, 2), max_norm=1.0, grad=False),
             lambda m: _embedding(m, (2, 2), max_norm=0.5, norm_type=1.0, grad=False)),
       errors=(Err((arr(2), arr(4, 3))), Err((index(4), arr(4, 3))), Err((index(-1), arr(4, 3))),
               Err((index(1), arr(4, 3)), {"padding_idx": 4}), Err((index(1), arr(4))))),
    Op("one_hot", fn("one_hot"),
       fixed(lambda m: Sample((index(0, 2, 1).astype(m.dtype),)), lambda m: Sample((index(0, 2),), {"num_classes": 4}),
             lambda m: Sample((np.zeros((0,), np.int64),), {"num_classes": 3}),
             lambda m: Sample((index(1, 0, 3, 2).reshape(2, 2),)), n=4),
       dtypes=("int64",), grad=False,
       errors=(Err((arr(2),)), Err((index(-1),)), Err((index(3),), {"num_classes": 3}),
               Err((np.zeros((0,), np.int64),)), Err((index(1).astype(np.int32),)))),
]


def _sdpa_call(m, q, k, v, *rest, mask=None, **kwargs):
    if mask == "bool":
        kwargs["attn_mask"] = m.tensor(np.array([[True, False, True], [True, True, False], [False, True, True]]))
    elif rest:
        kwargs["attn_mask"] = rest[0]
    return m.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)


ATTENTION = [
    Op("scaled_dot_product_attention", _sdpa_call,
       configs((((2, 3, 4), (2, 3, 4), (2, 3, 4)), {}), (((3, 4), (3, 4), (3, 2)), {"scale": 0.3}),
               (((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 2)), {"mask": "bool"}),
               (((2, 3, 4), (2, 3, 4), (2, 3, 4), (3, 3)), {}),
               (((2, 3, 4), (2, 3, 4), (2, 3, 4)), {"is_causal": True}),
               (((1, 4, 3, 2), (1, 2, 3, 2), (1, 2, 3, 2)), {"enable_gqa": True})),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3, 4), arr(2, 3, 5), arr(2, 3, 4))), Err((arr(4), arr(4), arr(4))),
               Err((arr(2, 3, 4), arr(2, 3, 4, dtype="float64"), arr(2, 3, 4))),
               Err((arr(2, 3, 4), arr(2, 3, 4), arr(2, 3, 4), arr(3, 3)), {"is_causal": True}))),
]


# ====================================================================== convolution and pooling

CONV = [
    Op("conv1d", fn("conv1d"),
       configs((((1, 2, 5), (3, 2, 2), (3,)), {}), (((2, 4, 6), (2, 2, 3)), {"stride": 2, "padding": 1, "groups": 2}),
               (((2, 5), (3, 2, 2)), {"dilation": 2}), (((1, 2, 5), (3, 2, 4)), {"padding": "same", "dilation": 2}),
               (((1, 2, 5), (3, 2, 3)), {"padding": "same", "dilation": 2}), (((1, 2, 5), (3, 2, 3)), {"padding": "valid"})),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3, 4, 5), arr(4, 3, 3))), Err((arr(1, 2, 5), arr(3, 2, 2)), {"stride": 2, "padding": "same"}),
               Err((arr(1, 2, 5), arr(3, 2, 2)), {"padding": "foo"}))),
    Op("conv2d", fn("conv2d"),
       configs((((1, 2, 4, 4), (3, 2, 2, 2), (3,)), {}), (((2, 4, 5, 4), (2, 2, 3, 2)), {"stride": (2, 1), "padding": (1, 0), "groups": 2}),
               (((2, 4, 4), (2, 2, 2, 2)), {"dilation": 2, "padding": 1}), (((1, 2, 4, 4), (2, 2, 3, 1)), {"padding": "same"})),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(4, 3, 3, 3))), Err((arr(2, 2, 5, 5), arr(4, 3, 3, 3))),
               Err((arr(1, 3, 2, 2), arr(4, 3, 3, 3))), Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3)), {"padding": -1}),
               Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3)), {"stride": 0}), Err((arr(1, 4, 5, 5), arr(3, 2, 3, 3)), {"groups": 2}),
               Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3), arr(5))), Err((arr(1, 3, 5, 5), arr(4, 3, 3))),
               Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3, dtype="float64"))), Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3)), {"groups": 0}),
               Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3)), {"padding": (1, 1, 1)}))),
    Op("conv3d", fn("conv3d"), configs((((1, 2, 3, 3, 3), (2, 2, 2, 2, 2), (2,)), {})), dtypes=INT_FLOAT, tol=LOOSE),
    Op("conv_transpose1d", fn("conv_transpose1d"),
       configs((((1, 2, 4), (2, 3, 3), (3,)), {}), (((1, 4, 3), (4, 1, 3)), {"stride": 2, "output_padding": 1, "groups": 2}),
               (((2, 4), (2, 2, 2)), {"dilation": 2, "padding": 1})),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(1, 2, 5, 5), arr(3, 4, 3))),)),
    Op("conv_transpose2d", fn("conv_transpose2d"),
       configs((((1, 2, 3, 3), (2, 2, 2, 2), (2,)), {}), (((1, 2, 3, 2), (2, 1, 3, 2)), {"stride": (2, 1), "padding": 1, "output_padding": (1, 0)}),
               (((2, 3, 3), (2, 2, 2, 2)), {"groups": 1, "dilation": 2})),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(1, 2, 5, 5), arr(3, 4, 3, 3))), Err((arr(1, 3, 5, 5), arr(3, 4, 3, 3)), {"output_padding": 1}),
               Err((arr(3, 5), arr(3, 4, 3, 3))), Err((arr(1, 3, 5, 5), arr(3, 4, 3, 3)), {"padding": "same"}))),
]

POOL_ERRORS = (Err((arr(2, 3),), {"kernel_size": 2}), Err((arr(1, 1, 5, 5),), {"kernel_size": 2, "padding": 2}),
               Err((arr(1, 1, 1, 1),), {"kernel_size": 2}), Err((arr(1, 1, 4, 4),), {"kernel_size": 2, "stride": 0}),
               Err((arr(1, 1, 4, 4),), {"kernel_size": (2, 2, 2)}))

POOL = [
    Op("max_pool2d", fn("max_pool2d"),
       configs((((1, 2, 4, 4),), {"kernel_size": 2}), (((2, 5, 5),), {"kernel_size": 3, "stride": 2, "padding": 1}),
               (((1, 1, 5, 6),), {"kernel_size": 2, "dilation": 2}), (((1, 1, 5, 5),), {"kernel_size": 2, "ceil_mode": True}),
               (((1, 2, 4, 5),), {"kernel_size": (2, 3), "stride": 1, "return_indices": True})),
       dtypes=INT_FLOAT,
       errors=POOL_ERRORS + (Err((arr(1, 1, 4, 4),), {"kernel_size": 2, "dilation": 0}),)),
    Op("max_pool1d", fn("max_pool1d"),
       configs((((1, 2, 6),), {"kernel_size": 2}), (((2, 7),), {"kernel_size": 3, "stride": 2, "padding": 1, "return_indices": True}),
               (((1, 1, 7),), {"kernel_size": 2, "ceil_mode": True, "dilation": 2})),
       dtypes=FLOAT, errors=(Err((arr(2, 3, 4, 5),), {"kernel_size": 2}), Err((arr(1, 1, 4),), {"kernel_size": (2, 2)}))),
    Op("max_pool3d", fn("max_pool3d"), configs((((1, 1, 4, 4, 3),), {"kernel_size": 2, "return_indices": True})),
       dtypes=INT_FLOAT),
    Op("avg_pool2d", fn("avg_pool2d"),
       configs((((1, 2, 4, 4),), {"kernel_size": 2}), (((2, 5, 5),), {"kernel_size": 3, "stride": 2, "padding": 1}),
               (((1, 1, 5, 5),), {"kernel_size": 2, "padding": 1, "count_include_pad": False, "ceil_mode": True}),
               (((1, 1, 5, 5),), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
               (((1, 1, 4, 4),), {"kernel_size": 2, "divisor_override": 3})),
       dtypes=INT_FLOAT, errors=POOL_ERRORS[1:] + (Err((arr(1, 1, 4, 4),), {"kernel_size": 2, "divisor_override": 0}),)),
    Op("avg_pool1d", fn("avg_pool1d"),
       configs((((1, 2, 6),), {"kernel_size": 2}), (((2, 7),), {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False})),
       dtypes=INT_FLOAT, errors=(Err((arr(4),), {"kernel_size": 2}),)),
    Op("avg_pool3d", fn("avg_pool3d"), configs((((1, 1, 4, 4, 3),), {"kernel_size": 2, "padding": 1})),
       dtypes=INT_FLOAT),
    Op("adaptive_avg_pool2d", fn("adaptive_avg_pool2d"),
       configs((((1, 2, 5, 7),), {"output_size": (2, 3)}), (((2, 4, 4),), {"output_size": 1}),
               (((1, 1, 5, 4),), {"output_size": (None, 3)}), (((1, 1, 3, 3),), {"output_size": 4})),
       dtypes=FLOAT,
       errors=(Err((arr(2),), {"output_size": 2}), Err((arr(1, 2, 4, 4),), {"output_size": (2, 2, 2)}),
               Err((arr(1, 2, 4, 4),), {"output_size": -1}), Err((arr(1, 2, 0, 4),), {"output_size": 2}))),
    Op("adaptive_avg_pool1d", fn("adaptive_avg_pool1d"),
       configs((((1, 2, 7),), {"output_size": 3}), (((2, 5),), {"output_size": 1})), dtypes=FLOAT,
       errors=(Err((arr(4),), {"output_size": 2}),)),
    Op("adaptive_avg_pool3d", fn("adaptive_avg_pool3d"), configs((((1, 1, 3, 4, 5),), {"output_size": 2})), dtypes=FLOAT),
    Op("adaptive_max_pool2d", fn("adaptive_max_pool2d"),
       configs((((1, 2, 5, 7),), {"output_size": (2, 3)}), (((2, 4, 4),), {"output_size": 3, "return_indices": True})),
       dtypes=FLOAT, errors=(Err((arr(2),), {"output_size": 2}),)),
    Op("adaptive_max_pool1d", fn("adaptive_max_pool1d"),
       configs((((1, 2, 7),), {"output_size": 3, "return_indices": True}), (((2, 5),), {"output_size": 2})), dtypes=FLOAT),
    Op("adaptive_max_pool3d", fn("adaptive_max_pool3d"), configs((((1, 1, 3, 4, 5),), {"output_size": 2})), dtypes=FLOAT),
]


# ====================================================================== normalization

def _bn(m, x, *args, stats=False, affine=False, **kwargs):
    args = list(args)
    rm = rv = w = b = None
    if stats:
        rm, rv = args.pop(0), args.pop(0)
    if affine:
        w, b = args.pop(0), args.pop(0)
    return m.nn.functional.batch_norm(x, rm, rv, w, b, **kwargs)


def _bn_sample(shape, stats=False, affine=False, **kwargs):
    def build(make):
        c = shape[1]
        args = [make(*shape)]
        frozen = []
        if stats:
            args += [make(c), positive(make, c)]
            frozen = [1, 2]
        if affine:
            args += [make(c), make(c)]
        return Sample(tuple(args), dict(kwargs, stats=stats, affine=affine), frozen=tuple(frozen))
    return build


def _instance(m, x, *args, stats=False, affine=False, **kwargs):
    args = list(args)
    rm = rv = w = b = None
    if stats:
        rm, rv = args.pop(0), args.pop(0)
    if affine:
        w, b = args.pop(0), args.pop(0)
    return m.nn.functional.instance_norm(x, rm, rv, w, b, **kwargs)


def _shape_first(name, key):
    """``name(x, <key>, *tensors, **rest)``: the configuration is the second positional argument."""
    def call(m, x, *tensors, **kwargs):
        config = kwargs.pop(key)
        return getattr(m.nn.functional, name)(x, config, *tensors, **kwargs)
    return call


NORM = [
    Op("batch_norm", _bn,
       fixed(_bn_sample((4, 3), training=True), _bn_sample((2, 3, 4), affine=True, training=True),
             _bn_sample((2, 3, 2, 2), stats=True, affine=True, training=True, momentum=0.3),
             _bn_sample((2, 3, 2), stats=True, affine=True), _bn_sample((2, 3), stats=True, eps=0.1)),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(1, 3),), {"training": True}), Err((arr(2, 3), arr(4), arr(4)), {"stats": True}),
               Err((arr(2, 3),)), Err((arr(2, 3), arr(4), arr(4)), {"affine": True, "training": True}),
               Err((arr(2, 3),), {"training": True, "eps": 0.0}),
               Err((arr(2, 3), arr(3, dtype="float64"), arr(3)), {"stats": True}))),
    Op("instance_norm", _instance,
       fixed(lambda m: Sample((m(2, 3, 4),)), lambda m: Sample((m(2, 2, 2, 3), m(2), m(2)), {"affine": True}),
             lambda m: Sample((m(2, 2, 3), m(2), positive(m, 2)), {"stats": True, "use_input_stats": False}, frozen=(1, 2)),
             lambda m: Sample((m(2, 2, 3), m(2), positive(m, 2)), {"stats": True}, frozen=(1, 2))),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3, 1),)), Err((arr(2, 3),)), Err((arr(2, 3, 4), arr(4), arr(4)), {"stats": True}))),
    Op("layer_norm", _shape_first("layer_norm", "normalized_shape"),
       configs((((2, 3), ), {"normalized_shape": (3,)}), (((2, 2, 3), (2, 3), (2, 3)), {"normalized_shape": (2, 3)}),
               (((4,), (4,)), {"normalized_shape": [4], "eps": 0.1})),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3),), {"normalized_shape": (4,)}), Err((arr(2, 3), arr(4)), {"normalized_shape": (3,)}),
               Err((arr(2, 3),), {"normalized_shape": 3}), Err((arr(2, 3),), {"normalized_shape": ()}))),
    Op("group_norm", _shape_first("group_norm", "num_groups"),
       configs((((2, 4, 3), ), {"num_groups": 2}), (((2, 4, 2, 2), (4,), (4,)), {"num_groups": 4}),
               (((3, 2),), {"num_groups": 1, "eps": 0.1})),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3, 4),), {"num_groups": 2}), Err((arr(3),), {"num_groups": 1}),
               Err((arr(2, 4, 3), arr(3)), {"num_groups": 2}), Err((arr(1, 2, 1),), {"num_groups": 2}))),
    Op("rms_norm", _shape_first("rms_norm", "normalized_shape"),
       configs((((2, 3),), {"normalized_shape": (3,)}), (((2, 2, 3), (2, 3)), {"normalized_shape": (2, 3), "eps": 0.1})),
       dtypes=FLOAT, tol=LOOSE, errors=(Err((arr(2, 3),), {"normalized_shape": (4,)}),)),
    Op("normalize", fn("normalize"),
       configs((((2, 3),), {}), (((2, 3),), {"p": 1.0, "dim": 0}), (((3,),), {"dim": 0}), (((2, 2, 3),), {"dim": -1})),
       dtypes=FLOAT, errors=(Err((arr(),),),)),
]


# ====================================================================== padding and resampling

PAD_SHAPE_ERRORS = (Err((arr(2, 3),), {"pad": (1,)}), Err((arr(2, 3),), {"pad": (1, 1, 1, 1, 1, 1)}),
                    Err((arr(2, 3),), {"pad": (1, 1), "mode": "foo"}),
                    Err((arr(2, 3),), {"pad": (3, 3), "mode": "reflect"}),
                    Err((arr(1, 2, 3),), {"pad": (4, 4), "mode": "circular"}),
                    Err((arr(3),), {"pad": (1, 1), "mode": "reflect"}),
                    Err((arr(2, 3),), {"pad": (1, 1), "mode": "reflect", "value": 1.0}),
                    Err((arr(2, 3),), {"pad": (-4, 1)}))

SPATIAL = [
    Op("pad", fn("pad"),
       configs((((2, 3),), {"pad": (1, 2)}), (((2, 3),), {"pad": (1, 0, -1, 2), "value": 1.5}),
               (((1, 2, 4),), {"pad": (2, 1), "mode": "reflect"}), (((1, 3, 3),), {"pad": (1, 2, 2, 1), "mode": "reflect"}),
               (((2, 3),), {"pad": (2, 1), "mode": "replicate"}), (((1, 2, 3),), {"pad": (1, 0, 2, 1), "mode": "replicate"}),
               (((1, 1, 2, 2, 2),), {"pad": (1, 1, 0, 1, 1, 0), "mode": "replicate"}),
               (((1, 2, 3),), {"pad": (2, 1), "mode": "circular"}), (((1, 3, 3),), {"pad": (1, 1, 0, 2), "mode": "circular"}),
               (((1, 2, 3),), {"pad": (-1, 1), "mode": "replicate"})),
       dtypes=ALL, errors=PAD_SHAPE_ERRORS,
       xfail={("grad_fn", 7): "circular padding is one op here; PyTorch builds it from slice copies (CopySlices "
                              "over SliceBackward0/CopySlices), so only the top node's name matches",
              ("grad_fn", 8): "circular padding: see sample 7"}),
    Op("interpolate", fn("interpolate"),
       configs((((1, 2, 3, 3),), {"scale_factor": 2}), (((1, 1, 5),), {"size": 7}), (((1, 1, 5),), {"size": 3}),
               (((1, 1, 4),), {"scale_factor": 1.5, "mode": "nearest-exact"}),
               (((1, 2, 4),), {"size": 7, "mode": "linear"}), (((1, 1, 4),), {"size": 6, "mode": "linear", "align_corners": True}),
               (((1, 1, 3, 4),), {"size": (5, 6), "mode": "bilinear"}), (((1, 1, 3, 3),), {"scale_factor": 1.7, "mode": "bilinear"}),
               (((1, 1, 3, 3),), {"scale_factor": 2, "mode": "bilinear", "align_corners": True}),
               (((1, 1, 4, 4),), {"size": (2, 3), "mode": "bilinear"}),
               (((1, 1, 3, 4),), {"size": (5, 3), "mode": "bicubic"}), (((1, 1, 3, 3),), {"size": 4, "mode": "bicubic", "align_corners": True}),
               (((1, 1, 2, 3, 2),), {"scale_factor": 2, "mode": "trilinear"}), (((1, 1, 2, 2, 2),), {"size": 3}),
               (((1, 2, 5, 6),), {"size": (2, 4), "mode": "area"}),
               (((1, 1, 5),), {"scale_factor": 1.5, "recompute_scale_factor": True, "mode": "linear"})),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(1, 1, 4),), {"size": 2, "scale_factor": 2}), Err((arr(1, 1, 4),)),
               Err((arr(1, 1, 4),), {"size": 2, "align_corners": True}), Err((arr(1, 1, 4),), {"size": 2, "mode": "bilinear"}),
               Err((arr(1, 1, 4),), {"size": (2, 2)}), Err((arr(1, 1, 4),), {"size": 2, "mode": "foo"}),
               Err((arr(4, 4),), {"size": 2}), Err((arr(1, 1, 4, 4),), {"scale_factor": (2, 2, 2)}),
               Err((arr(1, 1, 4),), {"size": 0}))),
    Op("unfold", fn("unfold"),
       configs((((1, 2, 3, 4),), {"kernel_size": 2}), (((2, 4, 4),), {"kernel_size": (2, 3), "padding": 1, "stride": 2}),
               (((1, 1, 5, 5),), {"kernel_size": 2, "dilation": 2})),
       dtypes=("bool",) + FLOAT,
       errors=(Err((arr(2, 3),), {"kernel_size": 2}), Err((arr(1, 1, 2, 2),), {"kernel_size": 3}))),
    Op("fold", fn("fold"),
       configs((((1, 8, 6),), {"output_size": (3, 4), "kernel_size": 2}),
               (((12, 6),), {"output_size": (4, 4), "kernel_size": (2, 3), "padding": 1, "stride": 2}),
               (((1, 4, 9),), {"output_size": 5, "kernel_size": 2, "dilation": 2})),
       dtypes=("bool",) + FLOAT,
       errors=(Err((arr(1, 5, 16),), {"output_size": (5, 5), "kernel_size": 2}),
               Err((arr(1, 4, 15),), {"output_size": (5, 5), "kernel_size": 2}),
               Err((arr(4, 16, 1, 1),), {"output_size": (5, 5), "kernel_size": 2}))),
    Op("pixel_shuffle", fn("pixel_shuffle"),
       configs((((1, 8, 2, 3),), {"upscale_factor": 2}), (((9, 1, 2),), {"upscale_factor": 3})), dtypes=ALL,
       errors=(Err((arr(1, 3, 2, 2),), {"upscale_factor": 2}), Err((arr(4, 2),), {"upscale_factor": 2}))),
    Op("pixel_unshuffle", fn("pixel_unshuffle"),
       configs((((1, 2, 4, 6),), {"downscale_factor": 2}), (((1, 3, 3),), {"downscale_factor": 3})), dtypes=ALL,
       errors=(Err((arr(1, 1, 3, 4),), {"downscale_factor": 2}), Err((arr(4, 2),), {"downscale_factor": 2}))),
]


# ====================================================================== losses

def _pair(kwargs=({},), shapes=((2, 3), (2, 3))):
    return [((shapes), k) for k in kwargs]


REDUCTIONS = ({}, {"reduction": "sum"}, {"reduction": "none"})
BAD_REDUCTION = Err((arr(2), arr(2)), {"reduction": "foo"})


def _targets(make, classes, *shape, ignore=None):
    rng = np.random.default_rng(sum(shape) + classes)
    t = rng.integers(0, classes, shape)
    if ignore is not None:
        t.reshape(-1)[0] = ignore
    return t


def _ce(shape, *, weight=False, ignore=None, probs=False, **kwargs):
    def build(make):
        axis = 1 if len(shape) > 1 else 0
        c = shape[axis]
        if probs:
            t = unit(make, *shape)
        else:
            t = _targets(make, c, *(shape[:1] + shape[2:] if len(shape) > 1 else ()), ignore=ignore)
        args = (make(*shape), t) + ((positive(make, c),) if weight else ())
        kw = dict(kwargs)
        if ignore is not None:
            kw["ignore_index"] = ignore
        return Sample(args, kw, frozen=(2,) if weight else ())
    return build


def _weighted(name):
    def call(m, x, t, *w, **kwargs):
        return getattr(m.nn.functional, name)(x, t, *([w[0]] if w else []), **kwargs)
    return call


def _bce(shape, weight=None, **kwargs):
    def build(make):
        args = (unit(make, *shape), unit(make, *shape))
        if weight is not None:
            args += (positive(make, *weight),)
        return Sample(args, kwargs, frozen=(2,))  # PyTorch rejects a weight that requires grad
    return build


def _bcel(m, x, t, *extra, weight=False, pos_weight=False, **kwargs):
    extra = list(extra)
    if weight:
        kwargs["weight"] = extra.pop(0)
    if pos_weight:
        kwargs["pos_weight"] = extra.pop(0)
    return m.nn.functional.binary_cross_entropy_with_logits(x, t, **kwargs)


def _bcel_sample(shape, weight=None, pos_weight=None, **kwargs):
    def build(make):
        args = (make(*shape), unit(make, *shape))
        if weight is not None:
            args += (positive(make, *weight),)
        if pos_weight is not None:
            args += (positive(make, *pos_weight),)
        return Sample(args, dict(kwargs, weight=weight is not None, pos_weight=pos_weight is not None), frozen=(2, 3))
    return build


def _kl(shape, **kwargs):
    def build(make):
        if not make.dtype.startswith("float"):
            return Sample((make(*shape), make(*shape)), kwargs)
        logp = np.log(unit(make, *shape))
        if kwargs.get("log_target"):
            return Sample((logp, np.log(unit(make, *shape))), kwargs)
        return Sample((logp, unit(make, *shape)), kwargs)
    return build


def _signs(make, *shape):
    rng = np.random.default_rng(7)
    return rng.choice([-1.0, 1.0], shape).astype(make.dtype if make.dtype.startswith("float") else "float32")


def _weight_kw(name):
    """``name(input, target, weight=<third array>, **kwargs)``."""
    def call(m, x, t, *w, **kwargs):
        if w:
            kwargs["weight"] = w[0]
        return getattr(m.nn.functional, name)(x, t, **kwargs)
    return call


LOSSES = [
    Op("mse_loss", _weight_kw("mse_loss"), configs(*_pair(REDUCTIONS), ((((2, 3), (2, 3), (2, 3)), {}))), dtypes=FLOAT,
       errors=(BAD_REDUCTION, Err((arr(2, 3), arr(2, 3), arr(3)), note="weight of another shape"))),
    Op("l1_loss", _weight_kw("l1_loss"), configs(*_pair(REDUCTIONS), ((((2, 3), (2, 3), (2, 3)), {"reduction": "sum"}))),
       dtypes=FLOAT, errors=(BAD_REDUCTION,)),
    Op("smooth_l1_loss", fn("smooth_l1_loss"),
       configs(*_pair(REDUCTIONS), *_pair(({"beta": 0.5}, {"beta": 0.0, "reduction": "sum"}))),
       dtypes=FLOAT, errors=(BAD_REDUCTION, Err((arr(2), arr(2)), {"beta": -1.0}))),
    Op("huber_loss", _weight_kw("huber_loss"),
       configs(*_pair(REDUCTIONS), *_pair(({"delta": 0.5},)), ((((2, 3), (2, 3), (2, 3)), {"delta": 0.5}))),
       dtypes=FLOAT, errors=(BAD_REDUCTION, Err((arr(2), arr(2)), {"delta": 0.0}))),
    Op("cross_entropy", _weighted("cross_entropy"),
       fixed(_ce((3, 4)), _ce((3, 4), weight=True), _ce((3, 4), ignore=1, reduction="sum"), _ce((4,)),
             _ce((2, 3, 2, 2)), _ce((2, 3, 4), reduction="none"), _ce((3, 4), label_smoothing=0.2),
             _ce((3, 4), weight=True, ignore=3, label_smoothing=0.1), _ce((3, 4), label_smoothing=0.1, reduction="none"),
             _ce((3, 4), probs=True), _ce((3, 4), probs=True, weight=True, reduction="sum"),
             _ce((2, 3, 2), probs=True, label_smoothing=0.3, reduction="none"), _ce((3, 4), weight=True, reduction="none")),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), index(0, 3))), Err((arr(2, 3), arr(2, 4))), Err((arr(2, 3), arr(2, 3, dtype="int64"))),
               Err((arr(2, 3), arr(2, 3)), {"ignore_index": 1}), Err((arr(2, 3), index(0, 1)), {"label_smoothing": 1.5}),
               Err((arr(2, 3), arr(2))), Err((arr(2, 3), index(0, 3)), {"label_smoothing": 0.1}))),
    Op("nll_loss", _weighted("nll_loss"),
       fixed(_ce((3, 4)), _ce((3, 4), weight=True, reduction="sum"), _ce((3, 4), ignore=0, reduction="none"),
             _ce((4,)), _ce((2, 3, 2, 2), weight=True), _ce((2, 3, 2, 2), reduction="none"), _ce((2, 3, 4), ignore=1),
             _ce((2, 3, 2, 1, 2), reduction="none")),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), index(0, 5))), Err((arr(2, 3), index(0, -1))), Err((arr(2, 3), index(0, 1).astype(np.int32))),
               Err((arr(2, 3), index(0, 1, 2))), Err((arr(2, 3), index(0, 1).reshape(2, 1))), Err((arr(), index(1))),
               Err((arr(2, 3), index(0, 1), arr(4))), Err((arr(2, 3, 4, 4), index(0, 1))),
               Err((arr(2, 3, 4, 4), np.zeros((2, 4, 3), np.int64))), Err((arr(2, 3, 4), np.zeros((2, 3), np.int64))),
               Err((arr(2, 3), index(0, 1)), {"reduction": "foo"}))),
    Op("binary_cross_entropy", _weighted("binary_cross_entropy"),
       fixed(_bce((2, 3)), _bce((2, 3), weight=(3,), reduction="sum"), _bce((4,), reduction="none")),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2) * 5, arr(2) * 0.5)), Err((arr(2, 3) * 0.5, arr(3) * 0.5)),
               Err((arr(2, 3) * 0.5, arr(2, 3) * 0.5, arr(4))), Err((arr(2, 3) * 0.5, arr(2, 3, dtype="int64"))))),
    Op("binary_cross_entropy_with_logits", _bcel,
       fixed(_bcel_sample((2, 3)), _bcel_sample((2, 3), weight=(3,), pos_weight=(3,), reduction="sum"),
             _bcel_sample((4,), pos_weight=(1,), reduction="none")),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(3))), Err((arr(2, 3), arr(2, 3), arr(4)), {"pos_weight": True}),
               Err((arr(2, 3), arr(2, 3, dtype="int64"))))),
    Op("kl_div", fn("kl_div"),
       fixed(_kl((2, 3), reduction="batchmean"), _kl((2, 3), reduction="sum"), _kl((2, 3), reduction="none"),
             _kl((2, 3), reduction="batchmean", log_target=True), _kl((3,), reduction="none", log_target=True)),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2), arr(2, dtype="int64")), {"reduction": "sum"}), Err((arr(2), arr(2)), {"reduction": "foo"}))),
    Op("cosine_embedding_loss", fn("cosine_embedding_loss"),
       fixed(lambda m: Sample((m(3, 4), m(3, 4), np.array([1.0, -1.0, -1.0], m.dtype)), frozen=(2,)),
             lambda m: Sample((m(3, 4), m(3, 4), np.array([1, -1, 1])), {"margin": -0.5, "reduction": "none"}),
             lambda m: Sample((m(4), m(4), np.array(-1.0, m.dtype)), {"margin": -0.9, "reduction": "sum"}, frozen=(2,))),
       dtypes=ALL, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(2, 3), arr())), Err((arr(2, 3, 4), arr(2, 3, 4), arr(2))),
               Err((arr(2, 3), arr(2, 4), arr(2))))),
    Op("margin_ranking_loss", fn("margin_ranking_loss"),
       fixed(lambda m: Sample((m(4), m(4), _signs(m, 4)), frozen=(2,)),
             lambda m: Sample((m(2, 3), m(2, 3), _signs(m, 2, 3)), {"margin": 0.5, "reduction": "none"}, frozen=(2,))),
       dtypes=INT_FLOAT, errors=(Err((arr(2), arr(2, 1), arr(2))), Err((arr(2), arr(3), arr(2))))),
    Op("triplet_margin_loss", fn("triplet_margin_loss"),
       configs((((3, 4), (3, 4), (3, 4)), {}), (((3, 4), (3, 4), (3, 4)), {"p": 1, "swap": True, "margin": 2.0}),
               (((4,), (4,), (4,)), {"reduction": "none"}), (((2, 2, 3), (2, 2, 3), (2, 2, 3)), {"reduction": "sum"})),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(3), arr(2, 3))), Err((arr(2, 3), arr(2, 3), arr(2, 3)), {"margin": -1.0}))),
    Op("pairwise_distance", fn("pairwise_distance"),
       configs((((2, 3), (2, 3)), {}), (((2, 3), (3,)), {"p": 1.0, "keepdim": True}), (((3,), (3,)), {"p": 3.0}),
               (((), ()), {}), (((2, 3), (2, 3)), {"p": float("inf")})),
       dtypes=INT_FLOAT, tol=LOOSE, errors=(Err((arr(2, 3), arr(2, 4))),)),
    Op("cosine_similarity", fn("cosine_similarity"),
       configs((((2, 3), (2, 3)), {}), (((2, 3), (3,)), {}), (((3,), (3,)), {"dim": 0}), (((2, 2, 3), (2, 2, 3)), {"dim": -1})),
       dtypes=FLOAT, tol=LOOSE, errors=(Err((arr(2, 3), arr(4))), Err((arr(2, 3, dtype="int64"), arr(2, 3, dtype="int64"))))),
]

ROWS = ACTIVATIONS + INPLACE + DROPOUT + LINEAR + ATTENTION + CONV + POOL + NORM + SPATIAL + LOSSES
CASES = C.cases(ROWS)


def params(check):
    out = []
    for c, row, key, payload in CASES:
        if c != check:
            continue
        reason = C.xfail_reason(c, row, key)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(row, payload, id=f"{row.name}-{key}", marks=marks))
    return out


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("row, payload", params("values"))
def test_values_match_torch(row, payload, torch):
    C.run_case("values", row, payload, torch)


@pytest.mark.parametrize("row, payload", params("grad_torch"))
def test_gradients_match_torch(row, payload, torch):
    C.run_case("grad_torch", row, payload, torch)


@pytest.mark.parametrize("row, payload", params("grad_fd"))
def test_gradients_match_finite_differences(row, payload):
    C.run_case("grad_fd", row, payload, None)


@pytest.mark.parametrize("row, payload", params("grad_fn"))
def test_grad_fn_names_match_torch(row, payload, torch):
    C.run_case("grad_fn", row, payload, torch)


@pytest.mark.parametrize("row, payload", params("errors"))
def test_rejected_inputs_raise_torch_error_type(row, payload, torch):
    C.run_case("errors", row, payload, torch)
