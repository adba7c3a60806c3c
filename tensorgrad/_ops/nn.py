"""Neural-network ops: activations, softmax, normalization, embedding, and the Tensor-Scalar
arithmetic that PyTorch's composite functions record under their own node names.

Convolution, pooling, padding and resampling live in ``nn_conv.py``; losses in ``nn_loss.py``.
Where PyTorch's derivative at a kink differs from JAX's, the forward routes the gradient with
``jnp.where`` / ``lax.stop_gradient`` and a comment says which value PyTorch gives.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .reduction import _norm_impl
from .registry import op


# ---------------------------------------------------------------- Tensor-Scalar arithmetic
# PyTorch's C++ composites (losses, distances) call the Scalar overloads, whose nodes print
# AddBackward1, SubBackward1, MulBackward1, DivBackward1 and have no slot for the number.

@op("add_scalar", grad_fn="AddBackward1", saves="none", scalar_slots=False)
def add_scalar(x, *, other):
    return x + jnp.asarray(other, x.dtype)


@op("sub_scalar", grad_fn="SubBackward1", saves="none", scalar_slots=False)
def sub_scalar(x, *, other):
    return x - jnp.asarray(other, x.dtype)


@op("mul_scalar", grad_fn="MulBackward1", saves="none", scalar_slots=False)
def mul_scalar(x, *, other):
    return x * jnp.asarray(other, x.dtype)


@op("div_scalar", grad_fn="DivBackward1", saves="none", scalar_slots=False)
def div_scalar(x, *, other):
    return x / jnp.asarray(other, x.dtype)


@op("norm_dim", grad_fn="NormBackward1", saves="output")
def norm_dim(x, *, p, dims, keepdim):
    """``at::norm(x, p, dims)``, which distances record (gradient 0 where the norm is 0)."""
    return _norm_impl(x, p, dims, keepdim)


# ---------------------------------------------------------------- activations

@op("hardtanh")
def hardtanh(x, *, min_val, max_val):
    # PyTorch's gradient is 1 strictly inside (min_val, max_val): 0 at both bounds
    lo = jnp.asarray(min_val, x.dtype)
    hi = jnp.asarray(max_val, x.dtype)
    clipped = jnp.clip(x, lo, hi)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return clipped
    return jnp.where((x > lo) & (x < hi), x, lax.stop_gradient(clipped))


@op("leaky_relu", grad_fn="LeakyReluBackward0")
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


@op("hardsigmoid")
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


@op("prelu", grad_fn="PreluKernelBackward0")
def prelu(x, weight):
    """``weight`` arrives shaped to broadcast along the channel axis."""
    return jnp.where(x > 0, x, weight * x)


@op("log_sigmoid", grad_fn="LogSigmoidBackward0")
def log_sigmoid(x):
    return jax.nn.log_sigmoid(x)


@op("threshold")
def threshold(x, *, threshold, value):
    return jnp.where(x > threshold, x, jnp.asarray(value, x.dtype))


# PyTorch's in-place versions of these keep their result for backward and print ...Backward1
leaky_relu_ = op("leaky_relu_", grad_fn="LeakyReluBackward1")(leaky_relu.fn)
elu_ = op("elu_", grad_fn="EluBackward1")(elu.fn)
celu_ = op("celu_", grad_fn="CeluBackward1")(celu.fn)
threshold_ = op("threshold_", grad_fn="ThresholdBackward1")(threshold.fn)


@op("hardshrink")
def hardshrink(x, *, lambd):
    return jnp.where((x > lambd) | (x < -lambd), x, jnp.zeros_like(x))


@op("softshrink")
def softshrink(x, *, lambd):
    return jnp.where(x > lambd, x - lambd, jnp.where(x < -lambd, x + lambd, jnp.zeros_like(x)))


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


@op("safe_softmax", grad_fn="SafeSoftmaxBackward0", saves="output")
def safe_softmax(x, *, dim):
    """Softmax whose rows of all ``-inf`` give zeros instead of NaN (attention masks)."""
    return jnp.moveaxis(_masked_softmax_rows(jnp.moveaxis(x, dim, -1)), -1, dim)


def _masked_softmax_rows(scores):
    dead = jnp.all(scores == -jnp.inf, axis=-1, keepdims=True)
    out = jax.nn.softmax(jnp.where(dead, 0.0, scores), axis=-1)
    return jnp.where(dead, 0.0, out)


@op("sdpa_flash", grad_fn="ScaledDotProductFlashAttentionForCpuBackward0", no_slot=(3,))
def sdpa_flash(q, k, v, mask, *, scale, causal, groups):
    """Attention as one kernel, as PyTorch's CPU flash path (4-D inputs).

    ``mask`` is an additive float mask (shape (0,) for none); ``groups`` repeats the key and
    value heads for grouped-query attention. Rows with nothing to attend to give zeros.
    """
    if groups > 1:
        k = jnp.repeat(k, groups, axis=-3)
        v = jnp.repeat(v, groups, axis=-3)
    scores = jnp.einsum("...qd,...kd->...qk", q, k) * jnp.asarray(scale, q.dtype)
    if causal:
        keep = jnp.tril(jnp.ones(scores.shape[-2:], bool))
        scores = jnp.where(keep, scores, -jnp.inf)
    if mask.shape != (0,):
        scores = scores + mask
    return jnp.einsum("...qk,...kd->...qd", _masked_softmax_rows(scores), v)


# ---------------------------------------------------------------- linear maps

@op("trilinear", grad_fn="TrilinearBackward0")
def trilinear(x1, weight, x2):
    """The bilinear form ``out[n, o] = sum_ij x1[n, i] weight[o, i, j] x2[n, j]``."""
    return jnp.einsum("ni,oij,nj->no", x1, weight, x2)


# ---------------------------------------------------------------- embedding and one-hot

@op("embedding", no_slot=(1,))
def embedding(weight, indices, *, padding_idx, scale_grad_by_freq):
    rows = jnp.take(weight, indices, axis=0)
    if scale_grad_by_freq:
        # the gradient of each row is divided by how often its index occurs in the batch;
        # the forward value stays exact (rows + 0)
        flat = indices.reshape(-1)
        counts = jnp.zeros(weight.shape[0], weight.dtype).at[flat].add(1.0)
        scale = (1.0 / counts[indices])[..., None]
        rows = lax.stop_gradient(rows) + (rows - lax.stop_gradient(rows)) * scale
    if padding_idx is not None:
        # the padding row gets no gradient, as in PyTorch
        rows = jnp.where((indices == padding_idx)[..., None], lax.stop_gradient(rows), rows)
    return rows


@op("one_hot", differentiable=False)
def one_hot(x, *, num_classes):
    return (x[..., None] == jnp.arange(num_classes, dtype=x.dtype)).astype(jnp.int64)


@op("embedding_renorm", differentiable=False, no_slot=(1,))
def embedding_renorm(weight, indices, *, max_norm, norm_type):
    """``weight`` with the rows named in ``indices`` scaled down to norm ``max_norm``."""
    norms = jnp.sum(jnp.abs(weight) ** norm_type, axis=1) ** (1.0 / norm_type)
    used = jnp.zeros(weight.shape[0], bool).at[indices.reshape(-1)].set(True)
    scale = jnp.where(used & (norms > max_norm), max_norm / (norms + 1e-7), 1.0)
    return weight * scale[:, None].astype(weight.dtype)


# ---------------------------------------------------------------- normalization

def _given(a):
    """Optional arrays arrive as shape (0,) when absent (that keeps their slot in the graph)."""
    return a is not None and a.shape != (0,)


def _affine(y, weight, bias, shape):
    if _given(weight):
        y = y * weight.reshape(shape)
    if _given(bias):
        y = y + bias.reshape(shape)
    return y


def _moments(x, axes):
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    return mean, var


@op("native_batch_norm", grad_fn="NativeBatchNormBackward0", no_slot=(3, 4))
def native_batch_norm(x, weight, bias, running_mean, running_var, *, training, eps):
    """Batch normalization over every axis but the channels (axis 1).

    Returns ``(out, batch_mean, batch_var_unbiased)``; in evaluation mode the statistics are
    the running ones and the last two outputs are the running stats themselves.
    ``weight``/``bias`` of shape (0,) mean no affine transform.
    """
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        mean, var = _moments(x, axes)
        n = x.size // x.shape[1]
        stats = (mean.reshape(-1), var.reshape(-1) * (n / max(n - 1, 1)))
    else:
        mean = running_mean.reshape(shape).astype(x.dtype)
        var = running_var.reshape(shape).astype(x.dtype)
        stats = (running_mean, running_var)
    y = (x - mean) * lax.rsqrt(var + eps)
    return (_affine(y, weight, bias, shape),) + tuple(lax.stop_gradient(s) for s in stats)


@op("native_layer_norm", grad_fn="NativeLayerNormBackward0")
def native_layer_norm(x, weight, bias, *, ndims, eps):
    """Normalize over the last ``ndims`` axes; ``weight``/``bias`` have those axes' shape."""
    axes = tuple(range(x.ndim - ndims, x.ndim))
    mean, var = _moments(x, axes)
    y = (x - mean) * lax.rsqrt(var + eps)
    shape = x.shape[x.ndim - ndims:]
    return _affine(y, weight, bias, shape)


@op("native_group_norm", grad_fn="NativeGroupNormBackward0")
def native_group_norm(x, weight, bias, *, groups, eps):
    n, c = x.shape[:2]
    g = x.reshape((n, groups, -1))
    mean, var = _moments(g, (2,))
    y = ((g - mean) * lax.rsqrt(var + eps)).reshape(x.shape)
    return _affine(y, weight, bias, (1, c) + (1,) * (x.ndim - 2))


# ---------------------------------------------------------------- rearrangement

@op("pixel_shuffle", grad_fn="PixelShuffleBackward0", saves="none")
def pixel_shuffle(x, *, r):
    *lead, c, h, w = x.shape
    oc = c // (r * r)
    y = x.reshape(tuple(lead) + (oc, r, r, h, w))
    k = len(lead)
    y = jnp.transpose(y, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return y.reshape(tuple(lead) + (oc, h * r, w * r))


@op("pixel_unshuffle", grad_fn="PixelUnshuffleBackward0", saves="none")
def pixel_unshuffle(x, *, r):
    *lead, c, h, w = x.shape
    k = len(lead)
    y = x.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    y = jnp.transpose(y, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return y.reshape(tuple(lead) + (c * r * r, h // r, w // r))
