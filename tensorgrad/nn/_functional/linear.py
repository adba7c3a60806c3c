"""Linear maps and lookups: linear, bilinear, embedding, one_hot, scaled dot-product attention.

Each composes PyTorch's own decomposition, so ``grad_fn`` chains print as PyTorch's do
(``AddmmBackward0`` for a 2-D ``linear``, ``ViewBackward0`` over it for other ranks, ...).
"""

import math
import warnings

import jax.numpy as jnp
import numpy as np

from ... import _dtype
from ..._ops import elementwise as E
from ..._ops import nn_linear as N
from ..._ops import products as L
from ..._ops import shape as SO
from ..._ops import views as V
from ..._tensor import apply, deferred_view, _wrap, _C_TYPE
from ._util import absent, is_tracer, not_implemented, write_no_grad
from .dropout import dropout
from ..._api import ranges as RG
from ..._api import shape as S
from ..._api import reduction as RED
from ..._api import matmul as MM
from ..._autocast import lower_precision_function


# ---------------------------------------------------------------- linear

_check_bias_expands = MM.check_bias_expands


@lower_precision_function
def linear(input, weight, bias=None):
    """``input @ weight.T + bias``, recorded as PyTorch records it.

    A 2-D input with a bias is one ``addmm`` (AddmmBackward0); other ranks are flattened to
    2-D and viewed back; without a bias it is a matmul.

    >>> import tensorgrad as torch
    >>> torch.nn.functional.linear(torch.ones(2, 3), torch.ones(4, 3), torch.zeros(4)).shape
    torch.Size([2, 4])
    """
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and {weight.ndim}D")
    if input.dtype is _dtype.bool_:
        raise not_implemented("addmm_impl_cpu_", input.dtype)
    if weight.ndim != 2:
        wt = S.t(weight)
        if bias is None:
            return MM.matmul(input, wt) if input.ndim <= 2 else _mm_flat(input, wt, weight)
        raise RuntimeError(f"mat2 must be a matrix, got {weight.ndim}-D tensor")
    # weight.T, whose value is not computed: the matrix product reads the weight in place
    wt = deferred_view(V.t, weight)
    wt_meta = _Transposed(weight)
    if bias is None:
        if input.ndim == 1:
            return MM.matmul(input, S.t(weight))
        if input.ndim == 2:
            MM._check_mm(input, wt_meta, "mm")
            return apply(L.mm, (input, wt))
        return _mm_flat(input, wt, wt_meta)
    _check_addmm_dtypes(bias, input, weight)
    flat = input if input.ndim == 2 else S.reshape(input, -1, input.shape[-1])
    MM._check_mm(flat, wt_meta, "mm")
    _check_bias_expands(bias, flat.shape[0], weight.shape[0])
    out = apply(L.addmm, (bias, flat, wt), (1, 1))
    return out if input.ndim == 2 else S.view(out, tuple(input.shape[:-1]) + (weight.shape[0],))


def _mm_flat(input, wt, wt_meta):
    """``input @ wt`` for an input of 3 or more dimensions, as PyTorch's linear without a bias:
    one ``mm`` of the input flattened to 2-D, reshaped back (``UnsafeViewBackward0``)."""
    flat = S.reshape(input, -1, input.shape[-1])
    MM._check_mm(flat, wt_meta, "mm")
    out = apply(L.mm, (flat, wt))
    return apply(SO.reshape_copy, (out,), (tuple(input.shape[:-1]) + (out.shape[-1],),))


class _Transposed:
    """The shape, rank and dtype of ``weight.T`` (what the argument checks read), without its value."""

    def __init__(self, weight):
        self.shape = tuple(reversed(weight.shape))
        self.ndim = len(self.shape)
        self.dtype = weight.dtype


def _check_addmm_dtypes(bias, input, weight):
    """PyTorch's addmm checks, which come before its shape checks: the bias, then the input,
    against the weight."""
    for name, t in (("self", bias), ("mat1", input)):
        if t.dtype is not weight.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {t.dtype.c_name} and "
                               f"{weight.dtype.c_name}")


def bilinear(input1, input2, weight, bias=None):
    """``out[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``."""
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} and "
                f"{input2.shape[i]}")
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-dimensional, but got {weight.ndim}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected "
            f"{weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected "
            f"{weight.shape[2]}")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[0] if bias.ndim else 0} but "
            f"expected {weight.shape[0]}")
    if input1.dtype is _dtype.bool_:
        raise not_implemented("bmm", input1.dtype)
    x1 = S.reshape(input1, -1, input1.shape[-1])
    x2 = S.reshape(input2, -1, input2.shape[-1])
    out = apply(N.trilinear, (x1, weight, x2))
    out = S.reshape(out, tuple(input1.shape[:-1]) + (weight.shape[0],))
    return out if bias is None else out + bias


# ---------------------------------------------------------------- lookups

def _check_indices(input, num, what="self"):
    """PyTorch raises IndexError for an index outside ``[0, num)`` (checked on the host)."""
    if input.numel() == 0 or is_tracer(input):
        return
    arr = np.asarray(input._data)
    if arr.min() < 0 or arr.max() >= num:
        raise IndexError(f"index out of range in {what}")


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of ``weight`` picked by the integer ``input``.

    ``padding_idx``'s row gets no gradient; ``max_norm`` first rescales (in place, untracked)
    the picked rows whose ``norm_type``-norm exceeds it, as PyTorch does.
    """
    if input.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got torch.{input.dtype.legacy} instead (while checking arguments for embedding)")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    num = weight.shape[0]
    if padding_idx is not None:
        if padding_idx >= num or padding_idx < -num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx += num
    if sparse:
        raise NotImplementedError(
            "embedding(sparse=True): tensorgrad has no sparse tensors; use sparse=False (dense gradients)")
    _check_indices(input, num)
    if max_norm is not None:
        if weight.dtype.kind != _dtype.FLOAT:
            raise RuntimeError(
                f"norm(): input dtype should be either floating point or complex. Got {weight.dtype.c_name} instead.")
        new = apply(N.embedding_renorm, (weight, input), (float(max_norm), float(norm_type)))
        write_no_grad(weight, new._data)
    return apply(N.embedding, (weight, input), (padding_idx, bool(scale_grad_by_freq)))


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sum, mean or max of ``weight``'s rows over each bag of indices.

    A 2-D ``input`` holds one bag per row; a 1-D one is cut into bags at ``offsets``.
    """
    if weight.dtype in (_dtype.int64, _dtype.int32) and input.dtype.kind == _dtype.FLOAT:
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = RG.arange(0, input.numel(), input.shape[1], dtype=input.dtype)
        include_last_offset = False
        input = S.reshape(input, (-1,))
        if per_sample_weights is not None:
            per_sample_weights = S.reshape(per_sample_weights, (-1,))
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if scale_grad_by_freq:
        raise NotImplementedError(
            "embedding_bag(scale_grad_by_freq=True) is not implemented in tensorgrad (PyTorch's CPU kernel scales "
            "by counts that do not follow the documented per-index frequency); use scale_grad_by_freq=False")
    if sparse:
        raise NotImplementedError(
            "embedding_bag(sparse=True): tensorgrad has no sparse tensors; use sparse=False (dense gradients)")
    for name, t in (("indices", input), ("offsets", offsets)):
        if t.dtype not in (_dtype.int64, _dtype.int32):
            raise RuntimeError(
                f"Expected tensor for argument #1 '{name}' to have one of the following scalar types: Long, Int; "
                f"but got {t.dtype.legacy} instead (while checking arguments for embedding_bag)")
    if offsets.dtype is not input.dtype:
        raise RuntimeError(
            f"expected scalar type {input.dtype.c_name} but found {offsets.dtype.c_name}")
    if weight.dtype.kind != _dtype.FLOAT:
        found = "CPUBoolType" if weight.dtype is _dtype.bool_ else f"torch.{weight.dtype.legacy}"
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, "
            f"Float, Double; but got {found} instead (while checking arguments for embedding_bag)")
    num = weight.shape[0]
    _check_indices(input, num)
    if include_last_offset and offsets.shape[0] < 1:
        raise RuntimeError("include_last_offset: number of offsets should be at least 1")
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, but "
                               f"got {padding_idx}")
        padding_idx = int(padding_idx) % num
    if max_norm is not None:
        new = apply(N.embedding_renorm, (weight, input), (float(max_norm), float(norm_type)))
        write_no_grad(weight, new._data)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub.")
    if per_sample_weights is not None and per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
            f"'per_sample_weights'; but type {weight.dtype.legacy} does not equal "
            f"{per_sample_weights.dtype.legacy} (while checking arguments for embedding_bag)")
    psw = absent(weight.dtype) if per_sample_weights is None else per_sample_weights
    cfg = (mode, bool(include_last_offset), padding_idx)
    return apply(N.embedding_bag, (weight, input, offsets, psw), cfg)


def one_hot(tensor, num_classes=-1):
    """An int64 tensor with a trailing axis of ``num_classes`` holding a 1 at each index."""
    if tensor.dtype is not _dtype.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    arr = None if is_tracer(tensor) else np.asarray(tensor._data)
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        if arr is None:
            raise RuntimeError("one_hot: num_classes=-1 needs concrete values; pass num_classes inside a transform")
        num_classes = int(arr.max()) + 1
    elif num_classes < -1:
        raise RuntimeError("num_classes should be positive")
    if arr is not None and arr.size:
        if arr.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if arr.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return apply(N.one_hot, (tensor,), (int(num_classes),))


# ---------------------------------------------------------------- attention

def _batched_matmul(a, b):
    """PyTorch's matmul of batched matrices: expand, fold the batch, bmm, unfold."""
    if a.ndim == 2 and b.ndim == 2:
        return RED.mm(a, b)
    batch = tuple(np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
    a3 = S.reshape(S.expand(a, batch + tuple(a.shape[-2:])), (-1,) + tuple(a.shape[-2:]))
    b3 = S.reshape(S.expand(b, batch + tuple(b.shape[-2:])), (-1,) + tuple(b.shape[-2:]))
    out = MM.bmm(a3, b3)
    return apply(SO.reshape_copy, (out,), (batch + tuple(out.shape[-2:]),))


def _repeat_heads(x, groups):
    """``x.repeat_interleave(groups, dim=-3)`` for grouped-query attention."""
    shape = tuple(x.shape)
    y = S.expand(S.unsqueeze(x, -3), shape[:-2] + (groups,) + shape[-2:])
    return S.reshape(y, shape[:-3] + (shape[-3] * groups,) + shape[-2:])


@lower_precision_function
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """``softmax(q @ k.T * scale + mask) @ v`` along the last two axes.

    A boolean ``attn_mask`` keeps the positions where it is True; ``is_causal`` keeps the lower
    triangle. Rows with no kept position give zeros. ``dropout_p`` drops attention weights
    with tensorgrad's global generator. As on PyTorch's CPU, 4-D inputs without dropout take
    one fused op (``ScaledDotProductFlashAttentionForCpuBackward0``); the rest records the
    math path (scaled bmm, safe softmax, bmm).
    """
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if query.dtype is _dtype.bool_:
        raise RuntimeError("expected scalar type Float but found Bool")
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_c_type(query)} key.dtype: {_c_type(key)} and value.dtype: {_c_type(value)} instead.")
    if attn_mask is not None and is_causal:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if attn_mask is not None and attn_mask.dtype is not _dtype.bool_ and attn_mask.dtype is not query.dtype:
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
            f"{_c_type(attn_mask)} and  query.dtype: {_c_type(query)} instead.")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{math.prod(key.shape[:-2]) or 1}, "
            f"{query.shape[-1]}] but got: [{math.prod(key.shape[:-2]) or 1}, {key.shape[-1]}].")
    groups = 1
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
    scale = scale if scale is not None else 1.0 / math.sqrt(query.shape[-1])
    if _flash_path(query, key, value, attn_mask, dropout_p, groups):
        mask = absent(query.dtype) if attn_mask is None else _additive_mask(attn_mask, query)
        return apply(N.sdpa_flash, (query, key, value, mask), (float(scale), bool(is_causal), groups))
    if groups > 1:
        key = _repeat_heads(key, groups)
        value = _repeat_heads(value, groups)
    length, source = query.shape[-2], key.shape[-2]
    factor = math.sqrt(scale)
    q = apply(E.mul_scalar, (query,), (factor,))
    k = apply(E.mul_scalar, (S.transpose(key, -2, -1),), (factor,))
    attn = _batched_matmul(q, k)
    if is_causal:
        attn_mask = _wrap(jnp.tril(jnp.ones((length, source), bool)))
    if attn_mask is not None:
        attn = attn + _additive_mask(attn_mask, query)
    attn = apply(N.safe_softmax, (attn,), (attn.ndim - 1,))
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p)
    return _batched_matmul(attn, value)


def _additive_mask(mask, query):
    """A boolean mask (True keeps) as 0 / -inf in the query's dtype; a float mask as is."""
    if mask.dtype is not _dtype.bool_:
        return mask
    d = query._data.dtype
    return _wrap(jnp.where(mask._data, jnp.zeros((), d), jnp.asarray(-jnp.inf, d)))


def _flash_path(query, key, value, attn_mask, dropout_p, groups):
    """Whether PyTorch's CPU dispatch takes its fused (flash) kernel, one graph node."""
    if not (query.ndim == key.ndim == value.ndim == 4) or dropout_p > 0.0:
        return False
    if attn_mask is not None and attn_mask.requires_grad:
        return False
    if value.shape[-1] != query.shape[-1] or query.shape[0] != key.shape[0] or key.shape[0] != value.shape[0]:
        return False
    return key.shape[1] * groups == query.shape[1] and key.shape[1] == value.shape[1]


def _c_type(t):
    return _C_TYPE[t.dtype.name]
