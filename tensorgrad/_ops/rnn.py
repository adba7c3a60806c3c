"""Recurrent layers as ops: one layer in one direction over a whole sequence, as a ``lax.scan``.

The input projection of every time step is one matrix product before the scan; the scan
carries the hidden state (and an LSTM's cell state). Its derivative is JAX's (the scan's own
reverse scan), so a sequence costs one compiled kernel forward and one backward instead of a
graph node per step.
"""

import jax
import jax.numpy as jnp
from jax import lax

from .registry import op


def _affine(x, w, b):
    out = jnp.matmul(x, w.T)
    return out if b is None else out + b


def _lstm_step(w_hh, b_hh, w_hr):
    def step(carry, gates_x):
        h, c = carry
        i, f, g, o = jnp.split(gates_x + _affine(h, w_hh, b_hh), 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        if w_hr is not None:
            h = jnp.matmul(h, w_hr.T)
        return (h, c), h
    return step


def _gru_step(w_hh, b_hh):
    def step(h, gates_x):
        x_r, x_z, x_n = jnp.split(gates_x, 3, axis=-1)
        h_r, h_z, h_n = jnp.split(_affine(h, w_hh, b_hh), 3, axis=-1)
        r = jax.nn.sigmoid(x_r + h_r)
        z = jax.nn.sigmoid(x_z + h_z)
        n = jnp.tanh(x_n + r * h_n)
        h = n + z * (h - n)
        return h, h
    return step


def _elman_step(w_hh, b_hh, activation):
    def step(h, gates_x):
        h = activation(gates_x + _affine(h, w_hh, b_hh))
        return h, h
    return step


@op("rnn_layer", grad_fn="StackBackward0", scalar_slots=False)
def rnn_layer(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, *, mode, reverse):
    """One recurrent layer over a time-major sequence ``x`` of shape ``(L, N, H_in)``.

    ``mode`` is ``"LSTM"``, ``"GRU"``, ``"RNN_TANH"`` or ``"RNN_RELU"``; ``reverse`` runs from
    the last step to the first (outputs stay in time order). Absent biases, ``c0`` (not an
    LSTM) and ``w_hr`` (no projection) are None. Returns ``(outputs, h_last)`` and, for an
    LSTM, ``c_last`` too.
    """
    gates_x = _affine(x, w_ih, b_ih)
    if mode == "LSTM":
        (h, c), ys = lax.scan(_lstm_step(w_hh, b_hh, w_hr), (h0, c0), gates_x, reverse=reverse)
        return ys, h, c
    if mode == "GRU":
        step = _gru_step(w_hh, b_hh)
    else:
        step = _elman_step(w_hh, b_hh, jnp.tanh if mode == "RNN_TANH" else jax.nn.relu)
    h, ys = lax.scan(step, h0, gates_x, reverse=reverse)
    return ys, h


rnn_layer.saves_residuals = True     # its backward runs the reverse scan alone (``forward_saving``)
