"""Distance functions: ``pairwise_distance`` and ``cosine_similarity``."""

from ... import _dtype
from ..._autograd.grad_mode import no_grad
from ..._ops import elementwise as E
from ..._ops import reduction as R
from ..._tensor import apply
from ._util import broadcast_pair, scalar_op
from ..._api import reduction as RED
from ..._api import operands as OPD
from ..._api import conversion as CNV


def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    """``norm(x1 - x2 + eps, p)`` over the last axis (``NormBackward1``)."""
    nd = max(x1.ndim, x2.ndim)
    d = x1 - x2
    shifted = scalar_op(E.add_scalar, d, eps)
    dims = (nd - 1,) if nd else ()
    return apply(R.norm_dim, (shifted,), (float(p), dims, bool(keepdim)))


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``x1 . x2 / (max(|x1|, eps) max(|x2|, eps))`` along ``dim``.

    As PyTorch, the norms are clamped outside autograd, so the gradient treats them as exact.
    """
    d = OPD.result_type(x1, x2)
    if d.kind != _dtype.FLOAT:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {d.c_name}")
    if x1.dtype is not d:
        x1 = CNV.to(x1, d)
    if x2.dtype is not d:
        x2 = CNV.to(x2, d)
    x1, x2 = broadcast_pair(x1, x2)
    n1 = CNV.clone(RED.norm(x1, 2, dim, keepdim=True))
    n2 = CNV.clone(RED.norm(x2, 2, dim, keepdim=True))
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return RED.sum((x1 / n1) * (x2 / n2), dim)
