"""``tensorgrad.nn.utils``: gradient clipping, parameter/vector conversion, and weight and spectral
normalization (the hook-based ``weight_norm``/``spectral_norm``, and the parametrizations of
``parametrize``/``parametrizations``)."""

from . import parametrize as parametrize, parametrizations as parametrizations
from .clip_grad import (
    clip_grad_norm_ as clip_grad_norm_, clip_grad_value_ as clip_grad_value_, get_total_norm as get_total_norm,
    clip_grads_with_norm_ as clip_grads_with_norm_,
)
from .convert_parameters import (
    parameters_to_vector as parameters_to_vector, vector_to_parameters as vector_to_parameters,
)
from .spectral_norm import remove_spectral_norm as remove_spectral_norm, spectral_norm as spectral_norm
from .weight_norm import remove_weight_norm as remove_weight_norm, weight_norm as weight_norm
