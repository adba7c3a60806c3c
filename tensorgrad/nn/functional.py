"""``tensorgrad.nn.functional``: PyTorch's ``torch.nn.functional`` on tensorgrad tensors.

Every function takes PyTorch's arguments and defaults, raises PyTorch's errors, and records
the ``grad_fn`` nodes PyTorch records. The implementations live in ``nn/_functional``.
"""

from ._functional import top_level as _top_level  # noqa: F401  (declares torch.softmax, torch.dropout, ...)
from ._functional.activation import (
    relu as relu, relu_ as relu_, relu6 as relu6, hardtanh as hardtanh, hardtanh_ as hardtanh_,
    leaky_relu as leaky_relu, leaky_relu_ as leaky_relu_, elu as elu, elu_ as elu_, selu as selu,
    selu_ as selu_, celu as celu, celu_ as celu_, threshold as threshold, threshold_ as threshold_,
    gelu as gelu, silu as silu, mish as mish, hardsigmoid as hardsigmoid, hardswish as hardswish,
    softplus as softplus, softsign as softsign, logsigmoid as logsigmoid, tanhshrink as tanhshrink,
    hardshrink as hardshrink, softshrink as softshrink, prelu as prelu, sigmoid as sigmoid, tanh as tanh,
    glu as glu, rrelu as rrelu, rrelu_ as rrelu_, softmax as softmax, log_softmax as log_softmax,
    softmin as softmin,
)
from ._functional.dropout import (
    dropout as dropout, dropout1d as dropout1d, dropout2d as dropout2d, dropout3d as dropout3d,
    alpha_dropout as alpha_dropout, feature_alpha_dropout as feature_alpha_dropout,
)
from ._functional.linear import (
    linear as linear, bilinear as bilinear, embedding as embedding, one_hot as one_hot,
    scaled_dot_product_attention as scaled_dot_product_attention,
)
from ._functional.conv import (
    conv1d as conv1d, conv2d as conv2d, conv3d as conv3d, conv_transpose1d as conv_transpose1d,
    conv_transpose2d as conv_transpose2d, conv_transpose3d as conv_transpose3d,
    max_pool1d as max_pool1d, max_pool2d as max_pool2d, max_pool3d as max_pool3d,
    avg_pool1d as avg_pool1d, avg_pool2d as avg_pool2d, avg_pool3d as avg_pool3d,
    adaptive_avg_pool1d as adaptive_avg_pool1d, adaptive_avg_pool2d as adaptive_avg_pool2d,
    adaptive_avg_pool3d as adaptive_avg_pool3d, adaptive_max_pool1d as adaptive_max_pool1d,
    adaptive_max_pool2d as adaptive_max_pool2d, adaptive_max_pool3d as adaptive_max_pool3d,
)
from ._functional.norm import (
    batch_norm as batch_norm, instance_norm as instance_norm, layer_norm as layer_norm,
    group_norm as group_norm, rms_norm as rms_norm, normalize as normalize,
)
from ._functional.spatial import (
    pad as pad, interpolate as interpolate, upsample as upsample, unfold as unfold, fold as fold,
    pixel_shuffle as pixel_shuffle, pixel_unshuffle as pixel_unshuffle,
)
from ._functional.loss import (
    mse_loss as mse_loss, l1_loss as l1_loss, smooth_l1_loss as smooth_l1_loss, huber_loss as huber_loss,
    nll_loss as nll_loss, cross_entropy as cross_entropy, binary_cross_entropy as binary_cross_entropy,
    binary_cross_entropy_with_logits as binary_cross_entropy_with_logits, kl_div as kl_div,
    poisson_nll_loss as poisson_nll_loss, gaussian_nll_loss as gaussian_nll_loss,
)
from ._functional.margin_loss import (
    cosine_embedding_loss as cosine_embedding_loss, margin_ranking_loss as margin_ranking_loss,
    triplet_margin_loss as triplet_margin_loss, soft_margin_loss as soft_margin_loss,
    hinge_embedding_loss as hinge_embedding_loss, multilabel_margin_loss as multilabel_margin_loss,
    multilabel_soft_margin_loss as multilabel_soft_margin_loss, multi_margin_loss as multi_margin_loss,
)
from ._functional.attention import multi_head_attention_forward as multi_head_attention_forward
from ._functional.distance import pairwise_distance as pairwise_distance, cosine_similarity as cosine_similarity
from .._api.reduction import pdist as pdist  # PyTorch's nn.functional.pdist is torch.pdist
from ._functional.sampling import (
    grid_sample as grid_sample, affine_grid as affine_grid, max_unpool1d as max_unpool1d,
    max_unpool2d as max_unpool2d, max_unpool3d as max_unpool3d, fractional_max_pool2d as fractional_max_pool2d,
    fractional_max_pool3d as fractional_max_pool3d,
    fractional_max_pool2d_with_indices as fractional_max_pool2d_with_indices,
    fractional_max_pool3d_with_indices as fractional_max_pool3d_with_indices,
    channel_shuffle as channel_shuffle, native_channel_shuffle as native_channel_shuffle,
)
from ._functional.pooling import (
    lp_pool1d as lp_pool1d, lp_pool2d as lp_pool2d, lp_pool3d as lp_pool3d, local_response_norm as local_response_norm,
    max_pool1d_with_indices as max_pool1d_with_indices, max_pool2d_with_indices as max_pool2d_with_indices,
    max_pool3d_with_indices as max_pool3d_with_indices,
    adaptive_max_pool1d_with_indices as adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d_with_indices as adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d_with_indices as adaptive_max_pool3d_with_indices,
)
from ._functional.spatial import upsample_nearest as upsample_nearest, upsample_bilinear as upsample_bilinear
from ._functional.margin_loss import triplet_margin_with_distance_loss as triplet_margin_with_distance_loss
from ._functional.linear import embedding_bag as embedding_bag
from ._functional.loss import ctc_loss as ctc_loss
