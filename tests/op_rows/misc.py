"""Rows for torch.masked, the ``*_copy`` functions (``_reshape_alias_copy`` too), ``as_strided``
(its copy and in-place forms), the unsafe splits, ``index_reduce``, ``unravel_index``,
``constant_pad_nd`` and ``torch.fill``."""

import warnings

import numpy as np

from op_table import ALL, FLOAT, INT_FLOAT, Err, Op, Sample, arr, index, samples_of
from oracle import torch

if torch is not None:
    # PyTorch warns once per process that index_reduce is in beta: let it here, not inside a check
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.zeros(1).index_reduce(0, torch.zeros(1, dtype=torch.int64), torch.ones(1), "prod")


def _mask(*shape):
    rng = np.random.default_rng(1)
    m = rng.random(shape) < 0.6
    m[:, 0] = m[0] = True       # no slice fully masked out (tests/test_misc_ops.py checks those)
    return m


def _masked(make):
    return [Sample((make(3, 4), _mask(3, 4)), frozen=(1,))]


def _masked_unit(make):
    return [Sample((make(3, 4, domain="positive"), _mask(3, 4)), frozen=(1,))]


def _reduce_rows(src):
    def samples(make):
        return [Sample((make(3, 2), index(0, 0, 2) if src == 3 else index(1), make(src, 2)))]
    return samples


ROWS = [
    # torch.masked: the masked-out elements are the identity, a fully masked-out row gives it
    # (sum 0, amax -inf) or NaN (mean, var)
    Op("misc_masked_sum", lambda m, x, k: m.masked.sum(x, 1, mask=k), _masked, dtypes=ALL),
    Op("misc_masked_amax", lambda m, x, k: m.masked.amax(x, 1, mask=k), _masked, dtypes=INT_FLOAT),
    Op("misc_masked_mean", lambda m, x, k: m.masked.mean(x, 1, mask=k), _masked, dtypes=FLOAT),
    Op("misc_masked_norm", lambda m, x, k: m.masked.norm(x, 2.0, 1, mask=k), _masked_unit, dtypes=FLOAT),
    Op("misc_masked_var", lambda m, x, k: m.masked.var(x, 1, mask=k), _masked, dtypes=INT_FLOAT),
    Op("misc_masked_softmax", lambda m, x, k: m.masked.softmax(x, 1, mask=k), _masked, dtypes=FLOAT),
    # the *_copy functions: the view's value as a new tensor (PermuteBackward0_copy, ...)
    Op("misc_permute_copy", lambda m, x: m.permute_copy(x, (1, 0)), samples_of((2, 3))),
    Op("misc_unbind_copy", lambda m, x: m.unbind_copy(x, 1), samples_of((2, 3))),
    Op("misc_narrow_copy", lambda m, x: m.narrow_copy(x, 1, 1, 2), samples_of((2, 3)),
       errors=(Err((arr(2, 3),), call=lambda m, x: m.narrow_copy(x, 1, 2, 2)),)),
    Op("misc_expand_copy", lambda m, x: m.expand_copy(x, (2, 3, 2)), samples_of((3, 1))),
    Op("misc_alias_copy", lambda m, x: m.alias_copy(x), samples_of((2, 3))),
    Op("misc_diagonal_copy", lambda m, x: m.diagonal_copy(x, 1), samples_of((3, 4))),
    Op("misc_select_copy", lambda m, x: m.select_copy(x, 1, 2), samples_of((2, 3))),
    Op("misc_slice_copy", lambda m, x: m.slice_copy(x, 1, 0, 3, 2), samples_of((2, 3))),
    Op("misc_split_with_sizes_copy", lambda m, x: m.split_with_sizes_copy(x, [1, 2], 1), samples_of((2, 3))),
    Op("misc_split_copy", lambda m, x: m.split_copy(x, 2, 1), samples_of((2, 3)),
       errors=(Err((arr(2, 3),), call=lambda m, x: m.split_copy(x, -1, 1), note="negative split size"),
               Err((arr(2, 3),), call=lambda m, x: m.split_copy(x, [1, 2], 1),
                   note="a list: split_with_sizes_copy's"))),
    # PyTorch's _reshape_alias as a copy: a reshape of a transposed (non-contiguous) tensor, and
    # of a contiguous one (a size-1 dimension takes any stride); strides of other layouts raise
    # here (PyTorch reads wherever they point, past the storage too)
    Op("misc_reshape_alias_copy", lambda m, x: m._reshape_alias_copy(x.transpose(0, 1), (3, 2, 2, 2), (4, 12, 2, 1)),
       samples_of((2, 3, 4))),
    Op("misc_reshape_alias_copy_contiguous", lambda m, x: m._reshape_alias_copy(x, (6, 1, 4), (4, 7, 1)),
       samples_of((2, 3, 4)),
       errors=(Err((arr(2, 3, 4),), call=lambda m, x: m._reshape_alias_copy(x, (24,), (1, 1)), note="lengths differ"),
               Err((arr(2, 3, 4),), call=lambda m, x: m._reshape_alias_copy(x, (3, -8), (8, 1)),
                   note="negative size"))),
    Op("misc_squeeze_copy", lambda m, x: m.squeeze_copy(x), samples_of((2, 1, 3))),
    Op("misc_squeeze_dim_copy", lambda m, x: m.squeeze_copy(x, 1), samples_of((2, 1, 3))),
    Op("misc_squeeze_dims_copy", lambda m, x: m.squeeze_copy(x, (1, 2)), samples_of((2, 1, 1))),
    Op("misc_t_copy", lambda m, x: m.t_copy(x), samples_of((2, 3))),
    Op("misc_transpose_copy", lambda m, x: m.transpose_copy(x, 0, 2), samples_of((2, 3, 2))),
    Op("misc_unfold_copy", lambda m, x: m.unfold_copy(x, 1, 2, 1), samples_of((2, 3))),
    Op("misc_unsqueeze_copy", lambda m, x: m.unsqueeze_copy(x, 1), samples_of((2, 3))),
    Op("misc_view_copy", lambda m, x: m.view_copy(x, (3, 2)), samples_of((2, 3))),
    Op("misc_unsafe_split", lambda m, x: m.unsafe_split(x, 2, 1), samples_of((2, 3))),
    Op("misc_unsafe_split_with_sizes", lambda m, x: m.unsafe_split_with_sizes(x, [2, 1], 1), samples_of((2, 3))),
    # the in-place views, on a copy (a leaf that requires grad may not be changed in place)
    Op("misc_t_", lambda m, x: x.clone().t_(), samples_of((2, 3))),
    Op("misc_transpose_", lambda m, x: x.clone().transpose_(0, 1), samples_of((2, 3))),
    Op("misc_squeeze_", lambda m, x: x.clone().squeeze_(), samples_of((2, 1, 3))),
    Op("misc_squeeze_dim_", lambda m, x: x.clone().squeeze_(1), samples_of((2, 1, 3))),
    Op("misc_squeeze_dims_", lambda m, x: x.clone().squeeze_((1, 2)), samples_of((2, 1, 1))),
    Op("misc_unsqueeze_", lambda m, x: x.clone().unsqueeze_(0), samples_of((2, 3))),
    # as_strided reads the storage: offsets, overlapping windows, a view's storage
    Op("misc_as_strided", lambda m, x: m.as_strided(x, (2, 2), (1, 2), 1), samples_of((2, 3)),
       errors=(Err((arr(2, 3),), call=lambda m, x: m.as_strided(x, (3, 3), (2, 1))),
               Err((arr(2, 3),), call=lambda m, x: m.as_strided(x, (2,), (1, 1))))),
    Op("misc_as_strided_overlap", lambda m, x: x.as_strided((3, 3), (1, 1)), samples_of((2, 3))),
    # as_strided_copy reads its input's storage as its view lays it out: a transposed input, a
    # selected row (whose offset is the default)
    Op("misc_as_strided_copy", lambda m, x: m.as_strided_copy(x.t(), (2, 2), (1, 2), 1), samples_of((2, 3)),
       errors=(Err((arr(2, 3),), call=lambda m, x: m.as_strided_copy(x, (3, 3), (2, 1)), note="past the storage"),)),
    Op("misc_as_strided_copy_offset", lambda m, x: m.as_strided_copy(x[1], (2, 2), (1, 1)), samples_of((2, 3))),
    # in place on a copy (AsStridedBackward1), reading the storage past the copy's offset
    Op("misc_as_strided_", lambda m, x: x.clone().as_strided_((2, 2), (1, 2), 1), samples_of((2, 3)),
       errors=(Err((arr(2, 3),), call=lambda m, x: x.clone().as_strided_((2,), (1, 1)), note="lengths differ"),
               Err((arr(2, 3),), call=lambda m, x: x.clone().as_strided_((4, 2), (2, 1)), note="past the storage"))),
    Op("misc_as_strided_scatter", lambda m, x, s: m.as_strided_scatter(x, s, (3,), (2,), 1),
       lambda make: [Sample((make(2, 3), make(3)))],
       xfail={"grad_torch": "PyTorch's input gradient is grad at the written elements, not elsewhere"}),
    # index_reduce: the slices of source reduced into input's slices at index
    Op("misc_index_reduce_prod", lambda m, x, i, s: m.index_reduce(x, 0, i, s, "prod"), _reduce_rows(3)),
    Op("misc_index_reduce_amax", lambda m, x, i, s: x.index_reduce(0, i, s, "amax", include_self=False),
       _reduce_rows(3), dtypes=INT_FLOAT,
       errors=(Err((arr(3, 2), index(0), arr(1, 2)), call=lambda m, x, i, s: x.index_reduce(0, i, s, "sum")),
               Err((arr(3, 2), index(3), arr(1, 2)), call=lambda m, x, i, s: x.index_reduce(0, i, s, "amax")))),
    Op("misc_unravel_index", lambda m, i: m.unravel_index(i, (2, 3)), lambda make: [Sample((index(0, 4, 5),))],
       dtypes=ALL, grad=False),
    Op("misc_constant_pad_nd", lambda m, x: m.constant_pad_nd(x, (1, -1, 2, 0), 1), samples_of((2, 3))),
    Op("misc_fill", lambda m, x: m.fill(x, 2), samples_of((2, 3))),
    Op("misc_fill_tensor", lambda m, x, v: m.fill(x, v), lambda make: [Sample((make(2, 3), make()))],
       errors=(Err((arr(2, 3), arr(2)), call=lambda m, x, v: m.fill(x, v)),)),
]
