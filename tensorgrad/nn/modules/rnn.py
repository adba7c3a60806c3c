"""Recurrent layers (RNN, LSTM, GRU) and their single-step cells.

A layer runs each (layer, direction) as one ``rnn_layer`` op (a compiled ``lax.scan``);
parameter names, shapes, initialization, argument checks and reprs are PyTorch's.
PackedSequence inputs are not supported.
"""

import math
import numbers
import warnings

from ..._api.creation import zeros
from ..._api.joining import cat, stack
from ..._ops import rnn as _rnn
from ..._tensor import apply
from .. import functional as F
from .. import init
from ._factory import new_param, optional_param
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _reset_uniform(module):
    """PyTorch's initialisation of recurrent layers and cells: every parameter uniform in
    ``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


class RNNBase(Module):
    """Shared construction and running of the multi-layer recurrent layers."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout) if isinstance(dropout, numbers.Number) and not isinstance(dropout, bool) \
            else dropout
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        for name, value in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(value, int):
                raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        out_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else out_size * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, out_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, new_param(*shape, device=device, dtype=dtype))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op (there is no cuDNN weight buffer to compact)."""

    def reset_parameters(self):
        _reset_uniform(self)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    # ------------------------------------------------------------------ checks
    def _check_input(self, input):
        weight = self._flat_weights[0]
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). Convert "
                             f"input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def _expected_hidden(self, input, size):
        batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    @staticmethod
    def _check_hidden(hx, expected, message="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected:
            raise RuntimeError(message.format(expected, list(hx.size())))

    # ------------------------------------------------------------------ running
    def _run(self, input, h0, c0):
        """All layers over a batched input: ``(output, h_n, c_n or None)``."""
        x = input.transpose(0, 1) if self.batch_first else input
        directions = 2 if self.bidirectional else 1
        per_layer = 4 if self.bias else 2
        if self.proj_size > 0:
            per_layer += 1
        weights = self._flat_weights
        h_last = []
        c_last = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                w = weights[k * per_layer:(k + 1) * per_layer]
                w_ih, w_hh = w[0], w[1]
                b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
                w_hr = w[-1] if self.proj_size > 0 else None
                c = c0[k] if c0 is not None else None
                result = apply(_rnn.rnn_layer, (x, h0[k], c, w_ih, w_hh, b_ih, b_hh, w_hr),
                               (self.mode, direction == 1))
                outputs.append(result[0])
                h_last.append(result[1])
                if c0 is not None:
                    c_last.append(result[2])
            x = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        output = x.transpose(0, 1) if self.batch_first else x
        return output, stack(h_last, 0), (stack(c_last, 0) if c0 is not None else None)


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu).

    Returns ``(output, h_n)``: every step's top-layer hidden state and every layer's last one.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    _dims_error = "RNN: Expected input to be 2D or 3D, got {}D tensor instead"

    def forward(self, input, hx=None):
        if input.dim() not in (2, 3):
            raise ValueError(self._dims_error.format(input.dim()))
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        expected = self._expected_hidden(input, self.hidden_size)
        if hx is None:
            hx = zeros(expected, dtype=input.dtype)
        self._check_input(input)
        self._check_hidden(hx, expected)
        output, h_n, _ = self._run(input, hx, None)
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            h_n = h_n.squeeze(1)
        return output, h_n


class GRU(RNN):
    """Gated recurrent unit layer (reset gate, update gate, candidate state)."""

    _dims_error = "GRU: Expected input to be 2D or 3D, got {}D input instead"

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        RNNBase.__init__(self, "GRU", *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory layer; ``proj_size > 0`` projects each hidden state.

    Returns ``(output, (h_n, c_n))``.
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        h_shape = self._expected_hidden(input, out_size)
        c_shape = self._expected_hidden(input, self.hidden_size)
        if hx is None:
            hx = (zeros(h_shape, dtype=input.dtype), zeros(c_shape, dtype=input.dtype))
        elif batched:
            if hx[0].dim() != 3 or hx[1].dim() != 3:
                raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        else:
            if hx[0].dim() != 2 or hx[1].dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self._check_input(input)
        self._check_hidden(hx[0], h_shape, "Expected hidden[0] size {}, got {}")
        self._check_hidden(hx[1], c_shape, "Expected hidden[1] size {}, got {}")
        output, h_n, c_n = self._run(input, hx[0], hx[1])
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            h_n = h_n.squeeze(1)
            c_n = c_n.squeeze(1)
        return output, (h_n, c_n)


# ---------------------------------------------------------------------------- cells

class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = new_param(num_chunks * hidden_size, input_size, device=device, dtype=dtype)
        self.weight_hh = new_param(num_chunks * hidden_size, hidden_size, device=device, dtype=dtype)
        optional_param(self, "bias_ih", bias, num_chunks * hidden_size, device=device, dtype=dtype)
        optional_param(self, "bias_hh", bias, num_chunks * hidden_size, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_uniform(self)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.__dict__.get("bias", True) is not True:
            text += f", bias={self.bias}"
        if self.__dict__.get("nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def _batched(self, input, name):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(-1)} expected {self.input_size}")
        return input.dim() == 2

    def _single_state(self, input, hx, name):
        """Check and batch ``input`` and its one state ``hx`` (zeros when None)."""
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        batched = self._batched(input, name)
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not batched:
            hx = hx.unsqueeze(0)
        return input, hx, batched

    def _gates(self, input, hx):
        return F.linear(input, self.weight_ih, self.bias_ih), F.linear(hx, self.weight_hh, self.bias_hh)


class RNNCell(RNNCellBase):
    """One Elman RNN step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, batched = self._single_state(input, hx, "RNNCell")
        gx, gh = self._gates(input, hx)
        if self.nonlinearity == "tanh":
            out = (gx + gh).tanh()
        elif self.nonlinearity == "relu":
            out = (gx + gh).relu()
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        batched = self._batched(input, "LSTMCell")
        if hx is not None:
            for i, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{i}] to be 1D or 2D, got {value.dim()}D instead")
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            state = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (state, state)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        gx, gh = self._gates(input, hx[0])
        i, f, g, o = (gx + gh).chunk(4, 1)
        c = f.sigmoid() * hx[1] + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._single_state(input, hx, "GRUCell")
        gx, gh = self._gates(input, hx)
        x_r, x_z, x_n = gx.chunk(3, 1)
        h_r, h_z, h_n = gh.chunk(3, 1)
        r = (x_r + h_r).sigmoid()
        z = (x_z + h_z).sigmoid()
        n = (x_n + r * h_n).tanh()
        out = (hx - n) * z + n
        return out if batched else out.squeeze(0)
