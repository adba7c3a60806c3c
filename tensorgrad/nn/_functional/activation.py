"""Activations, softmax and dropout."""

import warnings

import jax
import jax.numpy as jnp

from ... import _dtype
from ..._api import creation as C
from ..._api import math as M
from ..._api import shape as S
from ..._ops import nn_activation as N
from ..._tensor import apply, _wrap, _wrap_dim
from ._util import maybe_inplace, not_implemented, require_float


# ---------------------------------------------------------------- piecewise linear

def relu(input, inplace=False):
    """``max(x, 0)``; the gradient at 0 is 0, as in PyTorch."""
    if input.dtype is _dtype.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return maybe_inplace(input, inplace, M.relu)


def relu_(input):
    return relu(input, inplace=True)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp into ``[min_val, max_val]``; the gradient is 0 at both bounds, as in PyTorch."""
    if input.dtype is _dtype.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return maybe_inplace(input, inplace, lambda x: apply(N.hardtanh, (x,), (min_val, max_val)))


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """``min(max(x, 0), 6)``; PyTorch computes (and names) it as hardtanh."""
    return hardtanh(input, 0.0, 6.0, inplace)


def _float_unary(op, kernel, inplace_op=None):
    """A float-only activation ``f(input, *config, inplace=False)``."""
    def run(input, cfg, inplace):
        require_float(input, kernel)
        if inplace:
            return maybe_inplace(input, True, lambda x: apply(inplace_op or op, (x,), cfg))
        return apply(op, (input,), cfg)
    return run


_run_leaky = _float_unary(N.leaky_relu, "leaky_relu_cpu", N.leaky_relu_)
_run_elu = _float_unary(N.elu, "elu_cpu", N.elu_)
_run_celu = _float_unary(N.celu, "elu_cpu", N.celu_)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` above 0, ``negative_slope * x`` otherwise (the slope is the gradient at 0)."""
    return _run_leaky(input, (float(negative_slope),), inplace)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def elu(input, alpha=1.0, inplace=False):
    return _run_elu(input, (float(alpha), 1.0, 1.0), inplace)


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    return _run_elu(input, (_SELU_ALPHA, _SELU_SCALE, 1.0), inplace)


def selu_(input):
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _run_celu(input, (float(alpha),), inplace)


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


def _threshold(input, bound, value, inplace):
    if input.dtype is _dtype.bool_:
        raise not_implemented("threshold_cpu", input.dtype)
    op = N.threshold_ if inplace else N.threshold
    return maybe_inplace(input, inplace, lambda x: apply(op, (x,), (bound, value)))


def threshold(input, threshold, value, inplace=False):
    """``x`` where ``x > threshold``, else ``value``."""
    return _threshold(input, threshold, value, inplace)


def threshold_(input, threshold, value):
    return _threshold(input, threshold, value, True)


# ---------------------------------------------------------------- smooth

def gelu(input, approximate="none"):
    """Gaussian error linear unit; ``approximate='tanh'`` uses the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    require_float(input, "GeluKernelImpl")
    return apply(N.gelu, (input,), (approximate,))


def _simple(op, kernel):
    def activation(input, inplace=False):
        require_float(input, kernel)
        return maybe_inplace(input, inplace, lambda x: apply(op, (x,)))
    activation.__name__ = op.name
    return activation


silu = _simple(N.silu, "silu_cpu")
mish = _simple(N.mish, "mish_cpu")
hardsigmoid = _simple(N.hardsigmoid, "hardsigmoid_cpu")
hardswish = _simple(N.hardswish, "hardswish_cpu")


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""
    require_float(input, "softplus_cpu")
    return apply(N.softplus, (input,), (float(beta), float(threshold)))


def softsign(input):
    """``x / (1 + |x|)``, recorded as PyTorch records it (Div over Add over Abs)."""
    return input / (M.abs(input) + 1)


def logsigmoid(input):
    require_float(input, "log_sigmoid_cpu")
    return apply(N.log_sigmoid, (input,))


def tanhshrink(input):
    return input - M.tanh(input)


def hardshrink(input, lambd=0.5):
    require_float(input, "hardshrink_cpu")
    return apply(N.hardshrink, (input,), (float(lambd),))


def softshrink(input, lambd=0.5):
    require_float(input, "softshrink_cpu")
    if lambd < 0:
        top = float(jnp.finfo(input._data.dtype).max)
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {input.dtype.c_name}, but found "
                           f"{lambd:g}")
    return apply(N.softshrink, (input,), (float(lambd),))


def prelu(input, weight):
    """``x`` above 0, ``weight * x`` otherwise; ``weight`` has 1 or ``channels`` entries."""
    require_float(input, "prelu_cpu")
    n = weight.numel()
    channels = input.shape[1] if input.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(
            f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} and "
            f"channel size = {channels}.")
    if input.ndim >= 2:
        # PyTorch views the weight to broadcast along the channel axis (ViewBackward0)
        weight = S.reshape(weight, (n,) + (1,) * (input.ndim - 2))
    return apply(N.prelu, (input, weight))


def sigmoid(input):
    return M.sigmoid(input)


def tanh(input):
    return M.tanh(input)


def glu(input, dim=-1):
    """``a * sigmoid(b)`` where ``a, b`` are the two halves of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = _wrap_dim(dim, input.ndim)
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {input.shape[dim]}")
    require_float(input, "glu_cpu")
    return apply(N.glu, (input,), (dim,))


# ---------------------------------------------------------------- softmax

def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", UserWarning, stacklevel=4)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_input(input, dim, dtype, name):
    if dim is None:
        dim = _softmax_dim(name, input.ndim)
    dim = _wrap_dim(dim, input.ndim)
    if dtype is not None:
        input = S.to(input, dtype)
    return input, dim


def _kernel(name, input, dim):
    """PyTorch's kernel name in its dtype error (a separate kernel serves the last axis)."""
    return f"{name}_lastdim_kernel_impl" if dim == max(input.ndim - 1, 0) else f"{name}_kernel_impl"


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (after casting to ``dtype`` when given)."""
    input, dim = _softmax_input(input, dim, dtype, "softmax")
    require_float(input, _kernel("softmax", input, dim))
    return apply(N.softmax, (input,), (dim,))


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    input, dim = _softmax_input(input, dim, dtype, "log_softmax")
    require_float(input, _kernel("log_softmax", input, dim))
    return apply(N.log_softmax, (input,), (dim,))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)``, recorded as PyTorch records it (Softmax over Neg)."""
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim)
    neg = M.neg(input)
    return softmax(neg, dim, dtype=dtype)


# ---------------------------------------------------------------- dropout

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def nothing_to_drop(input, p, training, feature):
    """True when a dropout returns ``input`` itself (not training, ``p == 0``, empty input);
    feature dropout needs at least two dimensions."""
    if not training or p == 0.0 or input.numel() == 0:
        return True
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return False


def keep_mask(input, p, feature):
    """A random boolean mask of the kept entries (probability ``1 - p``); ``feature`` draws one
    value per (sample, channel), the first two axes. Floating inputs only, as in PyTorch."""
    if input.dtype.kind != _dtype.FLOAT:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {input.dtype.c_name}")
    shape = tuple(input.shape)
    if feature:
        shape = shape[:2] + (1,) * (len(shape) - 2)
    return jax.random.bernoulli(C._key(None), 1.0 - p, shape)


def _dropout(input, p, training, inplace, feature):
    """Multiply by a fixed mask of 0 and ``1 / (1 - p)``. Returns ``input`` itself when nothing
    drops."""
    if nothing_to_drop(input, p, training, feature):
        return input
    d = input._data.dtype
    if p == 1.0:
        mask = _wrap(jnp.zeros((), d))
    else:
        mask = _wrap(keep_mask(input, p, feature).astype(d) * jnp.asarray(1.0 / (1.0 - p), d))
    if inplace:
        return input.mul_(mask)
    return M.mul(input, mask)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Draws from tensorgrad's global generator (``manual_seed`` makes it reproducible).
    """
    _check_p(p)
    return _dropout(input, p, training, inplace, feature=False)


def _feature_dropout(input, p, training, inplace, batched):
    """Channel-wise dropout; an unbatched input gets a batch axis for the duration."""
    if batched:
        return _dropout(input, p, training, inplace, feature=True)
    x = input.unsqueeze_(0) if inplace else S.unsqueeze(input, 0)
    out = _dropout(x, p, training, inplace, feature=True)
    return out.squeeze_(0) if inplace else S.squeeze(out, 0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, L)`` or ``(C, L)`` input."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d "
            "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, "
            "and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, input.ndim == 3)


def _feature_warning(name, nd, lo):
    warnings.warn(
        f"{name}: Received a {nd}-D input to {name}, which is deprecated and will result in an error in a "
        f"future release. To retain the behavior and silence this warning, please use dropout instead. Note "
        f"that {name} exists to provide channel-wise dropout on inputs with {lo - 1} spatial dimensions, a "
        f"channel dimension, and an optional batch dimension (i.e. {lo}D or {lo + 1}D inputs).",
        UserWarning, stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, H, W)`` input.

    As PyTorch, a 3-D input is read as ``(N, C, L)`` (with a warning), not as unbatched.
    """
    _check_p(p)
    nd = input.ndim
    if nd not in (3, 4):
        _feature_warning("dropout2d", nd, 3)
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.", UserWarning, stacklevel=2)
    return _dropout(input, p, training, inplace, feature=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input."""
    _check_p(p)
    nd = input.ndim
    if nd not in (4, 5):
        _feature_warning("dropout3d", nd, 4)
    return _feature_dropout(input, p, training, inplace, nd == 5)
