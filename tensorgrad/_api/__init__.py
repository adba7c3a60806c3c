"""The torch-level functions and Tensor methods, over the ops and dispatch (private).

Each module declares its functions with ``surface.declare``; importing this package imports
them all, so the registry (``surface.DECLARATIONS``) is complete for the layers above.

The modules, each importing only those before it:

- ``surface`` (the registry, ``out=``), ``strides`` (PyTorch's memory layout), ``attributes``;
- ``creation`` (factories, ``new_*``), ``ranges`` (arange, linspace, logspace), ``random`` (the generator, random factories and fills),
  ``operands`` (operands, type promotion, named-tuple results), ``conversion`` (``to``,
  ``clone``, ``copy_``), ``inplace`` (the in-place twin makers, ``zero_``, ``fill_``);
- ``shape`` (views, reshaping, flips, triangles), ``indexing`` (gather/scatter, ``index_*``,
  masks, ``take``/``put``, ``nonzero``), ``subscript`` (``x[key]`` read and written,
  ``index_put``, ``masked_fill``), ``joining`` (cat/stack/split, grids, broadcasting);
- ``elementwise`` (arithmetic, unary functions, clamp, where), ``binary`` (fmod, hypot, lerp,
  ..., clamp_min/clamp_max), ``comparison``, ``special`` (erf, gamma functions, ...), ``special_functions`` (Bessel
  functions, orthogonal polynomials, zeta, igamma);
- ``matmul`` (dot, mm, bmm, matmul, outer, addmm), ``reduction``, ``cumulative``, ``sorting``,
  ``histograms`` (histogramdd), ``products`` (einsum, tensordot, kron, baddbmm, ...), ``linalg``,
  ``linalg_legacy``, ``linalg_factor`` (LU, the ``_ex`` functions, Householder QR, LDL, cond),
  ``lowrank`` (svd_lowrank, pca_lowrank: randomized, composed of the ops above);
- ``complex`` (real/imag views, the lazy conjugate, polar form);
- ``windows`` (``hann_window`` and the other window factories);
- ``methods`` (operators, dtype casts), ``copies`` (the ``*_copy`` functions, ``as_strided``, the unsafe splits).

``torch.softmax``, ``torch.dropout`` and the other top-level functions whose implementation is
``nn.functional``'s are declared in ``nn/_functional/top_level.py``.
"""

from . import (  # noqa: F401  (imported for their declarations)
    attributes, creation, ranges, random, operands, conversion, inplace, shape, indexing, subscript, joining,
    elementwise, binary, comparison, special, special_functions, matmul, reduction, cumulative, sorting, histograms,
    products, linalg, linalg_legacy, linalg_factor, lowrank, complex, methods, copies, indices, windows,
)
