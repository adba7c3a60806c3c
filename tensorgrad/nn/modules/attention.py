"""MultiheadAttention: scaled dot-product attention over learned projections, as PyTorch's."""

import math
import warnings

from ... import _dtype
from ..._api.creation import full, zeros, zeros_like
from ..._api.joining import cat
from .. import functional as F
from .. import init
from ._factory import new_param, optional_param
from .linear import NonDynamicallyQuantizableLinear
from .module import Module


def canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask (True = masked out) as an additive float mask; float masks pass through."""
    if mask is None:
        return None
    if mask.dtype is not _dtype.bool_ and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if mask.is_floating_point():
        return mask
    return zeros_like(mask, dtype=target_type).masked_fill(mask, float("-inf"))


def causal_mask(size, dtype=None):
    """The ``size x size`` additive mask with ``-inf`` above the diagonal."""
    return full((size, size), float("-inf"), dtype=dtype).triu(1)


class MultiheadAttention(Module):
    """Attention with ``num_heads`` heads: ``softmax(Q K^T / sqrt(d)) V`` over projected inputs.

    Inputs are ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or unbatched ``(L, E)``.
    Returns ``(output, weights)``; the weights are averaged over heads unless
    ``average_attn_weights=False``, and None with ``need_weights=False``.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        kw = {"device": device, "dtype": dtype}
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = new_param(embed_dim, embed_dim, **kw)
            self.k_proj_weight = new_param(embed_dim, self.kdim, **kw)
            self.v_proj_weight = new_param(embed_dim, self.vdim, **kw)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = new_param(3 * embed_dim, embed_dim, **kw)
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        optional_param(self, "in_proj_bias", bias, 3 * embed_dim, **kw)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = new_param(1, 1, embed_dim, **kw)
            self.bias_v = new_param(1, 1, embed_dim, **kw)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def _projections(self, query, key, value):
        e = self.embed_dim
        b = self.in_proj_bias
        b_q, b_k, b_v = (None, None, None) if b is None else (b[:e], b[e:2 * e], b[2 * e:])
        if self._qkv_same_embed_dim:
            w_q, w_k, w_v = self.in_proj_weight[:e], self.in_proj_weight[e:2 * e], self.in_proj_weight[2 * e:]
        else:
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        return F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        batched = query.dim() == 3
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask",
                                          None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                               "module method `generate_square_subsequent_mask` to create this mask.")
        if self.batch_first and batched:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        if not batched:
            query, key, value = (x.unsqueeze(1) for x in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        output, weights = self._attend(query, key, value, key_padding_mask, attn_mask, need_weights,
                                       average_attn_weights)
        if not batched:
            output = output.squeeze(1)
            if weights is not None:
                weights = weights.squeeze(0)
        elif self.batch_first:
            output = output.transpose(1, 0)
        return output, weights

    def _attend(self, query, key, value, key_padding_mask, attn_mask, need_weights, average):
        tgt_len, bsz, embed_dim = query.shape
        if embed_dim != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {embed_dim}")
        heads = self.num_heads
        head_dim = self.head_dim
        q, k, v = self._projections(query, key, value)
        if attn_mask is not None:
            src_len = key.shape[0]
            if attn_mask.dim() == 2:
                if tuple(attn_mask.shape) != (tgt_len, src_len):
                    raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                       f"{(tgt_len, src_len)}.")
                attn_mask = attn_mask.unsqueeze(0)
            elif attn_mask.dim() == 3:
                if tuple(attn_mask.shape) != (bsz * heads, tgt_len, src_len):
                    raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                       f"{(bsz * heads, tgt_len, src_len)}.")
            else:
                raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
        if self.bias_k is not None:
            k = cat([k, self.bias_k.repeat(1, bsz, 1)])
            v = cat([v, self.bias_v.repeat(1, bsz, 1)])
            if attn_mask is not None:
                attn_mask = F.pad(attn_mask, (0, 1))
            if key_padding_mask is not None:
                key_padding_mask = F.pad(key_padding_mask, (0, 1))
        q = q.reshape(tgt_len, bsz * heads, head_dim).transpose(0, 1)
        k = k.reshape(k.shape[0], bsz * heads, head_dim).transpose(0, 1)
        v = v.reshape(v.shape[0], bsz * heads, head_dim).transpose(0, 1)
        if self.add_zero_attn:
            k = cat([k, zeros((bsz * heads, 1, head_dim), dtype=k.dtype)], dim=1)
            v = cat([v, zeros((bsz * heads, 1, head_dim), dtype=v.dtype)], dim=1)
            if attn_mask is not None:
                attn_mask = F.pad(attn_mask, (0, 1))
            if key_padding_mask is not None:
                key_padding_mask = F.pad(key_padding_mask, (0, 1))
        src_len = k.shape[1]
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (bsz, src_len):
                raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                     f"{key_padding_mask.shape}")
            padding = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, heads, -1, -1)
            padding = padding.reshape(bsz * heads, 1, src_len)
            attn_mask = padding if attn_mask is None else attn_mask + padding
        scores = (q * math.sqrt(1.0 / head_dim)).matmul(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = F.softmax(scores, dim=-1)
        if self.dropout > 0.0 and self.training:
            weights = F.dropout(weights, p=self.dropout)
        output = weights.matmul(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        output = F.linear(output, self.out_proj.weight, self.out_proj.bias).reshape(tgt_len, bsz, embed_dim)
        if not need_weights:
            return output, None
        weights = weights.reshape(bsz, heads, tgt_len, src_len)
        if average:
            weights = weights.mean(dim=1)
        return output, weights
