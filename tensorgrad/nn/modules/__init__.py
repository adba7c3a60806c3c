"""The module classes of ``tensorgrad.nn`` (re-exported there)."""

from .module import Module as Module
from .container import (
    Sequential as Sequential, ModuleList as ModuleList, ModuleDict as ModuleDict,
    ParameterList as ParameterList, ParameterDict as ParameterDict,
)
from .linear import Identity as Identity, Linear as Linear, Bilinear as Bilinear
from .flatten import Flatten as Flatten, Unflatten as Unflatten
from .activation import (
    ReLU as ReLU, ReLU6 as ReLU6, LeakyReLU as LeakyReLU, ELU as ELU, CELU as CELU, SELU as SELU, GELU as GELU,
    SiLU as SiLU, Mish as Mish, Hardsigmoid as Hardsigmoid, Hardswish as Hardswish, Sigmoid as Sigmoid,
    Tanh as Tanh, Softsign as Softsign, LogSigmoid as LogSigmoid, Tanhshrink as Tanhshrink, Softplus as Softplus,
    Hardshrink as Hardshrink, Softshrink as Softshrink, Hardtanh as Hardtanh, Threshold as Threshold,
    PReLU as PReLU, GLU as GLU, Softmax as Softmax, LogSoftmax as LogSoftmax, Softmin as Softmin,
    Softmax2d as Softmax2d, RReLU as RReLU,
)
from .conv import (
    Conv1d as Conv1d, Conv2d as Conv2d, Conv3d as Conv3d, ConvTranspose1d as ConvTranspose1d,
    ConvTranspose2d as ConvTranspose2d, ConvTranspose3d as ConvTranspose3d,
)
from .pooling import (
    MaxPool1d as MaxPool1d, MaxPool2d as MaxPool2d, MaxPool3d as MaxPool3d, AvgPool1d as AvgPool1d,
    AvgPool2d as AvgPool2d, AvgPool3d as AvgPool3d, AdaptiveAvgPool1d as AdaptiveAvgPool1d,
    AdaptiveAvgPool2d as AdaptiveAvgPool2d, AdaptiveAvgPool3d as AdaptiveAvgPool3d,
    AdaptiveMaxPool1d as AdaptiveMaxPool1d, AdaptiveMaxPool2d as AdaptiveMaxPool2d,
    AdaptiveMaxPool3d as AdaptiveMaxPool3d,
)
from .normalization import (
    BatchNorm1d as BatchNorm1d, BatchNorm2d as BatchNorm2d, BatchNorm3d as BatchNorm3d,
    InstanceNorm1d as InstanceNorm1d, InstanceNorm2d as InstanceNorm2d, InstanceNorm3d as InstanceNorm3d,
    LayerNorm as LayerNorm, GroupNorm as GroupNorm, RMSNorm as RMSNorm,
)
from .dropout import (
    Dropout as Dropout, Dropout1d as Dropout1d, Dropout2d as Dropout2d, Dropout3d as Dropout3d,
    AlphaDropout as AlphaDropout, FeatureAlphaDropout as FeatureAlphaDropout,
)
from .sparse import Embedding as Embedding, EmbeddingBag as EmbeddingBag
from .loss import (
    L1Loss as L1Loss, MSELoss as MSELoss, CrossEntropyLoss as CrossEntropyLoss, NLLLoss as NLLLoss,
    BCELoss as BCELoss, BCEWithLogitsLoss as BCEWithLogitsLoss, HuberLoss as HuberLoss,
    SmoothL1Loss as SmoothL1Loss, KLDivLoss as KLDivLoss, PoissonNLLLoss as PoissonNLLLoss,
    GaussianNLLLoss as GaussianNLLLoss,
)
from .margin_loss import (
    MarginRankingLoss as MarginRankingLoss, CosineEmbeddingLoss as CosineEmbeddingLoss,
    TripletMarginLoss as TripletMarginLoss, SoftMarginLoss as SoftMarginLoss,
    HingeEmbeddingLoss as HingeEmbeddingLoss, MultiLabelMarginLoss as MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss as MultiLabelSoftMarginLoss, MultiMarginLoss as MultiMarginLoss,
)
from .distance import CosineSimilarity as CosineSimilarity, PairwiseDistance as PairwiseDistance
from .rnn import (
    RNNBase as RNNBase, RNN as RNN, LSTM as LSTM, GRU as GRU, RNNCellBase as RNNCellBase, RNNCell as RNNCell,
    LSTMCell as LSTMCell, GRUCell as GRUCell,
)
from .linear import NonDynamicallyQuantizableLinear as NonDynamicallyQuantizableLinear
from .lazy import (
    LazyModuleMixin as LazyModuleMixin, LazyLinear as LazyLinear, LazyConv1d as LazyConv1d, LazyConv2d as LazyConv2d,
    LazyConv3d as LazyConv3d, LazyBatchNorm1d as LazyBatchNorm1d, LazyBatchNorm2d as LazyBatchNorm2d,
    LazyBatchNorm3d as LazyBatchNorm3d,
)
from .attention import MultiheadAttention as MultiheadAttention
from .transformer import (
    TransformerEncoderLayer as TransformerEncoderLayer, TransformerEncoder as TransformerEncoder,
    TransformerDecoderLayer as TransformerDecoderLayer, TransformerDecoder as TransformerDecoder,
    Transformer as Transformer,
)
from .padding import (
    ConstantPad1d as ConstantPad1d, ConstantPad2d as ConstantPad2d, ConstantPad3d as ConstantPad3d,
    ZeroPad1d as ZeroPad1d, ZeroPad2d as ZeroPad2d, ZeroPad3d as ZeroPad3d, ReflectionPad1d as ReflectionPad1d,
    ReflectionPad2d as ReflectionPad2d, ReflectionPad3d as ReflectionPad3d, ReplicationPad1d as ReplicationPad1d,
    ReplicationPad2d as ReplicationPad2d, ReplicationPad3d as ReplicationPad3d, CircularPad1d as CircularPad1d,
    CircularPad2d as CircularPad2d, CircularPad3d as CircularPad3d,
)
from .resample import (
    Upsample as Upsample, UpsamplingNearest2d as UpsamplingNearest2d, UpsamplingBilinear2d as UpsamplingBilinear2d,
    PixelShuffle as PixelShuffle, PixelUnshuffle as PixelUnshuffle, Fold as Fold, Unfold as Unfold,
)
from .sampling import (
    MaxUnpool1d as MaxUnpool1d, MaxUnpool2d as MaxUnpool2d, MaxUnpool3d as MaxUnpool3d,
    FractionalMaxPool2d as FractionalMaxPool2d, FractionalMaxPool3d as FractionalMaxPool3d, LPPool1d as LPPool1d,
    LPPool2d as LPPool2d, LPPool3d as LPPool3d, LocalResponseNorm as LocalResponseNorm,
    ChannelShuffle as ChannelShuffle, CTCLoss as CTCLoss, TripletMarginWithDistanceLoss as TripletMarginWithDistanceLoss,
)
from .batchnorm import SyncBatchNorm as SyncBatchNorm
from .adaptive import AdaptiveLogSoftmaxWithLoss as AdaptiveLogSoftmaxWithLoss

# the public names are the module classes (not the submodules that define them)
__all__ = sorted(name for name, value in list(globals().items())
                 if isinstance(value, type) and issubclass(value, Module) and not name.startswith("_"))
