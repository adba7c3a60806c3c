"""``tensorgrad.nn.functional`` against PyTorch.

The first half is a table in ``tests/op_table.py``'s format (one row per function, one sample
per configuration) run through ``tests/op_checks.py``: values, dtypes and shapes for each dtype
PyTorch accepts (float32 for the first configuration, float64 for all), gradients against
PyTorch, float64 finite differences, ``grad_fn`` / ``next_functions`` names, and PyTorch's
exception types for rejected inputs and dtypes. The second half tests what a table can't:
gradients at kinks, running statistics, randomness, warnings, in-place variants and messages.
"""

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


def case(*shapes, **kwargs):
    """One configuration: a tensor of each shape, and the call's keyword arguments."""
    return shapes, kwargs


def configs(*cases, n=1):
    """One sample per ``case``; the float samples take values in the row's domain. float32,
    int64 and bool get the first ``n`` configurations, float64 gets all."""
    def samples(make):
        out = [Sample(tuple(make(*s) for s in shapes), kwargs) for shapes, kwargs in cases]
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

def _act(name, dtypes=FLOAT, kwargs=({},), errors=(), scalar=False):
    """An activation on a (2, 3) tensor for each ``kwargs`` (and on a 0-d tensor)."""
    cases = [case((2, 3), **k) for k in kwargs] + ([case((), **kwargs[0])] if scalar else [])
    return Op(name, fn(name), configs(*cases), dtypes=dtypes, errors=errors)


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
    _act("relu", INT_FLOAT, ({}, {"inplace": False}), scalar=True),
    _act("relu6", INT_FLOAT),
    _act("hardtanh", INT_FLOAT, ({}, {"min_val": -0.5, "max_val": 1.5}),
         errors=(Err((arr(3),), {"min_val": 2.0, "max_val": 1.0}),)),
    _act("leaky_relu", FLOAT, ({}, {"negative_slope": 0.2})),
    _act("elu", FLOAT, ({}, {"alpha": 0.5})),
    _act("selu"),
    _act("celu", FLOAT, ({}, {"alpha": 2.0})),
    _act("gelu", FLOAT, ({}, {"approximate": "tanh"}), scalar=True,
         errors=(Err((arr(3),), {"approximate": "foo"}),)),
    _act("silu"),
    _act("mish"),
    _act("softplus", FLOAT, ({}, {"beta": 2.0, "threshold": 1.0})),
    _act("softsign", INT_FLOAT),
    _act("logsigmoid"),
    _act("tanhshrink", INT_FLOAT),
    _act("hardshrink", FLOAT, ({}, {"lambd": 1.0})),
    _act("softshrink", FLOAT, ({}, {"lambd": 1.0}), errors=(Err((arr(3),), {"lambd": -1.0}),)),
    _act("sigmoid", ALL, scalar=True),
    _act("tanh", ALL),
    Op("threshold", fn("threshold"), configs(case((2, 3), threshold=0.5, value=-1.0)), dtypes=INT_FLOAT),
    Op("hardsigmoid", fn("hardsigmoid"), fixed(_spread), dtypes=FLOAT),
    Op("hardswish", fn("hardswish"), fixed(_spread), dtypes=FLOAT),
    Op("prelu", fn("prelu"), configs(case((2, 3, 2), (1,)), case((2, 3, 2), (3,)), case((4,), (1,))),
       dtypes=FLOAT, errors=(Err((arr(2, 3), arr(2)),),)),
    Op("glu", fn("glu"), configs(case((2, 4)), case((4, 3), dim=0), case((2, 2, 2), dim=1)),
       dtypes=FLOAT, errors=(Err((arr(2, 3),)), Err((arr(),)), Err((arr(2, 4),), {"dim": 2}))),
    Op("softmax", _softmax_call("softmax"),
       configs(case((2, 3), dim=1), case((2, 3), dim=0), case((), dim=0), case((2, 3), dim=1, dtype="f64")),
       dtypes=FLOAT, errors=(Err((arr(2, 3),), {"dim": 2}),)),
    Op("log_softmax", fn("log_softmax"), configs(case((2, 3), dim=1), case((3, 2), dim=0)), dtypes=FLOAT),
    Op("softmin", fn("softmin"), configs(case((2, 3), dim=1), case((2, 3), dim=0)), dtypes=FLOAT),
]


def _inplace(name, dtypes=FLOAT):
    """``name(x * 1, inplace=True)``: the in-place form on a non-leaf (``x * 1`` of a bool is int64)."""
    def call(m, x):
        return getattr(m.nn.functional, name)(x * 1, inplace=True)
    return Op(f"{name}_inplace", call, configs(case((2, 3))), dtypes=dtypes)


INPLACE = [_inplace(n, ALL) for n in ("relu", "relu6", "hardtanh")]
INPLACE += [_inplace(n) for n in ("leaky_relu", "elu", "selu", "celu", "silu", "mish", "hardsigmoid", "hardswish")]
INPLACE.append(Op("threshold_inplace", lambda m, x: m.nn.functional.threshold(x * 1, 0.5, -1.0, inplace=True),
                  configs(case((2, 3))), dtypes=ALL))


# ====================================================================== dropout (deterministic cases)

DROPOUT = [
    Op("dropout_eval", fn("dropout"), configs(case((2, 3), training=False), case((2, 3), p=0.0)), dtypes=ALL,
       errors=(Err((arr(3),), {"p": 1.5}), Err((arr(3),), {"p": -0.1}))),
    Op("dropout_p1", fn("dropout"), configs(case((2, 3), p=1.0)), dtypes=ALL),
    Op("dropout1d_p1", fn("dropout1d"), configs(case((2, 3, 4), p=1.0), case((3, 4), p=1.0)), dtypes=ALL,
       errors=(Err((arr(2, 3, 4, 5),)), Err((arr(3),)))),
    Op("dropout2d_p1", fn("dropout2d"), configs(case((2, 3, 2, 2), p=1.0)), dtypes=ALL),
    Op("dropout3d_p1", fn("dropout3d"), configs(case((2, 2, 2, 2, 2), p=1.0), case((2, 2, 2, 2), p=1.0)),
       dtypes=ALL),
]


# ====================================================================== linear maps and lookups

def _embedding(make, shape=(2, 3), num=5, grad=True, **kwargs):
    rng = np.random.default_rng(len(shape))
    return Sample((rng.integers(0, num, shape), make(num, 3)), kwargs, grad=grad)


LINEAR = [
    Op("linear", fn("linear"),
       configs(case((2, 3), (4, 3), (4,)), case((2, 3), (4, 3)), case((3,), (4, 3), (4,)), case((3,), (4, 3)),
               case((2, 2, 3), (4, 3), (4,)), case((2, 2, 3), (4, 3)), case((2, 3), (3,)), case((2, 3), (4, 3), (1,))),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(4, 5))), Err((arr(2, 3), arr(4, 3), arr(5))), Err((arr(3), arr(4, 3), arr(5))),
               Err((arr(), arr(4, 3))), Err((arr(2, 3), arr(4, 3, dtype="float64"))),
               Err((arr(2, 3), arr(3), arr())))),
    Op("bilinear", fn("bilinear"),
       configs(case((2, 3), (2, 2), (4, 3, 2), (4,)), case((2, 3), (2, 2), (4, 3, 2)),
               case((2, 2, 3), (2, 2, 2), (1, 3, 2)), case((3,), (2,), (4, 3, 2))),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(3, 2), arr(4, 3, 2))), Err((arr(2, 3), arr(2, 2), arr(4, 3, 3))),
               Err((arr(2, 3), arr(2, 2), arr(4, 3, 2), arr(5))), Err((arr(2, 3), arr(2, 2, 2), arr(4, 3, 2))))),
    # padding_idx, scale_grad_by_freq and max_norm give gradients that finite differences can't
    # see (by design): test_embedding_gradients compares those with PyTorch's
    Op("embedding", fn("embedding"),
       fixed(_embedding, lambda m: _embedding(m, ()), lambda m: _embedding(m, (4,), padding_idx=-1, grad=False)),
       errors=(Err((arr(2), arr(4, 3))), Err((index(4), arr(4, 3))), Err((index(-1), arr(4, 3))),
               Err((index(1), arr(4, 3)), {"padding_idx": 4}), Err((index(1), arr(4))))),
    Op("one_hot", fn("one_hot"),
       fixed(lambda m: Sample((index(0, 2, 1).astype(m.dtype),)),
             lambda m: Sample((index(0, 2),), {"num_classes": 4}),
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
       configs(case((2, 3, 4), (2, 3, 4), (2, 3, 2), (3, 3), scale=0.3),
               case((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 2), mask="bool"),
               case((1, 4, 3, 2), (1, 2, 3, 2), (1, 2, 3, 2), enable_gqa=True, is_causal=True)),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3, 4), arr(2, 3, 5), arr(2, 3, 4))), Err((arr(4), arr(4), arr(4))),
               Err((arr(2, 3, 4), arr(2, 3, 4, dtype="float64"), arr(2, 3, 4))),
               Err((arr(2, 3, 4), arr(2, 3, 4), arr(2, 3, 4), arr(3, 3)), {"is_causal": True}))),
]


# ====================================================================== convolution and pooling

CONV = [
    Op("conv1d", fn("conv1d"),
       configs(case((1, 2, 5), (3, 2, 2), (3,)), case((2, 4, 6), (2, 2, 3), stride=2, padding=1, groups=2),
               case((2, 5), (3, 2, 2), dilation=2, padding="valid"),
               case((1, 2, 5), (3, 2, 4), padding="same", dilation=2)),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3, 4, 5), arr(4, 3, 3))),
               Err((arr(1, 2, 5), arr(3, 2, 2)), {"stride": 2, "padding": "same"}),
               Err((arr(1, 2, 5), arr(3, 2, 2)), {"padding": "foo"}))),
    Op("conv2d", fn("conv2d"),
       configs(case((1, 2, 4, 4), (3, 2, 2, 2), (3,)),
               case((2, 4, 5, 4), (2, 2, 3, 2), stride=(2, 1), padding=(1, 0), groups=2),
               case((2, 4, 4), (2, 2, 2, 2), dilation=2, padding=1), case((1, 2, 4, 4), (2, 2, 3, 1), padding="same")),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(4, 3, 3, 3))), Err((arr(2, 2, 5, 5), arr(4, 3, 3, 3))),
               Err((arr(1, 3, 2, 2), arr(4, 3, 3, 3))), Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3)), {"padding": -1}),
               Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3)), {"stride": 0}),
               Err((arr(1, 4, 5, 5), arr(3, 2, 3, 3)), {"groups": 2}),
               Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3), arr(5))), Err((arr(1, 3, 5, 5), arr(4, 3, 3))),
               Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3, dtype="float64"))),
               Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3)), {"groups": 0}),
               Err((arr(1, 3, 5, 5), arr(4, 3, 3, 3)), {"padding": (1, 1, 1)}))),
    Op("conv3d", fn("conv3d"), configs(case((1, 2, 3, 3, 3), (2, 2, 2, 2, 2), (2,))), dtypes=INT_FLOAT, tol=LOOSE),
    Op("conv_transpose1d", fn("conv_transpose1d"),
       configs(case((1, 2, 4), (2, 3, 3), (3,)), case((1, 4, 3), (4, 1, 3), stride=2, output_padding=1, groups=2),
               case((2, 4), (2, 2, 2), dilation=2, padding=1)),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(1, 2, 5, 5), arr(3, 4, 3))),)),
    Op("conv_transpose2d", fn("conv_transpose2d"),
       configs(case((1, 2, 3, 3), (2, 2, 2, 2), (2,)),
               case((1, 2, 3, 2), (2, 1, 3, 2), stride=(2, 1), padding=1, output_padding=(1, 0)),
               case((2, 3, 3), (2, 2, 2, 2), groups=1, dilation=2)),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(1, 2, 5, 5), arr(3, 4, 3, 3))),
               Err((arr(1, 3, 5, 5), arr(3, 4, 3, 3)), {"output_padding": 1}),
               Err((arr(3, 5), arr(3, 4, 3, 3))), Err((arr(1, 3, 5, 5), arr(3, 4, 3, 3)), {"padding": "same"}))),
]

POOL_ERRORS = (Err((arr(2, 3),), {"kernel_size": 2}), Err((arr(1, 1, 5, 5),), {"kernel_size": 2, "padding": 2}),
               Err((arr(1, 1, 1, 1),), {"kernel_size": 2}), Err((arr(1, 1, 4, 4),), {"kernel_size": 2, "stride": 0}),
               Err((arr(1, 1, 4, 4),), {"kernel_size": (2, 2, 2)}))

POOL = [
    Op("max_pool2d", fn("max_pool2d"),
       configs(case((1, 2, 4, 4), kernel_size=2), case((2, 5, 5), kernel_size=3, stride=2, padding=1),
               case((1, 1, 5, 6), kernel_size=2, dilation=2, ceil_mode=True),
               case((1, 2, 4, 5), kernel_size=(2, 3), stride=1, return_indices=True)),
       dtypes=INT_FLOAT,
       errors=POOL_ERRORS + (Err((arr(1, 1, 4, 4),), {"kernel_size": 2, "dilation": 0}),)),
    Op("max_pool1d", fn("max_pool1d"),
       configs(case((1, 2, 6), kernel_size=2), case((2, 7), kernel_size=3, stride=2, padding=1, return_indices=True),
               case((1, 1, 7), kernel_size=2, ceil_mode=True, dilation=2)),
       dtypes=FLOAT,
       errors=(Err((arr(2, 3, 4, 5),), {"kernel_size": 2}), Err((arr(1, 1, 4),), {"kernel_size": (2, 2)}))),
    Op("max_pool3d", fn("max_pool3d"), configs(case((1, 1, 4, 4, 3), kernel_size=2, return_indices=True)),
       dtypes=INT_FLOAT),
    Op("avg_pool2d", fn("avg_pool2d"),
       configs(case((1, 2, 4, 4), kernel_size=2), case((2, 5, 5), kernel_size=3, stride=2, padding=1),
               case((1, 1, 5, 5), kernel_size=2, padding=1, count_include_pad=False, ceil_mode=True),
               case((1, 1, 5, 5), kernel_size=3, stride=2, padding=1, ceil_mode=True, divisor_override=3)),
       dtypes=INT_FLOAT,
       errors=POOL_ERRORS[1:] + (Err((arr(1, 1, 4, 4),), {"kernel_size": 2, "divisor_override": 0}),)),
    Op("avg_pool1d", fn("avg_pool1d"),
       configs(case((1, 2, 6), kernel_size=2),
               case((2, 7), kernel_size=3, stride=2, padding=1, count_include_pad=False)),
       dtypes=INT_FLOAT, errors=(Err((arr(4),), {"kernel_size": 2}),)),
    Op("avg_pool3d", fn("avg_pool3d"), configs(case((1, 1, 4, 4, 3), kernel_size=2, padding=1)),
       dtypes=INT_FLOAT),
    Op("adaptive_avg_pool2d", fn("adaptive_avg_pool2d"),
       configs(case((1, 2, 5, 7), output_size=(2, 3)), case((2, 4, 4), output_size=1),
               case((1, 1, 5, 4), output_size=(None, 3)), case((1, 1, 3, 3), output_size=4)),
       dtypes=FLOAT,
       errors=(Err((arr(2),), {"output_size": 2}), Err((arr(1, 2, 4, 4),), {"output_size": (2, 2, 2)}),
               Err((arr(1, 2, 4, 4),), {"output_size": -1}), Err((arr(1, 2, 0, 4),), {"output_size": 2}))),
    Op("adaptive_avg_pool1d", fn("adaptive_avg_pool1d"),
       configs(case((1, 2, 7), output_size=3), case((2, 5), output_size=1)), dtypes=FLOAT,
       errors=(Err((arr(4),), {"output_size": 2}),)),
    Op("adaptive_avg_pool3d", fn("adaptive_avg_pool3d"), configs(case((1, 1, 3, 4, 5), output_size=2)),
       dtypes=FLOAT),
    Op("adaptive_max_pool2d", fn("adaptive_max_pool2d"),
       configs(case((1, 2, 5, 7), output_size=(2, 3)), case((2, 4, 4), output_size=3, return_indices=True)),
       dtypes=FLOAT, errors=(Err((arr(2),), {"output_size": 2}),)),
    Op("adaptive_max_pool1d", fn("adaptive_max_pool1d"),
       configs(case((1, 2, 7), output_size=3, return_indices=True), case((2, 5), output_size=2)), dtypes=FLOAT),
    Op("adaptive_max_pool3d", fn("adaptive_max_pool3d"), configs(case((1, 1, 3, 4, 5), output_size=2)),
       dtypes=FLOAT),
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
       fixed(_bn_sample((4, 3), training=True), _bn_sample((2, 3, 2, 2), stats=True, affine=True, training=True),
             _bn_sample((2, 3, 2), stats=True, affine=True, eps=0.1)),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(1, 3),), {"training": True}), Err((arr(2, 3), arr(4), arr(4)), {"stats": True}),
               Err((arr(2, 3),)), Err((arr(2, 3), arr(4), arr(4)), {"affine": True, "training": True}),
               Err((arr(2, 3),), {"training": True, "eps": 0.0}),
               Err((arr(2, 3), arr(3, dtype="float64"), arr(3)), {"stats": True}))),
    Op("instance_norm", _instance,
       fixed(lambda m: Sample((m(2, 3, 4),)),
             lambda m: Sample((m(2, 2, 3), m(2), positive(m, 2), m(2), m(2)),
                              {"stats": True, "affine": True, "use_input_stats": False}, frozen=(1, 2))),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3, 1),)), Err((arr(2, 3),)), Err((arr(2, 3, 4), arr(4), arr(4)), {"stats": True}))),
    Op("layer_norm", _shape_first("layer_norm", "normalized_shape"),
       configs(case((2, 3), normalized_shape=(3,)), case((2, 2, 3), (2, 3), (2, 3), normalized_shape=(2, 3)),
               case((4,), (4,), normalized_shape=[4], eps=0.1)),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3),), {"normalized_shape": (4,)}), Err((arr(2, 3), arr(4)), {"normalized_shape": (3,)}),
               Err((arr(2, 3),), {"normalized_shape": 3}), Err((arr(2, 3),), {"normalized_shape": ()}))),
    Op("group_norm", _shape_first("group_norm", "num_groups"),
       configs(case((2, 4, 3), num_groups=2), case((2, 4, 2, 2), (4,), (4,), num_groups=4),
               case((3, 2), num_groups=1, eps=0.1)),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3, 4),), {"num_groups": 2}), Err((arr(3),), {"num_groups": 1}),
               Err((arr(2, 4, 3), arr(3)), {"num_groups": 2}), Err((arr(1, 2, 1),), {"num_groups": 2}))),
    Op("rms_norm", _shape_first("rms_norm", "normalized_shape"),
       configs(case((2, 3), normalized_shape=(3,)), case((2, 2, 3), (2, 3), normalized_shape=(2, 3), eps=0.1)),
       dtypes=FLOAT, tol=LOOSE, errors=(Err((arr(2, 3),), {"normalized_shape": (4,)}),)),
    Op("normalize", fn("normalize"),
       configs(case((2, 3)), case((2, 3), p=1.0, dim=0), case((3,), dim=0)),
       dtypes=FLOAT, errors=(Err((arr(),),),)),
]


# ====================================================================== padding and resampling

PAD_SHAPE_ERRORS = (Err((arr(2, 3),), {"pad": (1,)}), Err((arr(2, 3),), {"pad": (1, 1, 1, 1, 1, 1)}),
                    Err((arr(2, 3),), {"pad": (1, 1), "mode": "foo"}),
                    Err((arr(2, 3),), {"pad": (3, 3), "mode": "reflect"}),
                    Err((arr(1, 2, 3),), {"pad": (4, 4), "mode": "circular"}),
                    Err((arr(1, 2, 3),), {"pad": (-2, -2), "mode": "circular"}),
                    Err((arr(3),), {"pad": (1, 1), "mode": "reflect"}),
                    Err((arr(2, 3),), {"pad": (1, 1), "mode": "reflect", "value": 1.0}),
                    Err((arr(2, 3),), {"pad": (-4, 1)}))

SPATIAL = [
    Op("pad", fn("pad"),
       configs(case((2, 3), pad=(1, 2)), case((2, 3), pad=(1, 0, -1, 2), value=1.5),
               case((1, 3, 3), pad=(1, 2, 2, 1), mode="reflect"),
               case((2, 3), pad=(2, 1), mode="replicate"), case((1, 2, 3), pad=(1, 0, 2, -1), mode="replicate"),
               case((1, 3, 3), pad=(1, 1, 0, 2), mode="circular"),
               case((1, 2, 3), pad=(-1, 2), mode="circular")),
       dtypes=ALL, errors=PAD_SHAPE_ERRORS),
    Op("interpolate", fn("interpolate"),
       configs(case((1, 2, 3, 3), scale_factor=2), case((1, 1, 5), size=7), case((1, 1, 5), size=3),
               case((1, 1, 4), scale_factor=1.5, mode="nearest-exact"),
               case((1, 1, 4), size=6, mode="linear", align_corners=True),
               case((1, 1, 3, 4), scale_factor=(1.7, 0.6), mode="bilinear"),
               case((1, 1, 3, 3), scale_factor=2, mode="bilinear", align_corners=True),
               case((1, 1, 3, 4), size=(5, 3), mode="bicubic"),
               case((1, 1, 2, 3, 2), scale_factor=2, mode="trilinear", recompute_scale_factor=True),
               case((1, 2, 5, 6), size=(2, 4), mode="area")),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(1, 1, 4),), {"size": 2, "scale_factor": 2}), Err((arr(1, 1, 4),)),
               Err((arr(1, 1, 4),), {"size": 2, "align_corners": True}),
               Err((arr(1, 1, 4),), {"size": 2, "mode": "bilinear"}),
               Err((arr(1, 1, 4),), {"size": (2, 2)}), Err((arr(1, 1, 4),), {"size": 2, "mode": "foo"}),
               Err((arr(4, 4),), {"size": 2}), Err((arr(1, 1, 4, 4),), {"scale_factor": (2, 2, 2)}),
               Err((arr(1, 1, 4),), {"size": 0}))),
    Op("unfold", fn("unfold"),
       configs(case((1, 2, 3, 4), kernel_size=2), case((2, 4, 4), kernel_size=(2, 3), padding=1, stride=2),
               case((1, 1, 5, 5), kernel_size=2, dilation=2)),
       dtypes=("bool",) + FLOAT,
       errors=(Err((arr(2, 3),), {"kernel_size": 2}), Err((arr(1, 1, 2, 2),), {"kernel_size": 3}))),
    Op("fold", fn("fold"),
       configs(case((1, 8, 6), output_size=(3, 4), kernel_size=2),
               case((12, 6), output_size=(4, 4), kernel_size=(2, 3), padding=1, stride=2),
               case((1, 4, 9), output_size=5, kernel_size=2, dilation=2)),
       dtypes=("bool",) + FLOAT,
       errors=(Err((arr(1, 5, 16),), {"output_size": (5, 5), "kernel_size": 2}),
               Err((arr(1, 4, 15),), {"output_size": (5, 5), "kernel_size": 2}),
               Err((arr(4, 16, 1, 1),), {"output_size": (5, 5), "kernel_size": 2}))),
    Op("pixel_shuffle", fn("pixel_shuffle"),
       configs(case((1, 8, 2, 3), upscale_factor=2), case((9, 1, 2), upscale_factor=3)), dtypes=ALL,
       errors=(Err((arr(1, 3, 2, 2),), {"upscale_factor": 2}), Err((arr(4, 2),), {"upscale_factor": 2}))),
    Op("pixel_unshuffle", fn("pixel_unshuffle"),
       configs(case((1, 2, 4, 6), downscale_factor=2), case((1, 3, 3), downscale_factor=3)), dtypes=ALL,
       errors=(Err((arr(1, 1, 3, 4),), {"downscale_factor": 2}), Err((arr(4, 2),), {"downscale_factor": 2}))),
]


# ====================================================================== losses

def _pair(kwargs=({},), shapes=((2, 3), (2, 3))):
    return [case(*shapes, **k) for k in kwargs]


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
    Op("mse_loss", _weight_kw("mse_loss"), configs(*_pair(REDUCTIONS), case((2, 3), (2, 3), (2, 3))), dtypes=FLOAT,
       errors=(BAD_REDUCTION, Err((arr(2, 3), arr(2, 3), arr(3)), note="weight of another shape"))),
    Op("l1_loss", _weight_kw("l1_loss"), configs(*_pair(REDUCTIONS), case((2, 3), (2, 3), (2, 3), reduction="sum")),
       dtypes=FLOAT, errors=(BAD_REDUCTION,)),
    Op("smooth_l1_loss", fn("smooth_l1_loss"),
       configs(*_pair(REDUCTIONS), *_pair(({"beta": 0.5}, {"beta": 0.0, "reduction": "sum"}))),
       dtypes=FLOAT, errors=(BAD_REDUCTION, Err((arr(2), arr(2)), {"beta": -1.0}))),
    Op("huber_loss", _weight_kw("huber_loss"),
       configs(*_pair(REDUCTIONS), case((2, 3), (2, 3), (2, 3), delta=0.5)),
       dtypes=FLOAT, errors=(BAD_REDUCTION, Err((arr(2), arr(2)), {"delta": 0.0}))),
    Op("cross_entropy", _weighted("cross_entropy"),
       fixed(_ce((3, 4)), _ce((3, 4), ignore=1, reduction="sum"), _ce((4,)), _ce((2, 3, 2, 2)),
             _ce((3, 4), label_smoothing=0.2), _ce((3, 4), weight=True, ignore=3, label_smoothing=0.1),
             _ce((3, 4), probs=True, weight=True, reduction="sum"),
             _ce((2, 3, 2), probs=True, label_smoothing=0.3, reduction="none")),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), index(0, 3))), Err((arr(2, 3), arr(2, 4))), Err((arr(2, 3), arr(2, 3, dtype="int64"))),
               Err((arr(2, 3), arr(2, 3)), {"ignore_index": 1}),
               Err((arr(2, 3), index(0, 1)), {"label_smoothing": 1.5}),
               Err((arr(2, 3), arr(2))), Err((arr(2, 3), index(0, 3)), {"label_smoothing": 0.1}))),
    Op("nll_loss", _weighted("nll_loss"),
       fixed(_ce((3, 4)), _ce((3, 4), weight=True, reduction="sum"), _ce((3, 4), ignore=0, reduction="none"),
             _ce((2, 3, 2, 2), weight=True, reduction="none"), _ce((2, 3, 2, 1, 2), ignore=1)),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), index(0, 5))), Err((arr(2, 3), index(0, -1))),
               Err((arr(2, 3), index(0, 1).astype(np.int32))),
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
             _kl((3,), reduction="batchmean", log_target=True)),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2), arr(2, dtype="int64")), {"reduction": "sum"}),
               Err((arr(2), arr(2)), {"reduction": "foo"}))),
    Op("cosine_embedding_loss", fn("cosine_embedding_loss"),
       fixed(lambda m: Sample((m(3, 4), m(3, 4), np.array([1, -1, 1])), {"margin": -0.5, "reduction": "none"}),
             lambda m: Sample((m(4), m(4), np.array(-1.0, m.dtype)), {"margin": -0.9, "reduction": "sum"},
                              frozen=(2,))),
       dtypes=ALL, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(2, 3), arr())), Err((arr(2, 3, 4), arr(2, 3, 4), arr(2))),
               Err((arr(2, 3), arr(2, 4), arr(2))))),
    Op("margin_ranking_loss", fn("margin_ranking_loss"),
       fixed(lambda m: Sample((m(4), m(4), _signs(m, 4)), frozen=(2,)),
             lambda m: Sample((m(2, 3), m(2, 3), _signs(m, 2, 3)), {"margin": 0.5, "reduction": "none"},
                              frozen=(2,))),
       dtypes=INT_FLOAT, errors=(Err((arr(2), arr(2, 1), arr(2))), Err((arr(2), arr(3), arr(2))))),
    Op("triplet_margin_loss", fn("triplet_margin_loss"),
       configs(case((3, 4), (3, 4), (3, 4)), case((3, 4), (3, 4), (3, 4), p=1, swap=True, margin=2.0)),
       dtypes=INT_FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(3), arr(2, 3))), Err((arr(2, 3), arr(2, 3), arr(2, 3)), {"margin": -1.0}))),
    Op("pairwise_distance", fn("pairwise_distance"),
       configs(case((2, 3), (2, 3)), case((2, 3), (3,), p=1.0, keepdim=True), case((3,), (3,), p=3.0), case((), ()),
               case((2, 3), (2, 3), p=float("inf"))),
       dtypes=INT_FLOAT, tol=LOOSE, errors=(Err((arr(2, 3), arr(2, 4))),)),
    Op("cosine_similarity", fn("cosine_similarity"),
       configs(case((2, 3), (2, 3)), case((2, 3), (3,)), case((3,), (3,), dim=0)),
       dtypes=FLOAT, tol=LOOSE,
       errors=(Err((arr(2, 3), arr(4))), Err((arr(2, 3, dtype="int64"), arr(2, 3, dtype="int64"))))),
]

ROWS = ACTIVATIONS + INPLACE + DROPOUT + LINEAR + ATTENTION + CONV + POOL + NORM + SPATIAL + LOSSES
CASES = C.cases(ROWS)


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


# one test per case, a row's checks one after another (values, gradients against PyTorch and
# finite differences, grad_fn names, errors): its compiled kernels are still cached for the next
@pytest.mark.parametrize("check, row, payload", C.params(CASES))
def test_row_matches_torch(check, row, payload):
    C.run_case(check, row, payload, None if check == "grad_fd" else pytest.importorskip("torch"))


# ====================================================================== gradients at kinks

KINKS = [
    ("relu", lambda F, x: F.relu(x), [-1.0, 0.0, 1.0]),
    ("relu6", lambda F, x: F.relu6(x), [-1.0, 0.0, 3.0, 6.0, 7.0]),
    ("hardtanh", lambda F, x: F.hardtanh(x), [-2.0, -1.0, 0.0, 1.0, 2.0]),
    ("leaky_relu", lambda F, x: F.leaky_relu(x), [-1.0, 0.0, 1.0]),
    ("elu", lambda F, x: F.elu(x, 2.0), [-1.0, 0.0, 1.0]),
    ("celu", lambda F, x: F.celu(x, 2.0), [-1.0, 0.0, 1.0]),
    ("selu", lambda F, x: F.selu(x), [0.0]),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x), [-3.0, 0.0, 3.0]),
    ("hardswish", lambda F, x: F.hardswish(x), [-3.0, 0.0, 3.0]),
    ("softplus_threshold", lambda F, x: F.softplus(x, threshold=1.0), [1.0, 0.5, 2.0]),
    ("threshold", lambda F, x: F.threshold(x, 0.5, 0.0), [0.5, 0.6]),
    ("hardshrink", lambda F, x: F.hardshrink(x, 0.5), [-0.5, 0.5, 0.6]),
    ("softshrink", lambda F, x: F.softshrink(x, 0.5), [-0.5, 0.5, 0.6]),
    ("smooth_l1", lambda F, x: F.smooth_l1_loss(x, x.detach() * 0, reduction="none"), [-1.0, 0.0, 1.0]),
    ("huber", lambda F, x: F.huber_loss(x, x.detach() * 0, reduction="none", delta=0.5), [-0.5, 0.0, 0.5]),
    ("l1", lambda F, x: F.l1_loss(x, x.detach() * 0, reduction="none"), [-1.0, 0.0, 1.0]),
    ("margin_ranking", lambda F, x: F.margin_ranking_loss(x, x.detach() * 0, x.detach() * 0 + 1, reduction="none"),
     [0.0, 1.0]),
    ("max_pool_ties", lambda F, x: F.max_pool1d(x.view(1, 1, 4), 2), [1.0, 1.0, 2.0, 2.0]),
    ("max_pool_overlap", lambda F, x: F.max_pool1d(x.view(1, 1, 4), 3, stride=1), [1.0, 3.0, 3.0, 0.0]),
    ("adaptive_max_ties", lambda F, x: F.adaptive_max_pool1d(x.view(1, 1, 4), 1), [2.0, 1.0, 2.0, 2.0]),
    ("bce_at_0_and_1", lambda F, x: F.binary_cross_entropy(x, x.detach() * 0 + 0.5, reduction="none"),
     [0.0, 1.0, 0.5]),
    ("normalize_zero", lambda F, x: F.normalize(x.view(1, 2)), [0.0, 0.0]),
    ("cosine_similarity_zero", lambda F, x: F.cosine_similarity(x.view(1, 2), x.detach().view(1, 2) + 1), [0.0, 0.0]),
    ("pairwise_distance_equal", lambda F, x: F.pairwise_distance(x.view(1, 2), x.detach().view(1, 2) - 1e-6),
     [0.0, 0.0]),
]

# observed PyTorch values (reference Appendix A and PyTorch 2.13, float32)
KINK_EXPECTED = {
    "relu": [0.0, 0.0, 1.0],
    "relu6": [0.0, 0.0, 1.0, 0.0, 0.0],
    "hardtanh": [0.0, 0.0, 1.0, 0.0, 0.0],
    "leaky_relu": [0.01, 0.01, 1.0],
    "hardswish": [0.0, 0.5, 1.0],
    "l1": [-1.0, 0.0, 1.0],
    "max_pool_ties": [1.0, 0.0, 1.0, 0.0],
    "adaptive_max_ties": [1.0, 0.0, 0.0, 0.0],
}


def _kink_grad(m, call, values):
    x = m.tensor(values, dtype=m.float32, requires_grad=True)
    call(m.nn.functional, x).sum().backward()
    return x.grad.numpy()


@pytest.mark.parametrize("name, call, values", KINKS, ids=[k[0] for k in KINKS])
def test_gradient_at_kink_matches_torch(name, call, values, torch):
    np.testing.assert_allclose(_kink_grad(tensorgrad, call, values), _kink_grad(torch, call, values), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(KINK_EXPECTED))
def test_gradient_at_kink_has_pytorch_value(name):
    call, values = next((c, v) for n, c, v in KINKS if n == name)
    np.testing.assert_allclose(_kink_grad(tensorgrad, call, values), KINK_EXPECTED[name], rtol=1e-6)


# ====================================================================== running statistics

def _stats(m, momentum=0.1, training=True):
    rng = np.random.default_rng(0)
    x = m.tensor(rng.normal(size=(4, 3, 2)))
    rm = m.tensor(rng.normal(size=3))
    rv = m.tensor(rng.uniform(0.5, 2.0, size=3))
    out = m.nn.functional.batch_norm(x, rm, rv, training=training, momentum=momentum)
    return out, rm, rv


@pytest.mark.parametrize("momentum, training", [(0.1, True), (0.5, True), (0.1, False)])
def test_batch_norm_updates_running_stats_like_torch(momentum, training, torch):
    ours = _stats(tensorgrad, momentum, training)
    theirs = _stats(torch, momentum, training)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)
    # the native kernel writes running statistics without bumping their version
    assert ours[1]._version == theirs[1]._version


def test_instance_norm_updates_running_stats_like_torch(torch):
    def run(m):
        rng = np.random.default_rng(1)
        x = m.tensor(rng.normal(size=(2, 3, 4)))
        rm, rv = m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64)
        out = m.nn.functional.instance_norm(x, rm, rv, momentum=0.3)
        return out, rm, rv
    ours, theirs = run(tensorgrad), run(torch)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)
    assert ours[1]._version == theirs[1]._version


# ====================================================================== dropout

def test_dropout_keeps_scaled_elements_with_probability_1_minus_p():
    tensorgrad.manual_seed(0)
    x = tensorgrad.ones(20000, requires_grad=True)
    y = TF.dropout(x, 0.3)
    values = y.detach().numpy()
    kept = values != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(values[kept], 1 / 0.7, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), values, rtol=1e-6)  # the gradient is the mask


def test_dropout_is_reproducible_under_manual_seed():
    x = tensorgrad.ones(64)
    tensorgrad.manual_seed(7)
    a = TF.dropout(x).numpy()
    b = TF.dropout(x).numpy()
    tensorgrad.manual_seed(7)
    np.testing.assert_array_equal(TF.dropout(x).numpy(), a)
    assert not np.array_equal(a, b)


def test_feature_dropout_zeroes_whole_channels():
    tensorgrad.manual_seed(3)
    y = TF.dropout2d(tensorgrad.ones(8, 16, 3, 3), 0.5).numpy()
    per_channel = y.reshape(8, 16, -1)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    assert 0 < (per_channel == 0).all(-1).sum() < 8 * 16
    y1 = TF.dropout1d(tensorgrad.ones(16, 5), 0.5).numpy()  # unbatched (C, L)
    assert np.all((y1 == 0).all(-1) | (y1 == 2).all(-1))


def test_dropout_returns_input_itself_when_nothing_drops():
    x = tensorgrad.ones(3, requires_grad=True)
    assert TF.dropout(x, training=False) is x
    assert TF.dropout(x, 0.0) is x
    assert TF.dropout1d(x.view(1, 3), training=False) is not None


def test_dropout_inplace_writes_input():
    y = tensorgrad.ones(4, 5, requires_grad=True) * 1
    out = TF.dropout(y, 0.5, inplace=True)
    assert out is y
    assert y.grad_fn.name() == "MulBackward0"
    assert set(np.unique(y.detach().numpy())) <= {0.0, 2.0}


def test_sdpa_dropout_scales_kept_weights():
    tensorgrad.manual_seed(0)
    q = tensorgrad.zeros(1, 200, 4)
    v = tensorgrad.ones(1, 200, 4)
    out = TF.scaled_dot_product_attention(q, q, v, dropout_p=0.5).numpy()
    # uniform attention 1/200 per key, each kept with probability 1/2 and scaled by 2
    assert abs(out.mean() - 1.0) < 0.1


# ====================================================================== warnings

def test_softmax_without_dim_warns_and_picks_torch_dim(torch):
    x = np.random.default_rng(0).normal(size=(2, 3, 4))
    for m in (tensorgrad, torch):
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            got = m.nn.functional.softmax(m.tensor(x)).numpy()
        np.testing.assert_allclose(got, torch.softmax(torch.tensor(x), 0).numpy(), rtol=1e-12)


def test_loss_with_broadcast_target_warns(torch):
    x = np.ones((2, 3))
    t = np.zeros(3)
    for m in (tensorgrad, torch):
        with pytest.warns(UserWarning, match="Using a target size"):
            assert float(m.nn.functional.mse_loss(m.tensor(x), m.tensor(t))) == 1.0


def test_kl_div_mean_warns_and_matches_torch(torch):
    logp, t = np.log(np.full((2, 3), 0.25)), np.full((2, 3), 0.5)
    values = []
    for m in (tensorgrad, torch):
        with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
            values.append(float(m.nn.functional.kl_div(m.tensor(logp), m.tensor(t))))
    assert values[0] == pytest.approx(values[1], rel=1e-12)


def test_legacy_size_average_and_reduce_warn(torch):
    x, t = np.arange(6.0).reshape(2, 3), np.zeros((2, 3))
    for kwargs, want in (({"size_average": False}, 55.0), ({"reduce": False}, None)):
        for m in (tensorgrad, torch):
            with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
                out = m.nn.functional.mse_loss(m.tensor(x), m.tensor(t), **kwargs)
            if want is not None:
                assert float(out) == want
            else:
                assert tuple(out.shape) == (2, 3)


def test_conv_same_with_even_kernel_warns_and_pads_right(torch):
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(1, 2, 5)), rng.normal(size=(3, 2, 4))
    outs = []
    for m in (tensorgrad, torch):
        with pytest.warns(UserWarning, match="padding='same' with even kernel lengths"):
            y = m.nn.functional.conv1d(m.tensor(x, requires_grad=True), m.tensor(w), padding="same")
        outs.append(y)
    np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-10)
    assert C.node_names(outs[0]) == C.node_names(outs[1])  # Convolution over ConstantPadNd


def test_dropout2d_warns_for_3d_input(torch):
    for m in (tensorgrad, torch):
        with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
            m.nn.functional.dropout2d(m.ones(2, 3, 4), training=False)


# ====================================================================== embedding and losses at edges

def _embedding_grads(m, **kwargs):
    weight = m.tensor(np.random.default_rng(0).normal(size=(5, 3)), requires_grad=True)
    idx = m.tensor([[0, 1, 1], [4, 1, 2]])
    out = m.nn.functional.embedding(idx, weight, **kwargs)
    out.backward(m.tensor(np.random.default_rng(1).normal(size=(2, 3, 3))))
    return out.detach().numpy(), weight.detach().numpy(), weight.grad.numpy(), weight._version


@pytest.mark.parametrize("kwargs", [{"padding_idx": 1}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
                                    {"max_norm": 1.0}, {"max_norm": 0.5, "norm_type": 1.0, "padding_idx": 0}],
                         ids=["padding_idx", "padding_idx_negative", "scale_grad_by_freq", "max_norm", "max_norm_l1"])
def test_embedding_gradients(kwargs, torch):
    ours, theirs = _embedding_grads(tensorgrad, **kwargs), _embedding_grads(torch, **kwargs)
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-12)
    assert (ours[3] > 0) == (theirs[3] > 0)  # max_norm rewrites the weight in place


def test_nll_loss_with_every_target_ignored_is_nan_with_zero_gradient(torch):
    grads = []
    for m in (tensorgrad, torch):
        x = m.tensor(np.ones((2, 3)), requires_grad=True)
        loss = m.nn.functional.cross_entropy(x, m.tensor([-100, -100]))
        assert np.isnan(float(loss.detach()))
        loss.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_cross_entropy_is_stable_for_large_logits(torch):
    x = np.array([[1000.0, 0.0, -1000.0], [0.0, 0.0, 0.0]])
    t = np.array([2, 0])
    values = [float(m.nn.functional.cross_entropy(m.tensor(x, dtype=m.float32), m.tensor(t)))
              for m in (tensorgrad, torch)]
    assert values[0] == pytest.approx(values[1], rel=1e-6)
    assert np.isfinite(values[0])


def test_inplace_activation_on_leaf_is_rejected(torch):
    for m in (tensorgrad, torch):
        x = m.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            m.nn.functional.relu(x, inplace=True)


def test_inplace_activation_returns_its_input():
    y = tensorgrad.tensor([-1.0, 2.0])
    assert TF.relu(y, inplace=True) is y
    assert y.tolist() == [0.0, 2.0]
    assert TF.leaky_relu_(y, 0.5) is y


# ====================================================================== error messages

def _errors():
    out = []
    for row in ROWS:
        for i, err in enumerate(row.errors):
            out.append(pytest.param(row, err, id=f"{row.name}-{i}"))
    return out


@pytest.mark.parametrize("row, err", _errors())
def test_error_messages_match_torch(row, err, torch):
    sample = Sample(err.args, err.kwargs)
    theirs = C.raised(lambda: C.call(torch, row, sample, fn=err.call))
    ours = C.raised(lambda: C.call(tensorgrad, row, sample, fn=err.call))
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("kernel, stride, padding, dilation", [((2, 2), (2, 2), (0, 0), (1, 1)),
                                                               ((3, 3), (2, 1), (1, 1), (1, 2)),
                                                               ((4, 4), (1, 1), (2, 1), (1, 1))])
def test_small_max_pool_windows_choose_as_the_argmax_form_without_torch(dtype, kernel, stride, padding, dilation):
    # windows of up to 16 elements are reduced by a chain of selections; it must pick the same
    # element (values, indices and the gradient's route) as the argmax-and-gather form
    import jax
    import jax.numpy as jnp
    from tensorgrad._ops import nn_conv as NC
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 3, (2, 3, 9, 8)).astype(dtype)    # many ties
    if dtype != np.int32:
        x[0, 0, 1, :4] = np.nan
        x[1, 2] = rng.standard_normal((9, 8))
    out = tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, k, s, p, d in zip(x.shape[2:], kernel, stride, padding, dilation))
    fill = -np.inf if dtype != np.int32 else np.iinfo(dtype).min
    positions = NC._window_positions(x.shape[2:], kernel, stride, dilation, padding, out)

    def chain(a):
        return NC._first_max(NC._window_elements(a, kernel, stride, dilation, padding, out, fill), positions)

    def gathered(a):
        return NC._max_over_windows(NC._windows(a, kernel, stride, dilation, padding, out, fill), positions)
    for mine, theirs in zip(chain(jnp.asarray(x)), gathered(jnp.asarray(x))):
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))
    if dtype != np.int32:
        g = rng.standard_normal((2, 3) + out).astype(dtype)
        grads = [jax.vjp(lambda a, f=f: f(a)[0], jnp.asarray(x))[1](jnp.asarray(g))[0] for f in (chain, gathered)]
        np.testing.assert_array_equal(np.asarray(grads[0]), np.asarray(grads[1]))
