"""The torch-level functions whose one implementation is ``nn.functional``'s.

``torch.softmax``, ``torch.dropout``, ``torch.selu``, ... are PyTorch's ATen ops; their
``nn.functional`` twins are Python wrappers with other signatures (``dim=None`` and a warning,
``training=`` instead of ``train``, ``inplace=``, ``ValueError`` for a bad ``p``). Each is
declared here as a thin function with the top-level signature over ``nn.functional``'s
implementation; the top level (and ``Tensor.softmax``, ``tensorgrad.special.softmax``) get them
from the declared surface.
"""

from contextlib import nullcontext

from ... import _dtype
from ..._api.creation import new_empty
from ..._api.surface import declare
from ..._autograd.grad_mode import no_grad
from . import activation as A
from . import dropout as D
from . import norm as N
from . import spatial as SP


@declare("softmax", method=True, out=True)
def softmax(input, dim, dtype=None):
    """``torch.softmax``: ``nn.functional.softmax`` with ``dim`` required."""
    return A.softmax(input, dim, dtype=dtype)


@declare("log_softmax", method=True, out=True)
def log_softmax(input, dim, dtype=None):
    return A.log_softmax(input, dim, dtype=dtype)


@declare("constant_pad_nd")
def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: ``nn.functional.pad`` in ``constant`` mode."""
    return SP.pad(input, pad, "constant", value)


@declare("special.softmax")
def special_softmax(input, dim, dtype=None):
    return A.softmax(input, dim, dtype=dtype)


@declare("special.log_softmax")
def special_log_softmax(input, dim, dtype=None):
    return A.log_softmax(input, dim, dtype=dtype)


def _dropout_family(name, implementation, doc):
    """``torch.<name>(input, p, train)`` and its in-place twin over ``nn.functional``'s kernel;
    a bad ``p`` raises RuntimeError (the ATen op's type, where ``nn.functional`` raises ValueError)."""
    def out_of_place(input, p, train):
        D.check_probability(p, RuntimeError)
        return implementation(input, p, train)

    def in_place(input, p, train):
        D.check_probability(p, RuntimeError)
        return implementation(input, p, train, inplace=True)
    out_of_place.__name__ = out_of_place.__qualname__ = name
    out_of_place.__doc__ = doc
    in_place.__name__ = in_place.__qualname__ = name + "_"
    declare(name)(out_of_place)
    declare(name + "_")(in_place)


_dropout_family("dropout", D.dropout, "``torch.dropout``: ``nn.functional.dropout`` with ``train`` required.")
_dropout_family("feature_dropout", D.feature_dropout, "Dropout of whole channels (``dim 1``), one draw per channel.")
_dropout_family("alpha_dropout", D.alpha_dropout, "``torch.alpha_dropout``: ``nn.functional.alpha_dropout``.")
_dropout_family("feature_alpha_dropout", D.feature_alpha_dropout,
                "``torch.feature_alpha_dropout``: alpha dropout of whole channels.")


@declare("selu")
def selu(input):
    return A.selu(input)


@declare("celu")
def celu(input, alpha=1.0):
    return A.celu(input, alpha)


@declare("threshold", out=True)
def threshold(input, threshold, value):
    return A.threshold(input, threshold, value)


@declare("rrelu")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``torch.rrelu``: ``nn.functional.rrelu`` with a ``generator`` and no ``inplace``."""
    return A.randomized_leaky_relu(input, lower, upper, training, False, generator)


# the same functions as nn.functional's, in PyTorch too
declare("selu_")(A.selu_)
declare("celu_")(A.celu_)
declare("threshold_")(A.threshold_)
declare("rrelu_")(A.rrelu_)
declare("prelu", method=True)(A.prelu)


# ---------------------------------------------------------------- the native normalizations
# ``torch.native_layer_norm`` and its kin return the normalized tensor (nn.functional's, with its
# ``Native...Backward0`` node) and the statistics PyTorch saves for backward: the mean and the
# reciprocal standard deviation, which never require grad.

def _statistics(input, dims, eps, keep_shape, differentiable=False):
    """The mean and reciprocal standard deviation over ``dims``, shaped ``keep_shape`` (with
    history only where PyTorch's are differentiable: group norm's)."""
    if not differentiable:
        input = input.detach()
    with no_grad() if not differentiable else nullcontext():
        mean = input.mean(dims, keepdim=True)
        rstd = (input.var(dims, correction=0, keepdim=True) + eps).rsqrt()
    return mean.reshape(keep_shape), rstd.reshape(keep_shape)


@declare("native_layer_norm")
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``(out, mean, rstd)``; the statistics keep the normalized dimensions as size 1."""
    out = N.layer_norm(input, normalized_shape, weight, bias, eps)
    k = len(normalized_shape)
    dims = tuple(range(input.dim() - k, input.dim()))
    return (out, *_statistics(input, dims, eps, tuple(input.shape[:input.dim() - k]) + (1,) * k))


@declare("native_group_norm")
def native_group_norm(input, weight, bias, N_, C, HxW, group, eps):
    """``(out, mean, rstd)``; the statistics have shape ``(N, group)``."""
    out = N.group_norm(input, group, weight, bias, eps)
    grouped = input.reshape(N_, group, (C // group) * HxW)
    return (out, *_statistics(grouped, (2,), eps, (N_, group), differentiable=True))


@declare("native_batch_norm", out=True)
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``(out, save_mean, save_invstd)``: the batch's statistics per channel in training (the
    running ones updated in place), empty tensors in evaluation, as PyTorch's CPU kernel."""
    dims = (0,) + tuple(range(2, input.dim()))
    if training:
        stats = _statistics(input, dims, eps, (input.shape[1],))
    else:
        stats = (new_empty(input, (0,)), new_empty(input, (0,)))
    out = N.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    return (out, *stats)


@declare("_softmax_backward_data")
def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """The gradient of ``softmax`` at ``output`` for ``grad_output``: in ``grad_output``'s dtype,
    or ``input_dtype`` when that is a half type and the gradient float32 (PyTorch's half-to-float
    softmax)."""
    grad = output * (grad_output - (grad_output * output).sum(dim, keepdim=True))
    if grad.dtype is _dtype.float32 and input_dtype in (_dtype.float16, _dtype.bfloat16):
        return grad.to(input_dtype)
    return grad
