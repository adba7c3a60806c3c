"""tensorgrad: PyTorch's imperative autograd API on JAX.

``import tensorgrad as torch`` and PyTorch tutorial code runs. Importing tensorgrad turns on
JAX's 64-bit mode (``jax_enable_x64``) so that int64, the default integer dtype, and float64
behave as in PyTorch; float32 stays the default floating dtype.
"""

from ._dtype import (
    dtype as dtype,
    bool_ as bool,
    uint8 as uint8,
    int8 as int8,
    int16 as int16,
    int32 as int32,
    int64 as int64,
    float16 as float16,
    bfloat16 as bfloat16,
    float32 as float32,
    float64 as float64,
    complex64 as complex64,
    complex128 as complex128,
    get_default_dtype as get_default_dtype,
    set_default_dtype as set_default_dtype,
    public_promote_types as promote_types,
    can_cast as can_cast,
)
from ._device import device as device
from ._memory_format import (
    memory_format as memory_format, preserve_format as preserve_format, contiguous_format as contiguous_format,
    channels_last as channels_last, channels_last_3d as channels_last_3d,
)
from ._tensor import Tensor as Tensor, Size as Size
from ._autograd.grad_mode import (
    no_grad as no_grad,
    enable_grad as enable_grad,
    set_grad_enabled as set_grad_enabled,
    inference_mode as inference_mode,
    is_grad_enabled as is_grad_enabled,
    is_inference_mode_enabled as is_inference_mode_enabled,
)
from ._printing import set_printoptions as set_printoptions, get_printoptions as get_printoptions
from ._api import methods as _methods  # noqa: F401  (attaches Tensor methods)
from ._api.creation import (
    tensor as tensor, as_tensor as as_tensor, from_numpy as from_numpy,
    zeros as zeros, ones as ones, empty as empty, full as full,
    zeros_like as zeros_like, ones_like as ones_like, empty_like as empty_like, full_like as full_like,
    eye as eye, arange as arange, linspace as linspace,
    rand as rand, randn as randn, randint as randint, randperm as randperm, rand_like as rand_like,
    randn_like as randn_like, normal as normal, bernoulli as bernoulli, multinomial as multinomial,
    Generator as Generator, manual_seed as manual_seed, seed as seed, initial_seed as initial_seed,
    get_rng_state as get_rng_state, set_rng_state as set_rng_state, default_generator as default_generator,
    FloatTensor as FloatTensor, DoubleTensor as DoubleTensor, HalfTensor as HalfTensor,
    LongTensor as LongTensor, IntTensor as IntTensor, ShortTensor as ShortTensor, CharTensor as CharTensor,
    ByteTensor as ByteTensor, BoolTensor as BoolTensor,
)
from ._api.math import *  # noqa: F401,F403  (the torch-level math functions, listed in __all__ there)
from ._api.math import result_type as result_type
from ._api.extra_math import *  # noqa: F401,F403  (special functions, fmod/fmax/lerp/..., listed in __all__)
from ._api.reductions import *  # noqa: F401,F403  (nanmean, cumprod, median, sort, topk, quantile, ...)
from ._api.indexing import *  # noqa: F401,F403  (gather/scatter, index_*, masked_select, take, ...)
from ._api.rearrange import *  # noqa: F401,F403  (repeat_interleave, roll, tril, meshgrid, unique, ...)
from ._api.products import *  # noqa: F401,F403  (einsum, tensordot, kron, baddbmm, trace, cross, ...)
from ._api.linalg import *  # noqa: F401,F403  (det, logdet, inverse, matrix_power, ...)
from ._api.extra_ops import *  # noqa: F401,F403  (softmax, kthvalue, dist, renorm, *_scatter, cholesky, ...)
from ._api.more_ops import *  # noqa: F401,F403  (cov, trapezoid, vander, gradient, put, histogram, isin, ...)
from . import linalg as linalg
from ._api.shape import (
    view as view, reshape as reshape, flatten as flatten, unflatten as unflatten, squeeze as squeeze,
    unsqueeze as unsqueeze, transpose as transpose, swapaxes as swapaxes, swapdims as swapdims, t as t,
    permute as permute, movedim as movedim, moveaxis as moveaxis, diagonal as diagonal, select as select,
    narrow as narrow, unbind as unbind, split as split, chunk as chunk, tensor_split as tensor_split,
    cat as cat, concat as concat, concatenate as concatenate, stack as stack, hstack as hstack,
    vstack as vstack, flip as flip, nonzero as nonzero, argwhere as argwhere, clone as clone,
    masked_fill as masked_fill, index_put as index_put, broadcast_to as broadcast_to,
    atleast_1d as atleast_1d, atleast_2d as atleast_2d,
)
from . import autograd as autograd
from .autograd.anomaly_mode import (
    is_anomaly_enabled as is_anomaly_enabled, is_anomaly_check_nan_enabled as is_anomaly_check_nan_enabled,
)
from ._bridge import call_jax as call_jax, from_jax as from_jax, from_dlpack as from_dlpack
from . import func as func
from . import testing as testing
from . import nn as nn
from . import special as special
from . import optim as optim
from . import utils as utils
from .serialization import save as save, load as load
from ._compile_api import compile as compile
from ._typename import typename as typename

# PyTorch's aliases
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
cfloat = complex64
cdouble = complex128


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()
