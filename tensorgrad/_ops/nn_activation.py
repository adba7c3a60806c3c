"""Neural-network activations: the relu/elu/gelu families, shrinkage, rrelu, softmax.

Where PyTorch's derivative at a kink differs from JAX's, the forward routes the gradient with
``jnp.where`` / ``lax.stop_gradient`` and a comment says which value PyTorch gives.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .registry import op


# ---------------------------------------------------------------- activations

@op("hardtanh", grad_reads=("x",))
def hardtanh(x, *, min_val, max_val):
    # PyTorch's gradient is 1 strictly inside (min_val, max_val): 0 at both bounds
    lo = jnp.asarray(min_val, x.dtype)
    hi = jnp.asarray(max_val, x.dtype)
    clipped = jnp.clip(x, lo, hi)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return clipped
    return jnp.where((x > lo) & (x < hi), x, lax.stop_gradient(clipped))


@op("leaky_relu", grad_fn="LeakyReluBackward0", grad_reads=("x",))
def leaky_relu(x, *, negative_slope):
    # at 0 the gradient is the negative slope, as in PyTorch
    return jnp.where(x > 0, x, x * negative_slope)


@op("elu")
def elu(x, *, alpha, scale, input_scale):
    """PyTorch's elu family (elu, selu): ``scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1))``."""
    # the exponential sees only non-positive values, so the unused branch never overflows;
    # at 0 the gradient is the negative branch's (alpha * scale * input_scale), as in PyTorch
    neg = jnp.where(x > 0, 0.0, x)
    return jnp.where(x > 0, x * scale, jnp.expm1(neg * input_scale) * (alpha * scale))


@op("celu")
def celu(x, *, alpha):
    return elu.fn(x, alpha=alpha, scale=1.0, input_scale=1.0 / alpha)


@op("gelu")
def gelu(x, *, approximate):
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)
        return 0.5 * x * (1.0 + jnp.tanh(inner))
    return 0.5 * x * (1.0 + lax.erf(x * (1.0 / math.sqrt(2.0))))


@op("silu")
def silu(x):
    if jnp.iscomplexobj(x):     # PyTorch's complex kernel
        return x / (1 + jnp.exp(-x))
    return x * jax.nn.sigmoid(x)


@op("mish")
def mish(x):
    return x * jnp.tanh(jax.nn.softplus(x))


@op("softplus")
def softplus(x, *, beta, threshold):
    # linear above the threshold, as in PyTorch; the log1p(exp()) branch never sees large values
    bx = x * beta
    above = bx > threshold
    safe = jnp.where(above, 0.0, bx)
    return jnp.where(above, x, jnp.log1p(jnp.exp(safe)) / beta)


_ONE_SIXTH_F32 = float(np.float32(1.0) / np.float32(6.0))


@jax.custom_jvp
def _hardsigmoid(x):
    return jnp.clip(x + 3.0, 0.0, 6.0) / 6.0


@_hardsigmoid.defjvp
def _hardsigmoid_jvp(primals, tangents):
    # PyTorch's slope is float32(1/6) (also for float64) strictly inside (-3, 3), 0 at and beyond
    (x,), (t,) = primals, tangents
    slope = jnp.where((x > -3.0) & (x < 3.0), jnp.asarray(_ONE_SIXTH_F32, x.dtype), 0.0)
    return _hardsigmoid(x), slope * t


@op("hardsigmoid", grad_reads=("x",))
def hardsigmoid(x):
    return _hardsigmoid(x)


@op("hardswish")
def hardswish(x):
    # PyTorch's gradient: 0 up to -3 (included), x/3 + 1/2 inside, 1 from 3 (included)
    middle = x * (x + 3.0) / 6.0
    return jnp.where(x <= -3.0, jnp.zeros_like(x), jnp.where(x < 3.0, middle, x))


@op("glu")
def glu(x, *, dim):
    a, b = jnp.split(x, 2, axis=dim)
    return a * jax.nn.sigmoid(b)


@op("prelu", grad_fn="PreluKernelBackward0", saves={"x": "any", "weight": "any"}, grad_reads=("x", "weight"))
def prelu(x, weight):
    """``weight`` arrives shaped to broadcast along the channel axis."""
    return jnp.where(x > 0, x, weight * x)


@op("log_sigmoid", grad_fn="LogSigmoidBackward0")
def log_sigmoid(x):
    return jax.nn.log_sigmoid(x)


@op("threshold", grad_reads=("x",))
def threshold(x, *, threshold, value):
    return jnp.where(x > threshold, x, jnp.asarray(value, x.dtype))


# PyTorch's in-place versions of these keep their result for backward and print ...Backward1
leaky_relu_ = op("leaky_relu_", grad_fn="LeakyReluBackward1", saves={"out": "any"}, grad_reads=("x",))(leaky_relu.fn)
elu_ = op("elu_", grad_fn="EluBackward1", saves={"out": "any"})(elu.fn)
celu_ = op("celu_", grad_fn="CeluBackward1", saves={"out": "any"})(celu.fn)
threshold_ = op("threshold_", grad_fn="ThresholdBackward1", grad_reads=("x",))(threshold.fn)


@op("hardshrink", grad_reads=("x",))
def hardshrink(x, *, lambd):
    return jnp.where((x > lambd) | (x < -lambd), x, jnp.zeros_like(x))


@op("softshrink", grad_reads=("x",))
def softshrink(x, *, lambd):
    return jnp.where(x > lambd, x - lambd, jnp.where(x < -lambd, x + lambd, jnp.zeros_like(x)))


@op("rrelu_with_noise", grad_fn="RreluWithNoiseBackward0", no_slot=(1,), saves={"x": "any", "noise": "any"},
    grad_reads=("x",))
def rrelu_with_noise(x, noise, *, training, slope):
    """``x`` above 0; below, ``x`` times its sampled slope (training) or the mean slope."""
    scale = noise.astype(x.dtype) if training else jnp.asarray(slope, x.dtype)
    return jnp.where(x > 0, x, x * scale)


rrelu_with_noise_ = op("rrelu_with_noise_", grad_fn="RreluWithNoiseBackward1", no_slot=(1,),
                       saves={"noise": "any", "out": "any"}, grad_reads=("x",))(rrelu_with_noise.fn)


# ---------------------------------------------------------------- softmax

def _on_axis(fn, x, dim):
    """Apply ``fn(x, axis)``; a 0-d tensor is its own one-element axis."""
    if x.ndim == 0:
        return fn(x.reshape(1), 0).reshape(())
    return fn(x, dim)


@op("softmax", grad_fn="SoftmaxBackward0", saves="output")
def softmax(x, *, dim):
    return _on_axis(lambda v, a: jax.nn.softmax(v, axis=a), x, dim)


@op("log_softmax", grad_fn="LogSoftmaxBackward0", saves="output")
def log_softmax(x, *, dim):
    return _on_axis(lambda v, a: jax.nn.log_softmax(v, axis=a), x, dim)
