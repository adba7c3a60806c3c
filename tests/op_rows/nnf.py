"""Rows for the sampling ops, unpooling (1-, 2- and 3-D), fractional and power-average pools, local response
norm, channel shuffle, embedding bags, the CTC loss and the triplet loss with a distance."""

from op_table import FLOAT, INT_FLOAT, Err, Op, Sample, arr


def _grid_sample(m, x, g):
    return m.nn.functional.grid_sample(x, g, align_corners=False)


def _sampling(m, x, g, x3, g3):
    F = m.nn.functional
    return (F.grid_sample(x, g, align_corners=False), F.grid_sample(x, g, "bicubic", "reflection", True),
            F.grid_sample(x3, g3, "nearest", "border", False), F.grid_sample(x3, g3, "bilinear", "zeros", True))


def _affine(m, t, t3):
    F = m.nn.functional
    return F.affine_grid(t, (2, 1, 3, 4), align_corners=False), F.affine_grid(t3, (2, 1, 2, 3, 2), align_corners=True)


def _unpool(m, x):
    """Batched and unbatched (whose node reads the input's own: PyTorch's kernel takes it as it is)."""
    F = m.nn.functional
    o, i = F.max_pool2d(x, 2, return_indices=True)
    o1, i1 = F.max_pool1d(x[0], 2, return_indices=True)
    return (F.max_unpool2d(o, i, 2), F.max_unpool1d(o1, i1, 2, output_size=[5]), F.max_unpool2d(o[1], i[1], 2),
            F.max_unpool1d(o1[1], i1[1], 2))


def _unpool3d(m, x):
    """Unbatched and batched, the output size given (one more than the pooled size in two dims)."""
    F = m.nn.functional
    o, i = F.max_pool3d(x, 2, return_indices=True)
    return F.max_unpool3d(o, i, 2), F.max_unpool3d(o[0], i[0], (2, 2, 2), output_size=(5, 4, 5))


def _unpool3d_pooled(m, x):
    """The pooled values and indices of a (1, 2, 4, 4, 4) input, for the error rows."""
    return m.nn.functional.max_pool3d(x, 2, return_indices=True)


def _fractional(m, x, x3):
    F = m.nn.functional
    s = m.tensor([[[0.3, 0.8], [0.6, 0.1]]], dtype=x.dtype)
    s3 = m.tensor([[[0.3, 0.8, 0.5], [0.6, 0.1, 0.9]]], dtype=x.dtype)
    return (F.fractional_max_pool2d(x, 2, output_size=(3, 2), return_indices=True, _random_samples=s),
            F.fractional_max_pool3d(x3, (2, 1, 2), output_ratio=0.5, _random_samples=s3))


def _composed_pools(m, x):
    F = m.nn.functional
    return (F.lp_pool2d(x, 2, 2), F.lp_pool1d(x[0], 3.0, 2, stride=1), F.local_response_norm(x, 2),
            F.channel_shuffle(x, 2))


def _bags(m, w, p):
    F = m.nn.functional
    idx = m.tensor([1, 2, 4, 5, 4, 3, 2, 0])
    off = m.tensor([0, 2, 2, 5])
    return (F.embedding_bag(idx, w, off), F.embedding_bag(idx, w, off, mode="max", padding_idx=4),
            F.embedding_bag(idx.reshape(2, 4), w, mode="sum", per_sample_weights=p),
            F.embedding_bag(idx[:5], w, off, mode="mean", include_last_offset=True))


def _ctc(m, x):
    # through log_softmax: PyTorch's gradient in log_probs is exp(log_probs) - posterior, not the
    # derivative of the loss alone; after log_softmax's backward both are the derivative
    F = m.nn.functional
    lp = F.log_softmax(x, 2)
    targets = m.tensor([[1, 2, 2], [3, 1, 0]])
    return (F.ctc_loss(lp, targets, [5, 4], [3, 2]), F.ctc_loss(lp, targets, [5, 4], [3, 2], reduction="none"),
            F.ctc_loss(lp, m.tensor([1, 3, 1]), m.tensor([5, 4]), m.tensor([1, 2]), blank=2, reduction="sum"),
            F.ctc_loss(lp, targets, [2, 4], [3, 2], zero_infinity=True))


def _triplet(m, a, p, n):
    F = m.nn.functional
    return (F.triplet_margin_with_distance_loss(a, p, n),
            F.triplet_margin_with_distance_loss(a, p, n, distance_function=F.cosine_similarity, swap=True,
                                                reduction="none"))


ROWS = [
    Op("nnf.grid_sample", _sampling,
       lambda make: [Sample((make(2, 2, 3, 4), make(2, 2, 3, 2) * 0.6, make(1, 2, 2, 3, 2), make(1, 2, 1, 2, 3) * 0.6))],
       dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)},
       errors=(Err((arr(2, 2, 3, 4), arr(3, 2, 3, 2)), call=_grid_sample, match="same batch size"),
               Err((arr(2, 2, 3, 4), arr(2, 2, 3, 3)), call=_grid_sample, match="size 2 in last dimension"))),
    Op("nnf.affine_grid", _affine, lambda make: [Sample((make(2, 2, 3), make(2, 3, 4)))], dtypes=FLOAT,
       tol={"float32": (1e-5, 1e-6)}),
    Op("nnf.max_unpool", _unpool, lambda make: [Sample((make(2, 3, 4, 4),))], dtypes=FLOAT),
    Op("nnf.max_unpool3d", _unpool3d, lambda make: [Sample((make(2, 2, 4, 4, 4),))], dtypes=FLOAT,
       errors=(Err((arr(1, 2, 4, 4, 4),), call=lambda m, x: m.nn.functional.max_unpool3d(
                   _unpool3d_pooled(m, x)[0], _unpool3d_pooled(m, x)[1].float(), 2), note="float indices"),
               Err((arr(1, 2, 4, 4, 4),), call=lambda m, x: m.nn.functional.max_unpool3d(
                   *[t[0, 0] for t in _unpool3d_pooled(m, x)], 2), note="3-D input"),
               Err((arr(1, 2, 4, 4, 4),), call=lambda m, x: m.nn.functional.max_unpool3d(
                   *_unpool3d_pooled(m, x), 2, output_size=(9, 4, 5)), note="output size out of range"),
               Err((arr(1, 2, 4, 4, 4),), call=lambda m, x: m.nn.functional.max_unpool3d(
                   _unpool3d_pooled(m, x)[0], _unpool3d_pooled(m, x)[1] + 100, 2), note="index out of range"))),
    Op("nnf.fractional_max_pool", _fractional, lambda make: [Sample((make(1, 2, 5, 4), make(1, 2, 4, 3, 4)))],
       dtypes=FLOAT),
    Op("nnf.composed_pools", _composed_pools, lambda make: [Sample((make(2, 4, 4, 4),))], dtypes=INT_FLOAT,
       domain="positive"),
    Op("nnf.embedding_bag", _bags, lambda make: [Sample((make(6, 3), make(2, 4)))], dtypes=FLOAT),
    Op("nnf.ctc_loss", _ctc, lambda make: [Sample((make(5, 2, 4),))], dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
    Op("nnf.triplet_with_distance", _triplet, lambda make: [Sample((make(3, 4), make(3, 4), make(3, 4)))],
       dtypes=FLOAT),
]
