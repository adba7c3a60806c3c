"""The activations of ``torch.nn.functional`` and softmax (``softmax``, ``log_softmax``,
``softmin``); the dropout family lives in ``dropout.py``."""

import warnings

import jax
import jax.numpy as jnp

from ... import _dtype
from ..._cache import bounded_jit
from ..._ops import nn_activation as N
from ..._tensor import apply, check_inplace, commit_inplace, _wrap_dim
from ._util import maybe_inplace, not_implemented, require_float
from ..._api import shape as S
from ..._api import random as RND
from ..._api import elementwise as EL
from ..._api import conversion as CNV
from ..._autocast import lower_precision_function
from ..._autograd.grad_mode import is_grad_enabled


# ---------------------------------------------------------------- piecewise linear

def relu(input, inplace=False):
    """``max(x, 0)``; the gradient at 0 is 0, as in PyTorch."""
    if input.dtype is _dtype.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return maybe_inplace(input, inplace, EL.relu)


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


def randomized_leaky_relu(input, lower, upper, training, inplace, generator):
    """``x`` above 0; below, ``x`` times a slope drawn from ``U(lower, upper)`` per entry
    (training, from ``generator`` or the global one) or ``(lower + upper) / 2`` (eval).

    The node is PyTorch's ``RreluWithNoiseBackward0``; this is the kernel behind
    ``rrelu``/``rrelu_`` here and PyTorch's top-level ``torch.rrelu`` (which takes ``generator``).
    """
    if input.dtype.kind != _dtype.FLOAT:
        raise not_implemented("leaky_relu_cpu", input.dtype)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    dt = input._data.dtype
    if training:
        noise = _rrelu_noise(RND._key(generator), input._data, lower, upper)
    else:
        noise = jnp.zeros((), dt)
    cfg = (bool(training), (float(lower) + float(upper)) / 2)
    if not inplace:
        return apply(N.rrelu_with_noise, (input, noise), cfg)
    check_inplace(input)
    return commit_inplace(input, apply(N.rrelu_with_noise_, (input, noise), cfg))


@bounded_jit
def _rrelu_noise(key, x, lower, upper):
    """rrelu's slopes: 1 for positive entries, else drawn from U(lower, upper) (in float64)."""
    drawn = jax.random.uniform(key, x.shape, jnp.float64, lower, upper)
    return jnp.where(x > 0, jnp.ones((), jnp.float64), drawn).astype(x.dtype)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: below 0, a slope drawn from ``U(lower, upper)`` when ``training``,
    ``(lower + upper) / 2`` otherwise.

    >>> import tensorgrad as torch
    >>> torch.nn.functional.rrelu(torch.tensor([-4.0, 2.0]), 0.25, 0.25)
    tensor([-1.,  2.])
    """
    return randomized_leaky_relu(input, lower, upper, training, inplace, None)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """In-place ``rrelu``; PyTorch's ``nn.functional.rrelu_`` is ``torch.rrelu_``, hence ``generator``."""
    return randomized_leaky_relu(input, lower, upper, training, True, generator)


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


_silu_real = _simple(N.silu, "silu_cpu")


def silu(input, inplace=False):
    """``x * sigmoid(x)``; complex input without autograd, as PyTorch's."""
    if input.dtype.kind == _dtype.COMPLEX:
        if input.requires_grad and is_grad_enabled():
            raise RuntimeError("silu does not support automatic differentiation for outputs with complex dtype.")
        return maybe_inplace(input, inplace, lambda x: apply(N.silu, (x,)))
    return _silu_real(input, inplace)
mish = _simple(N.mish, "mish_cpu")
hardsigmoid = _simple(N.hardsigmoid, "hardsigmoid_cpu")
hardswish = _simple(N.hardswish, "hardswish_cpu")


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""
    require_float(input, "softplus_cpu")
    return apply(N.softplus, (input,), (float(beta), float(threshold)))


def softsign(input):
    """``x / (1 + |x|)``, recorded as PyTorch records it (Div over Add over Abs)."""
    return input / (EL.abs(input) + 1)


def logsigmoid(input):
    require_float(input, "log_sigmoid_cpu")
    return apply(N.log_sigmoid, (input,))


def tanhshrink(input):
    return input - EL.tanh(input)


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


@lower_precision_function
def prelu(input, weight):
    """``x`` above 0, ``weight * x`` otherwise; ``weight`` has 1 or ``channels`` entries."""
    require_float(input, "prelu_cpu")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
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
    return EL.sigmoid(input)


def tanh(input):
    return EL.tanh(input)


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

def _softmax_dim(name, ndim, stacklevel):
    """PyTorch's deprecated implicit dim (0 for 0-, 1- and 3-D inputs, else 1), with its warning
    ``stacklevel`` frames up (counted as PyTorch counts them from its own helper)."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_input(input, dim, dtype, name, stacklevel):
    if dim is None:
        # one frame deeper than PyTorch's _get_softmax_dim: this helper
        dim = _softmax_dim(name, input.ndim, stacklevel + 1)
    dim = _wrap_dim(dim, input.ndim)
    if dtype is not None:
        input = CNV.to(input, dtype)
    return input, dim


def _kernel(name, input, dim):
    """PyTorch's kernel name in its dtype error (a separate kernel serves the last axis)."""
    return f"{name}_lastdim_kernel_impl" if dim == max(input.ndim - 1, 0) else f"{name}_kernel_impl"


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (after casting to ``dtype`` when given).

    Without ``dim`` it picks PyTorch's deprecated implicit dim, with PyTorch's warning
    ``_stacklevel`` frames up.

    >>> import tensorgrad as torch
    >>> torch.nn.functional.softmax(torch.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    input, dim = _softmax_input(input, dim, dtype, "softmax", _stacklevel)
    require_float(input, _kernel("softmax", input, dim))
    return apply(N.softmax, (input,), (dim,))


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    input, dim = _softmax_input(input, dim, dtype, "log_softmax", _stacklevel)
    require_float(input, _kernel("log_softmax", input, dim))
    return apply(N.log_softmax, (input,), (dim,))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)``, recorded as PyTorch records it (Softmax over Neg)."""
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim, _stacklevel)
    neg = EL.neg(input)
    return softmax(neg, dim, dtype=dtype)
