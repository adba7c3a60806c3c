"""Discrete Fourier transforms, as PyTorch's three kernels: complex to complex, real to complex
and complex to real (``FftC2CBackward0``, ``FftR2CBackward0``, ``FftC2RBackward0``).

``sizes`` are the signal lengths along ``dims`` (the input is zero-padded or trimmed to them,
as ``jnp.fft`` does with ``s``); ``norm`` is ``"backward"``, ``"forward"`` or ``"ortho"``.
``istft`` is one op over them: the inverse transforms of a spectrogram's frames, overlap-added.
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


def _overlap_add(frames, length, step):
    """Frame ``t`` of ``frames`` ``(..., n, size)`` added into a last dim of ``length`` at ``t * step``
    (``unfold``'s adjoint). A gather, not a scatter: each output block of ``step`` samples sums
    the ``r`` frame pieces that cover it, in a fixed order (a scatter-add's order is not fixed on a GPU)."""
    n, size = frames.shape[-2:]
    r = -(-size // step)
    lead = frames.shape[:-2]
    pieces = jnp.pad(frames, [(0, 0)] * len(lead) + [(r - 1, r - 1), (0, r * step - size)])
    pieces = pieces.reshape(lead + (n + 2 * r - 2, r, step))
    blocks, parts = jnp.arange(n + r - 1)[:, None], jnp.arange(r)[None, :]
    gathered = pieces[..., blocks - parts + r - 1, parts, :]          # rows past either end are 0
    if r > 32:
        summed = gathered.sum(-2)
    else:       # PyTorch's order: the frames from first to last, so the pieces from last to first
        summed = gathered[..., r - 1, :]
        for j in range(r - 2, -1, -1):
            summed = summed + gathered[..., j, :]
    return summed.reshape(lead + ((n + r - 1) * step,))[..., :length]


# PyTorch's istft is a composite whose last node, for a batched input, is the division by the
# window envelope; the squeeze of an unbatched input and the zero padding of ``length`` are
# separate ops (``SqueezeBackward1``, ``ConstantPadNdBackward0``), as there.
@op("istft", grad_fn="DivBackward0", saves={"window": "any"})
def istft(spec, window, *, n_fft, hop, pad, norm, two_sided, return_complex, bounds, dtype, square_dtype):
    """``spec`` ``(channel, freq, frames)`` (or ``(freq, frames)``: one channel) to ``(channel,
    samples)``: each frame's inverse transform (``irfft`` of the first ``n_fft // 2 + 1`` bins,
    or ``ifft`` with ``return_complex``) times the window (zero-padded by ``pad`` to ``n_fft``),
    overlap-added ``hop`` apart, cut to ``bounds`` and divided by the overlap-added squared
    window. ``dtype``: the product's (PyTorch's promotion of the frames' and the window's);
    ``square_dtype``: ``window ** 2``'s (int64 for a bool window), in which the envelope is summed."""
    frames = jnp.swapaxes(spec.reshape((-1,) + spec.shape[-2:]), -1, -2)
    if return_complex:
        frames = jnp.fft.ifft(frames, axis=-1, norm=norm)
    else:
        if two_sided:
            frames = frames[..., :n_fft // 2 + 1]
        frames = jnp.fft.irfft(frames, n=n_fft, axis=-1, norm=norm)
    window = jnp.pad(window, pad)
    n = frames.shape[-2]
    length = n_fft + hop * (n - 1)
    y = _overlap_add(frames.astype(dtype) * window.astype(dtype), length, hop)
    square = window.astype(square_dtype) * window.astype(square_dtype)
    envelope = _overlap_add(jnp.broadcast_to(square, (n, n_fft)), length, hop)
    lo, hi = bounds
    return y[..., lo:hi] / envelope[lo:hi].astype(dtype)
