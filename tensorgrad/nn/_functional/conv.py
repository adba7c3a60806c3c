"""Convolutions and pooling, with PyTorch's argument checks and output sizes."""

import warnings

from ... import _dtype
from ..._ops import nn_conv as NC
from ..._tensor import apply, _wrap_dim, _C_TYPE
from ._util import absent, not_implemented, ntuple
from ..._api import shape as S
from ..._api import reduction as RED
from ..._autocast import lower_precision_function

_AXES = ("depth", "height", "width")


# ---------------------------------------------------------------- convolution

def _check_conv_input(input, nd, name):
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of size: "
            f"{list(input.shape)}")


def _check_conv_dtypes(input, weight, bias, name):
    if input.dtype is _dtype.bool_:
        raise not_implemented("slow_conv2d_cpu", input.dtype)
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.c_name} but found {weight.dtype.c_name}")
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(
            f"Input type ({_C_TYPE[input.dtype.name]}) and bias type ({_C_TYPE[bias.dtype.name]}) should be the same")


def _positive(values, what):
    if any(v <= 0 for v in values):
        raise RuntimeError(f"non-positive {what} is not supported")


def _same_padding(input, weight, stride, dilation):
    """PyTorch's padding='same': total ``dilation * (k - 1)`` per axis, the odd unit on the
    right, added by an explicit pad (ConstantPadNdBackward0) when the two sides differ."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left = []
    extra = []
    for d, k in zip(dilation, weight.shape[2:]):
        total = d * (k - 1)
        left.append(total // 2)
        extra.append(total - 2 * (total // 2))
    if any(extra):
        warnings.warn(
            "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the "
            "input be created (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)",
            UserWarning, stacklevel=4)
        pairs = ((0, 0), (0, 0)) + tuple((0, e) for e in extra)
        input = apply(NC.constant_pad_nd, (input,), (pairs, 0))
    return input, tuple(left)


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, name):
    _check_conv_input(input, nd, name)
    k = weight.ndim - 2
    if k != nd:
        raise RuntimeError(
            f"expected stride to be a single integer value or a list of {k} values to match the convolution "
            f"dimensions, but got stride={list(ntuple(stride, nd, 'stride'))}")
    stride = ntuple(stride, nd, "stride")
    dilation = ntuple(dilation, nd, "dilation")
    _positive(stride, "stride")
    _positive(dilation, "dilation")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    batched = input.ndim == nd + 2
    x = input if batched else S.unsqueeze(input, 0)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * nd
        elif padding == "same":
            x, padding = _same_padding(x, weight, stride, dilation)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    padding = ntuple(padding, nd, "padding")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    _check_conv_dtypes(x, weight, bias, name)
    out_channels = weight.shape[0]
    if out_channels % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight "
            f"of size [{list(weight.shape)}] instead")
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{list(x.shape)} to have "
            f"{weight.shape[1] * groups} channels, but got {x.shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with {out_channels} "
            f"elements, but got bias of size {list(bias.shape)} instead")
    padded = [n + 2 * p for n, p in zip(x.shape[2:], padding)]
    kernel = [d * (kk - 1) + 1 for d, kk in zip(dilation, weight.shape[2:])]
    if any(pn < kk for pn, kk in zip(padded, kernel)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size")
    cfg = (stride, tuple((p, p) for p in padding), dilation, int(groups), False, (0,) * nd)
    out = apply(NC.convolution, (x, weight, absent(x.dtype) if bias is None else bias), cfg)
    return out if batched else S.squeeze(out, 0)


@lower_precision_function
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D cross-correlation of ``(N, C_in, L)`` (or ``(C_in, L)``) with ``(C_out, C_in/groups, k)``.

    ``padding`` is an int, a tuple, ``'valid'`` (none) or ``'same'`` (output as long as input).
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@lower_precision_function
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation (see ``conv1d``); node ``ConvolutionBackward0`` as in PyTorch.

    >>> import tensorgrad as torch
    >>> torch.nn.functional.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3)).shape
    torch.Size([1, 1, 2, 2])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


@lower_precision_function
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, name):
    _check_conv_input(input, nd, name)
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    stride = ntuple(stride, nd, "stride")
    padding = ntuple(padding, nd, "padding")
    output_padding = ntuple(output_padding, nd, "output_padding")
    dilation = ntuple(dilation, nd, "dilation")
    _positive(stride, "stride")
    _positive(dilation, "dilation")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(op_ >= s and op_ >= d for op_, s, d in zip(output_padding, stride, dilation)):
        axes = _AXES[3 - nd:]
        parts = [f"output_padding_{a}: {v}" for a, v in zip(axes, output_padding)]
        parts += [f"stride_{a}: {v}" for a, v in zip(axes, stride)]
        parts += [f"dilation_{a}: {v}" for a, v in zip(axes, dilation)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))
    batched = input.ndim == nd + 2
    x = input if batched else S.unsqueeze(input, 0)
    _check_conv_dtypes(x, weight, bias, name)
    if weight.ndim != nd + 2:
        raise RuntimeError(
            f"expected stride to be a single integer value or a list of {weight.ndim - 2} values to match the "
            f"convolution dimensions, but got stride={list(stride)}")
    if x.shape[1] != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(x.shape)} to have "
            f"{weight.shape[0]} channels, but got {x.shape[1]} channels instead")
    if weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight "
            f"of size [{list(weight.shape)}] instead")
    out_channels = weight.shape[1] * groups
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
            f"{out_channels} elements, but got bias of size {list(bias.shape)} instead")
    sizes = [(n - 1) * s - 2 * p + d * (k - 1) + op_ + 1
             for n, s, p, d, k, op_ in zip(x.shape[2:], stride, padding, dilation, weight.shape[2:], output_padding)]
    if any(v <= 0 for v in sizes):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, x.shape[2:]))}). Calculated output size per "
            f"channel: ({' x '.join(map(str, sizes))}). Output size is too small")
    cfg = (stride, tuple((p, p) for p in padding), dilation, int(groups), True, output_padding)
    out = apply(NC.convolution, (x, weight, absent(x.dtype) if bias is None else bias), cfg)
    return out if batched else S.squeeze(out, 0)


@lower_precision_function
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transpose (gradient) of ``conv1d``; ``weight`` is ``(C_in, C_out/groups, k)``."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


@lower_precision_function
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


@lower_precision_function
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                           "conv_transpose3d")


# ---------------------------------------------------------------- pooling arguments

def _pool_tuple(value, nd, name, what, omitted=False):
    """A pooling argument as an nd-tuple, with PyTorch's message for a wrong length."""
    words = {1: "one", 2: "two", 3: "three"}[nd]
    if isinstance(value, (list, tuple)):
        value = tuple(int(v) for v in value)
        if len(value) == 1:
            return value * nd
        if len(value) == nd:
            return value
        lead = "must either be omitted, a single int" if omitted else (
            "must be either a single int" if what == "dilation" else "must either be a single int")
        raise RuntimeError(f"{name}: {what} {lead}, or a tuple of {words} ints")
    return (int(value),) * nd


def pool_output_size(n, k, pad, stride, dilation, ceil_mode):
    """PyTorch's pooling output length along one axis."""
    numerator = n + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = numerator // stride + 1
    if ceil_mode and (out - 1) * stride >= n + pad:
        out -= 1
    return out


def _pool_args(input, nd, name, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _pool_tuple(kernel_size, nd, name, "kernel_size")
    stride = kernel if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else \
        _pool_tuple(stride, nd, name, "stride", omitted=True)
    padding = _pool_tuple(padding, nd, name, "padding")
    dilation = _pool_tuple(dilation, nd, name, "dilation")
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    axes = ["T", "H", "W"][3 - nd:]
    if any(k <= 0 for k in kernel):
        raise RuntimeError("kernel size should be greater than zero, but got "
                           + " ".join(f"k{a}: {k}" for a, k in zip(axes, kernel)))
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero, but got "
                           + " ".join(f"dilation{a}: {d}" for a, d in zip(axes, dilation)))
    if any(p < 0 for p in padding):
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    for k, p, d in zip(kernel, padding, dilation):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and "
                f"dilation={d}")
    spatial = tuple(input.shape[input.ndim - nd:])
    out = tuple(pool_output_size(n, k, p, s, d, ceil_mode)
                for n, k, p, s, d in zip(spatial, kernel, padding, stride, dilation))
    if any(o < 1 for o in out):
        c = input.shape[-nd - 1]
        raise RuntimeError(
            f"Given input size: ({'x'.join(map(str, (c,) + spatial))}). Calculated output size: "
            f"({'x'.join(map(str, (c,) + out))}). Output size is too small")
    return kernel, stride, padding, dilation, out


def _check_pool_dims(input, nd, message):
    if input.ndim not in (nd + 1, nd + 2) or any(s == 0 for s in input.shape[input.ndim - nd - 1:]):
        raise RuntimeError(message)


# ---------------------------------------------------------------- max pooling

_MAX_POOL = {2: NC.max_pool2d, 3: NC.max_pool3d}


def _max_pool(input, nd, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    name = f"max_pool{nd}d"
    _check_pool_dims(input, nd, f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    if input.dtype is _dtype.bool_:
        raise not_implemented(name, input.dtype)
    kernel, stride, padding, dilation, out = _pool_args(input, nd, name, kernel_size, stride, padding, dilation,
                                                        ceil_mode)
    values, indices = apply(_MAX_POOL[nd], (input,), (kernel, stride, padding, dilation, out))
    return (values, indices) if return_indices else values


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window; the first maximum receives the gradient, as in PyTorch.

    With ``return_indices`` also returns each maximum's flat index in its ``H * W`` plane.
    """
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _one(value, name, what):
    """A 1-d pooling argument (int or one-element sequence)."""
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            if what == "kernel_size":
                raise RuntimeError(f"{name}() kernel_size must be an int, list of ints or tuple of ints of size 1 "
                                   f"but got size {len(value)}")
            raise RuntimeError(f"{name}() {what} must be an int, list of ints or tuple of ints of size 1 but got "
                               f"size {len(value)}")
        return (1, int(value[0]))
    return (1, int(value))


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-D max pooling, computed (and recorded) as PyTorch does: as a 2-D pool of height 1."""
    if input.ndim not in (2, 3) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but "
            f"got:{list(input.shape)}")
    if not return_indices and input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("max_pool1d_impl", input.dtype)
    kernel = _one(kernel_size, "max_pool1d", "kernel_size")
    stride = None if stride is None or stride == [] or stride == () else _one(stride, "max_pool1d", "stride")
    padding = (0,) + _one(padding, "max_pool1d", "padding")[1:]
    dilation = _one(dilation, "max_pool1d", "dilation")
    out = max_pool2d(S.unsqueeze(input, -2), kernel, stride, padding, dilation, ceil_mode, True)
    values = S.squeeze(out[0], -2)
    if return_indices:
        return values, S.squeeze(out[1], -2)
    return values


# ---------------------------------------------------------------- average pooling

_AVG_POOL = {2: NC.avg_pool2d, 3: NC.avg_pool3d}


def _avg_pool(input, nd, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    name = f"avg_pool{nd}d"
    if nd == 3:
        # avg_pool3d's own checks: the rank first, then every dimension after the first
        if input.ndim not in (4, 5):
            raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
        if 0 in input.shape[1:]:
            raise RuntimeError(f"avg_pool3d(): Expected input's non-batch dimensions to have positive length, but "
                               f"input has a shape of {list(input.shape)} and non-batch dimension 0 has length zero!")
    _wrap_dim(-nd - 1, input.ndim)
    if input.ndim not in (nd + 1, nd + 2) or any(s == 0 for s in input.shape[input.ndim - nd - 1:]):
        raise RuntimeError(
            f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with optional 0 dim batch size for input, but "
            f"got:{list(input.shape)}")
    if input.dtype is _dtype.bool_:
        raise not_implemented(name, input.dtype)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, padding, _, out = _pool_args(input, nd, name, kernel_size, stride, padding, 1, ceil_mode)
    cfg = (kernel, stride, padding, out, bool(count_include_pad), divisor_override or None)
    return apply(_AVG_POOL[nd], (input,), cfg)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window; ``count_include_pad`` counts the zero padding in the divisor."""
    return _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _check_1d(input, name):
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' (while "
            f"checking arguments for {name})")


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling, computed (and recorded) as a 2-D pool of height 1."""
    _check_1d(input, "avg_pool1d")

    def one(value, what):
        if isinstance(value, (list, tuple)):
            if len(value) != 1:
                raise RuntimeError(f"avg_pool1d() argument '{what}' should contain one int (got {len(value)})")
            value = value[0]
        return int(value)
    kernel = (1, one(kernel_size, "kernel_size"))
    stride = kernel if stride is None or stride == [] or stride == () else (1, one(stride, "stride"))
    padding = (0, one(padding, "padding"))
    out = avg_pool2d(S.unsqueeze(input, -2), kernel, stride, padding, ceil_mode, count_include_pad)
    return S.squeeze(out, -2)


# ---------------------------------------------------------------- adaptive pooling

_ADAPTIVE = {("avg", 2): NC.adaptive_avg_pool2d, ("avg", 3): NC.adaptive_avg_pool3d,
             ("max", 2): NC.adaptive_max_pool2d, ("max", 3): NC.adaptive_max_pool3d}


def _adaptive_size(input, output_size, nd, name):
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != nd:
            raise RuntimeError(f"{name}: output_size must be {nd}")
        sizes = tuple(output_size)
    else:
        sizes = (output_size,) * nd
    spatial = tuple(input.shape[input.ndim - nd:])
    return tuple(n if s is None else int(s) for s, n in zip(sizes, spatial))


def _adaptive(kind, input, output_size, nd, return_indices=False):
    name = f"adaptive_{kind}_pool{nd}d"
    if isinstance(output_size, (list, tuple)) and input.ndim <= len(output_size):
        # PyTorch's Python wrapper fills None sizes from the input's before the kernel checks it
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if input.ndim not in (nd + 1, nd + 2):
        sep = ":" if kind == "max" else ""
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got{sep} {list(input.shape)}")
    out = _adaptive_size(input, output_size, nd, name)
    if any(o < 0 for o in out):
        shown = ", ".join(str(o) for o in out)
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{shown}}}")
    # adaptive_avg_pool2d checks the spatial dims; the others every dim after the first
    _nonempty_after(name, input, input.ndim - nd if (kind, nd) == ("avg", 2) else 1)
    if kind == "avg" and all(o == 1 for o in out):
        # PyTorch takes a mean for a 1 x 1 output (MeanBackward1)
        return RED.mean(input, tuple(range(-nd, 0)), keepdim=True)
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented(f"adaptive_{kind}_pool{nd}d", input.dtype)
    result = apply(_ADAPTIVE[kind, nd], (input,), (out,))
    if kind == "max":
        return result if return_indices else result[0]
    return result


def _nonempty_after(name, input, first):
    for i in range(first, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                f"{list(input.shape)} with dimension {i} being empty")


def adaptive_avg_pool2d(input, output_size):
    """Average over ``output_size`` bins that tile the input (bins may overlap by one)."""
    return _adaptive("avg", input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    return _adaptive("avg", input, output_size, 3)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _adaptive("max", input, output_size, 2, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive("max", input, output_size, 3, return_indices)


def _size1(output_size, name):
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 1:
            raise RuntimeError(f"{name}: output_size must be 1")
        output_size = output_size[0]
    return output_size


def adaptive_avg_pool1d(input, output_size):
    _check_1d(input, "adaptive_avg_pool1d")
    size = _size1(output_size, "adaptive_avg_pool1d")
    out = adaptive_avg_pool2d(S.unsqueeze(input, -2), (1, size))
    return S.squeeze(out, -2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    _check_1d(input, "adaptive_max_pool1d")
    _nonempty_after("adaptive_max_pool1d", input, 1)
    size = _size1(output_size, "adaptive_max_pool1d")
    values, indices = adaptive_max_pool2d(S.unsqueeze(input, -2), (1, size), True)
    values = S.squeeze(values, -2)
    return (values, S.squeeze(indices, -2)) if return_indices else values
