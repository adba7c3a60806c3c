"""Discrete Fourier transforms, as PyTorch's three kernels: complex to complex, real to complex
and complex to real (``FftC2CBackward0``, ``FftR2CBackward0``, ``FftC2RBackward0``).

``sizes`` are the signal lengths along ``dims`` (the input is zero-padded or trimmed to them,
as ``jnp.fft`` does with ``s``); ``norm`` is ``"backward"``, ``"forward"`` or ``"ortho"``.
"""

import jax.numpy as jnp

from .registry import op


@op("fft_c2c", grad_fn="FftC2CBackward0", saves="none")
def fft_c2c(x, *, dims, sizes, norm, forward, dtype):
    x = x.astype(dtype)
    transform = jnp.fft.fftn if forward else jnp.fft.ifftn
    return transform(x, s=sizes, axes=dims, norm=norm)


@op("fft_r2c", grad_fn="FftR2CBackward0", saves="none")
def fft_r2c(x, *, dims, sizes, norm, onesided, dtype):
    x = x.astype(dtype)
    if onesided:
        return jnp.fft.rfftn(x, s=sizes, axes=dims, norm=norm)
    return jnp.fft.fftn(x, s=sizes, axes=dims, norm=norm)


@op("fft_c2r", grad_fn="FftC2RBackward0", saves="none")
def fft_c2r(x, *, dims, sizes, norm, conj_input, dtype):
    """``irfftn``: ``sizes[-1]`` is the length of the real output's last transformed dim."""
    x = x.astype(dtype)
    if conj_input:
        x = jnp.conj(x)
    return jnp.fft.irfftn(x, s=sizes, axes=dims, norm=norm)


@op("fft_r2c_conj", grad_fn="FftC2CBackward0", saves="none")
def fft_r2c_conj(x, *, dims, sizes, norm, dtype):
    """``ihfftn`` over several dims: the conjugate of a one-sided real transform."""
    return jnp.conj(jnp.fft.rfftn(x.astype(dtype), s=sizes, axes=dims, norm=norm))
