"""Ops as pure functions of jax arrays, registered with their metadata (private).

One module per topic; ``registry.py`` holds ``op`` and ``OPS``.

- ``elementwise.py``: arithmetic (also the Tensor-Scalar overloads), unary math, rounding,
  ``where``, copies and fills; ``clamps.py``: maximum/minimum/fmax/fmin and the clamps;
  ``comparison.py``: comparisons, logical and bitwise
  ops, predicates (``isnan``, ``signbit``, ...); ``special.py``: special functions.
- ``reduction.py``: sums, means, extrema, norms and distances, variance, ``all``/``any``;
  ``cumulative.py``: cumsum, cumprod, logcumsumexp, cummax/cummin; ``sorting.py``: sort,
  topk, kthvalue, median, mode, quantile, searchsorted, histc, bincount, histogram,
  histogramdd, isin.
- ``indexing.py``: gather/scatter, ``index_*``, masked ops, take/put, advanced indexing,
  ``*_scatter``; ``shape.py``: copying shape ops and rearrangements; ``views.py``: views
  and writes through them.
- ``products.py``: dot, mm, bmm, matmul, einsum, addmm and the other fused products;
  ``linalg.py``: inverses, solves, decompositions, pinv, lstsq.
- ``complex.py``: complex views, conjugation, polar form, ``linalg.eig``; ``fft.py``: the
  discrete Fourier transforms; ``real_only.py``: PyTorch's errors for complex inputs.
- ``nn_activation.py``, ``nn_linear.py`` (linear maps, attention, embeddings),
  ``nn_norm.py``, ``nn_conv.py`` (convolution, pooling, padding, resampling, pixel shuffle),
  ``nn_loss.py``, ``rnn.py``: neural-network ops.
- ``random.py``: draws with a derivative (``standard_gamma``).
"""
