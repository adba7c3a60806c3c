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
from ._device import (
    device as device, set_default_device as set_default_device, get_default_device as get_default_device,
)
from ._runtime import (
    get_num_threads as get_num_threads, set_num_threads as set_num_threads,
    get_num_interop_threads as get_num_interop_threads, set_num_interop_threads as set_num_interop_threads,
    get_float32_matmul_precision as get_float32_matmul_precision,
    set_float32_matmul_precision as set_float32_matmul_precision,
    use_deterministic_algorithms as use_deterministic_algorithms,
    are_deterministic_algorithms_enabled as are_deterministic_algorithms_enabled,
    is_deterministic_algorithms_warn_only_enabled as is_deterministic_algorithms_warn_only_enabled,
)
from . import version as version
from .version import __version__ as __version__
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
from . import _api  # noqa: F401  (imports every declaration)
from ._api.random import Generator as Generator, default_generator as default_generator
from ._api.creation import FloatTensor as FloatTensor, DoubleTensor as DoubleTensor, HalfTensor as HalfTensor, LongTensor as LongTensor, IntTensor as IntTensor, ShortTensor as ShortTensor, CharTensor as CharTensor, ByteTensor as ByteTensor, BoolTensor as BoolTensor
from . import linalg as linalg
from . import autograd as autograd
from .autograd.anomaly_mode import (
    is_anomaly_enabled as is_anomaly_enabled, is_anomaly_check_nan_enabled as is_anomaly_check_nan_enabled,
)
from ._bridge import call_jax as call_jax, from_jax as from_jax, from_dlpack as from_dlpack
from . import func as func
from .func import vmap as vmap
from . import testing as testing
from . import nn as nn
from . import special as special
from . import masked as masked
from . import fft as fft
from . import _istft  # noqa: F401  (declares torch.istft, over fft's inverse transforms)
from . import signal as signal
from . import cuda as cuda
from . import amp as amp
from .amp import autocast as autocast
from .amp.autocast_mode import (
    is_autocast_enabled as is_autocast_enabled, get_autocast_dtype as get_autocast_dtype,
    set_autocast_enabled as set_autocast_enabled, set_autocast_dtype as set_autocast_dtype,
    is_autocast_cache_enabled as is_autocast_cache_enabled, set_autocast_cache_enabled as set_autocast_cache_enabled,
    clear_autocast_cache as clear_autocast_cache, is_autocast_cpu_enabled as is_autocast_cpu_enabled,
    get_autocast_cpu_dtype as get_autocast_cpu_dtype, get_autocast_gpu_dtype as get_autocast_gpu_dtype,
    set_autocast_cpu_enabled as set_autocast_cpu_enabled, set_autocast_cpu_dtype as set_autocast_cpu_dtype,
)
from . import cpu as cpu
cuda.amp = amp.device_amp_module(cuda.__name__, "cuda")
from . import mps as mps
from . import accelerator as accelerator
from . import backends as backends
from . import optim as optim
from . import utils as utils
from . import distributions as distributions
from . import distributed as distributed
from .serialization import save as save, load as load
from ._compile_api import compile as compile
from . import compiler as compiler
from ._cache import set_limits as set_cache_limits, stats as cache_stats
from ._typename import typename as typename
from ._api.inplace import inplace_of as _inplace_of
from ._api.surface import exported as _exported, install_methods as _install_methods, inplace_functions as _inplace_functions

# the declared surface: every torch-level function, and the Tensor's methods, from one registry
# (after every layer has declared its functions: nn.functional declares softmax and dropout)
globals().update(_exported("torch"))
vars(linalg).update(_exported("linalg"))
vars(special).update(_exported("special"))
vars(fft).update(_exported("fft"))
_install_methods(Tensor, _inplace_of)
globals().update(_inplace_functions(Tensor))       # torch.sin_(t), torch.zero_(t), ...

# PyTorch's aliases
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
cfloat = complex64
cdouble = complex128
from ._as_torch import install_as_torch as install_as_torch
