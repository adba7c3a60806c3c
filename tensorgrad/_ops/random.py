"""Random ops that carry a derivative: draws whose value depends differentiably on a parameter
(the key is an input array, never differentiated, so that each draw reuses one compiled kernel).
"""

import jax
import jax.numpy as jnp

from .registry import op


@op("standard_gamma", grad_fn="StandardGammaBackward0", no_slot=(1,), saves={"alpha": "alpha"})
def standard_gamma(alpha, key, *, shape):
    """Gamma(alpha, 1) draws of ``shape`` (``alpha`` broadcast to it); the derivative with respect
    to ``alpha`` is JAX's implicit reparameterization, PyTorch's ``_standard_gamma_grad``."""
    return jax.random.gamma(key, jnp.broadcast_to(alpha, shape), shape, alpha.dtype)
