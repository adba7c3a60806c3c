"""Functions of ``nn.functional`` that PyTorch also has at the top level: softmax/log_softmax,
the dropout family, selu, celu, threshold, prelu and rrelu.

They call into ``nn`` (a layer above) at call time; they are kept together so that they can be
replaced by ``nn.functional``'s own declarations in one step.
"""

import jax
import jax.numpy as jnp

from .. import _dtype
from .._ops import nn_activation as NA
from .._tensor import apply, check_inplace, commit_inplace
from .random import _key
from .surface import declare


# ---------------------------------------------------------------- softmax at the top level

@declare("softmax", method=True, out=True)
def softmax(input, dim, dtype=None):
    """``torch.softmax``: the same node as ``nn.functional.softmax`` (``dim`` is required)."""
    from ..nn._functional.activation import softmax as _softmax
    return _softmax(input, dim, dtype=dtype)


@declare("log_softmax", method=True, out=True)
def log_softmax(input, dim, dtype=None):
    from ..nn._functional.activation import log_softmax as _log_softmax
    return _log_softmax(input, dim, dtype=dtype)


# ---------------------------------------------------------------- activations at the top level

def _F():
    from ..nn import functional
    return functional


def _check_p(p):
    # the ATen op raises RuntimeError where nn.functional's Python check raises ValueError
    if p < 0.0 or p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


@declare("dropout")
def dropout(input, p, train):
    """``torch.dropout``: ``nn.functional.dropout`` with ``train`` required."""
    _check_p(p)
    return _F().dropout(input, p, train)


@declare("dropout_")
def dropout_(input, p, train):
    _check_p(p)
    return _F().dropout(input, p, train, inplace=True)


@declare("selu")
def selu(input):
    return _F().selu(input)


@declare("selu_")
def selu_(input):
    return _F().selu(input, inplace=True)


@declare("celu")
def celu(input, alpha=1.0):
    return _F().celu(input, alpha)


@declare("celu_")
def celu_(input, alpha=1.0):
    return _F().celu(input, alpha, inplace=True)


@declare("threshold", out=True)
def threshold(input, threshold, value):
    return _F().threshold(input, threshold, value)


@declare("threshold_")
def threshold_(input, threshold, value):
    return _F().threshold(input, threshold, value, inplace=True)


@declare("prelu", method=True)
def prelu(input, weight):
    return _F().prelu(input, weight)


@declare("rrelu")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``x`` above 0; below, ``x`` times a slope drawn from ``U(lower, upper)`` per entry
    (training) or ``(lower + upper) / 2`` (eval). The node is ``RreluWithNoiseBackward0``."""
    return _rrelu(input, lower, upper, training, False, generator)


@declare("rrelu_")
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu(input, lower, upper, training, True, generator)


def _rrelu(input, lower, upper, training, inplace, generator=None):
    if input.dtype.kind != _dtype.FLOAT:
        raise NotImplementedError(f"\"leaky_relu_cpu\" not implemented for '{input.dtype.c_name}'")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    dt = input._data.dtype
    if training:
        drawn = jax.random.uniform(_key(generator), input._data.shape, jnp.float64, lower, upper)
        noise = jnp.where(input._data > 0, jnp.ones((), jnp.float64), drawn).astype(dt)
    else:
        noise = jnp.zeros((), dt)
    cfg = (bool(training), (float(lower) + float(upper)) / 2)
    if not inplace:
        return apply(NA.rrelu_with_noise, (input, noise), cfg)
    check_inplace(input)
    return commit_inplace(input, apply(NA.rrelu_with_noise_, (input, noise), cfg))
