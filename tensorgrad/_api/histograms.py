"""``torch.histogramdd``: a histogram of points in N dimensions (``histc``, ``histogram`` and
``bincount`` are in ``sorting.py``).

PyTorch's native function has three overloads (``bins`` an int, a sequence of ints, or a
sequence of 1-D tensors of edges); its checks run in the order of ``Histogram.cpp``: the outer
edges (from ``range`` or the data's extrema, read on the host), ``linspace`` for the counts,
``histogramdd_check_inputs``, the bin counts, then the kernel's dtypes. The result is not
differentiable (PyTorch's node is ``NotImplemented``).
"""

import builtins
import math

import numpy as np

from .. import _dtype
from .._ops import sorting as SC
from .._tensor import Tensor, apply, _C_TYPE
from .indexing import _host_sized
from .operands import _named, _not_implemented
from .ranges import linspace
from .surface import declare

_SIGNATURES = "".join(
    f" * (Tensor input, {kind} bins, tuple of floats range = None, Tensor weight = None, bool density = False)\n"
    for kind in ("int", "tuple of ints", "tuple of Tensors"))

_KERNEL_DTYPES = (_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64)


def _type_name(value):
    if isinstance(value, Tensor):
        return "Tensor"
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_index(value):
    """What PyTorch's parser takes as the first int of a list (``THPUtils_checkIndex``): not a
    bool; a 0-d integer tensor is one."""
    if isinstance(value, Tensor):
        return value.ndim == 0 and value.dtype.kind == _dtype.INT
    return _is_int(value)


def _is_number(value):
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, np.bool_)


def _parse(input, bins, range, weight, density):
    """PyTorch's argument parser: the overload that matches (TypeError naming the overloads when
    none does), then the conversion of ``bins`` and ``range``. Returns ``(counts, edges, range)``:
    a list of bin counts or a list of edge tensors, and ``range`` as floats."""
    sequence = isinstance(bins, (list, tuple))
    matches = (isinstance(input, Tensor) and (_is_int(bins) or sequence)
               and (range is None or (isinstance(range, (list, tuple)) and (not range or _is_number(range[0]))))
               and (weight is None or isinstance(weight, Tensor)) and isinstance(density, bool))
    if not matches:
        given = {"range": range, "weight": weight, "density": density}
        got = [_type_name(input), _type_name(bins)] + [
            f"{k}={_type_name(v)}" for k, v in given.items() if v is not None and v is not False]
        raise TypeError(f"histogramdd() received an invalid combination of arguments - got ({', '.join(got)}), "
                        f"but expected one of:\n{_SIGNATURES}")
    if range is not None:
        for i, v in enumerate(range):
            if not _is_number(v):
                raise TypeError(f"histogramdd(): argument 'range' must be tuple of floats, but found element of type "
                                f"{_type_name(v)} at pos {i + 1}")
        range = [builtins.float(v) for v in range]
    if not sequence:
        if input.ndim == 0:
            raise IndexError("Dimension specified as -1 but tensor has no dimensions")
        return [int(bins)] * input.shape[-1], None, range
    if not bins or _is_index(bins[0]):
        for i, b in enumerate(bins):
            if not isinstance(b, (int, np.integer, Tensor)) or (isinstance(b, Tensor) and not _is_index(b)):
                raise TypeError(f"histogramdd(): argument 'bins' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {_type_name(b)}\"")
        return [int(b) for b in bins], None, range
    for i, b in enumerate(bins):
        if not isinstance(b, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {_type_name(b)}")
    return None, list(bins), range


def _linear_edges(input, counts, range):
    """``histogramdd_bin_edges``: the outer edges of each dimension (``range``, else the data's
    extrema, else [0, 1] for no data; an empty range widened by 0.5 each side), then
    ``linspace`` of each count in the input's dtype."""
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    n = input.shape[-1]
    if range is not None:
        if len(range) != 2 * n:
            raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range should have {2 * n} "
                               f"elements, but got {len(range)}")
        lo, hi = range[0::2], range[1::2]
    elif input.numel():
        if input.dtype not in (_dtype.float32, _dtype.float64):
            raise _not_implemented("histogramdd", input.dtype)
        points = _host_sized("histogramdd", input).reshape(-1, n)
        lo, hi = points.min(0).astype(np.float64).tolist(), points.max(0).astype(np.float64).tolist()
    else:
        lo, hi = [0.0] * n, [1.0] * n
    for d in builtins.range(n):
        if not (math.isfinite(lo[d]) and math.isfinite(hi[d])):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{lo[d]:g}, {hi[d]:g}] is not finite")
        if lo[d] > hi[d]:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo[d]:g} max {hi[d]:g} "
                               f"for dimension {d}")
        if lo[d] == hi[d]:
            lo[d], hi[d] = lo[d] - 0.5, hi[d] + 0.5
    if len(counts) != n:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    return [linspace(lo[d], hi[d], counts[d] + 1, dtype=input.dtype, device=input.device)
            for d in builtins.range(n)]


def _check_inputs(input, edges, weight):
    """``histogramdd_check_inputs`` and ``histogramdd_prepare_out``'s bin counts."""
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    n = input.shape[-1]
    if len(edges) != n:
        raise RuntimeError(f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional histogram "
                           f"but got {len(edges)}")
    for d, e in enumerate(edges):
        if e.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {_C_TYPE[input.dtype.name]} and bins for dimension {d} with dtype "
                               f"{_C_TYPE[e.dtype.name]}")
        if e.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {e.ndim} dimensions "
                               f"in the bins tensor for dimension {d}")
        if e.numel() == 0:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in "
                               f"the bins tensor for dimension {d}")
    if weight is not None:
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({_C_TYPE[input.dtype.name]}), and "
                               f"weight({_C_TYPE[weight.dtype.name]})")
        if list(input.shape[:-1]) != (list(weight.shape) or [1]):
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                               f"input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(input.shape)} and weight with shape {list(weight.shape)}")
    for d, e in enumerate(edges):
        if e.numel() - 1 <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {e.numel() - 1} for dimension {d}")
    if input.dtype not in _KERNEL_DTYPES:
        raise _not_implemented("histogram_cpu", input.dtype)


@declare("histogramdd")
def histogramdd(input, bins, range=None, weight=None, density=False):
    """``(hist, bin_edges)`` (named tuple ``histogramdd``): the rows of ``input`` (its last dim
    has N coordinates; the other dims are flattened) counted (or their ``weight`` summed) in an
    N-dimensional grid of bins, ``hist`` of one dim per coordinate. ``bins``: an int (that many
    equal bins in every dim), N ints, or N 1-D tensors of edges (returned as given in
    ``bin_edges``; ``range`` is then ignored, as PyTorch's overload ignores it). Equal bins span
    ``range`` (``[lo0, hi0, lo1, hi1, ...]``) or the data's extrema in each dim. Each bin holds
    its left edge, the last also its right edge; points outside are dropped. ``density``
    normalises to unit integral."""
    counts, edges, range = _parse(input, bins, range, weight, density)
    if edges is None:
        edges = _linear_edges(input, counts, range)
    _check_inputs(input, edges, weight)
    w = None if weight is None else weight.detach()
    hist = apply(SC.histogramdd, (input.detach(), w) + tuple(e.detach() for e in edges), (density,))
    return _named("histogramdd", ("hist", "bin_edges"))(hist, tuple(edges))
