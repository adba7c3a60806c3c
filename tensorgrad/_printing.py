"""Tensor ``repr`` text, matching what PyTorch prints character for character.

This module is pure Python + NumPy and knows nothing about tensors: the caller
hands over a NumPy array with the values, the torch dtype name and the extra
suffixes (``grad_fn=<...>`` / ``requires_grad=True``), and gets back the text
``repr(t)`` would show.  The module-level print options mirror
``torch.set_printoptions`` and are the only global state.
"""

import contextlib
import math

import numpy as np

__all__ = ["format_tensor", "set_printoptions", "get_printoptions", "printoptions", "TensorType"]


class TensorType(type):
    """The metaclass of Tensor (PyTorch's is ``torch._C._TensorMeta``): tensorgrad's tensor
    classes print as PyTorch's (``<class 'torch.Tensor'>``, ``<class
    'torch.nn.parameter.Parameter'>``), other subclasses as Python prints them. Only the repr
    changes: ``__module__`` and ``__qualname__`` stay tensorgrad's, so pickling the class (by
    reference), doctest collection and ``isinstance`` are as before, and nothing names the real
    ``torch`` module.
    """

    def __repr__(cls):
        module = cls.__module__
        if module == "tensorgrad._tensor.tensor":
            return f"<class 'torch.{cls.__qualname__}'>"
        if module.startswith("tensorgrad."):
            return f"<class 'torch.{module[len('tensorgrad.'):]}.{cls.__qualname__}'>"
        return type.__repr__(cls)

_PREFIX = "tensor("
_FLOAT_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64"})
_COMPLEX_DTYPES = frozenset({"complex64", "complex128"})
_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

# Key order matters: get_printoptions() must list the keys in torch's order.
_options = {**_PROFILES["default"], "sci_mode": None}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set the print options with ``torch.set_printoptions`` semantics.

    A known profile ("default", "short", "full") is applied first and explicit
    options override it; unknown profiles are ignored, as in torch.  Like torch,
    every call sets ``sci_mode`` to the value passed, so omitting it resets it
    to None (automatic).
    """
    if profile in _PROFILES:
        _options.update(_PROFILES[profile])
    given = {"precision": precision, "threshold": threshold,
             "edgeitems": edgeitems, "linewidth": linewidth}
    _options.update({key: value for key, value in given.items() if value is not None})
    _options["sci_mode"] = sci_mode


def get_printoptions():
    """Return a copy of the current print options as a dict."""
    return dict(_options)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Temporarily apply ``set_printoptions(**kwargs)``, restoring the old options on exit."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _IntFormat:
    """Formats integer and bool elements: ``str(value)`` right-aligned to the widest shown."""

    def __init__(self, shown):
        self.width = max([1] + [len(str(v)) for v in shown.tolist()])

    def __call__(self, value):
        return str(value).rjust(self.width)


class _FloatFormat:
    """Chooses one number style (int, fixed or sci) for all elements of a real float tensor."""

    def __init__(self, shown):
        precision = _options["precision"]
        finite = shown[np.isfinite(shown) & (shown != 0)]
        # Torch's defaults when nothing finite and non-zero is shown: integer
        # style, width 1, and no sci even if sci_mode=True is forced.
        self.int_mode, self.sci_mode, self.width = True, False, 1
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        # Python floats, so an overflowing ratio becomes inf without a NumPy warning.
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(np.ceil(finite) == finite))
        forced = _options["sci_mode"]
        if forced is None:
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        else:
            self.sci_mode = bool(forced)
        values = finite.tolist()
        if self.sci_mode:
            lengths = [len(f"{v:.{precision}e}") for v in values]
        elif self.int_mode:
            lengths = [len(f"{v:.0f}") + 1 for v in values]  # +1 for the trailing "."
        else:
            lengths = [len(f"{v:.{precision}f}") for v in values]
        self.width = max([1] + lengths)

    def __call__(self, value):
        precision = _options["precision"]
        if self.sci_mode:
            text = f"{value:.{precision}e}"
        elif self.int_mode:
            # The dot marks a float dtype; nan and inf are left bare.
            text = f"{value:.0f}" + ("." if math.isfinite(value) else "")
        else:
            text = f"{value:.{precision}f}"
        return text.rjust(self.width)


class _ComplexFormat:
    """Formats complex elements as ``real+imagj``, each part with its own float format."""

    def __init__(self, shown):
        self.real = _FloatFormat(shown.real)
        self.imag = _FloatFormat(shown.imag)
        self.width = self.real.width + self.imag.width + 1  # +1 for the "j"

    def __call__(self, value):
        imag = (self.imag(value.imag) + "j").lstrip()
        # A sign already separates the parts (this covers -0. too); otherwise add "+".
        sign = "" if imag[0] in "+-" else "+"
        return self.real(value.real) + sign + imag


def _shown_indices(size, summarize):
    """Return the indices along one dimension that are printed (edges only when summarized)."""
    edge = _options["edgeitems"]
    if summarize and size > 2 * edge:
        return list(range(edge)) + list(range(size - edge, size))
    return list(range(size))


def _shown_values(values, summarize):
    """Return the flat array of elements that appear in the output; only these choose the format."""
    if summarize and values.ndim > 0 and not _options["edgeitems"]:
        # Nothing but "..." is printed, so the format is never used.
        return values.reshape(-1)[:0]
    grid = np.ix_(*[_shown_indices(n, summarize) for n in values.shape])
    return values[grid].reshape(-1)


def _format_vector(values, indent, summarize, fmt):
    """Format a 1-D array as ``[a, b, ...]``, wrapping to the line width."""
    edge = _options["edgeitems"]
    per_line = max(1, math.floor((_options["linewidth"] - indent) / (fmt.width + 2)))
    if summarize and not edge:
        items = ["..."]
    elif summarize and len(values) > 2 * edge:
        items = ([fmt(v) for v in values[:edge].tolist()] + [" ..."]
                 + [fmt(v) for v in values[-edge:].tolist()])
    else:
        items = [fmt(v) for v in values.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _format_nested(values, indent, summarize, fmt):
    """Format an array of any rank recursively; sub-blocks are separated by ndim-1 newlines."""
    if values.ndim == 0:
        return fmt(values.item())
    if values.ndim == 1:
        return _format_vector(values, indent, summarize, fmt)
    edge = _options["edgeitems"]
    size = values.shape[0]
    if summarize and size > 2 * edge:
        rows = ([_format_nested(values[i], indent + 1, summarize, fmt) for i in range(edge)]
                + ["..."]
                + [_format_nested(values[i], indent + 1, summarize, fmt)
                   for i in range(size - edge, size)])
    else:
        rows = [_format_nested(row, indent + 1, summarize, fmt) for row in values]
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def _as_number_array(values, dtype_name):
    """Return the values as the NumPy type the formatter expects for this dtype, plus its formatter class."""
    values = np.asarray(values)
    if dtype_name in _COMPLEX_DTYPES:
        return values.astype(np.complex128), _ComplexFormat
    if dtype_name in _FLOAT_DTYPES:
        # Widening to float64 is exact, and torch formats each element's exact double value.
        return values.astype(np.float64), _FloatFormat
    if dtype_name == "bool":
        return values.astype(bool), _IntFormat
    # Every integer dtype torch prints fits in int64; this also turns float input into ints.
    return values.astype(np.int64), _IntFormat


def _size_and_dtype_suffixes(shape, empty, dtype_name, default_float_name):
    """Return the ``size=`` and ``dtype=`` suffixes torch adds for this shape and dtype."""
    suffixes = []
    # Empty tensors show their size unless 1-D; with edgeitems=0 every tensor does.
    if (empty and len(shape) != 1) or (not empty and not _options["edgeitems"]):
        suffixes.append(f"size={tuple(shape)}")
    if empty:
        # No elements to hint at the dtype, so anything but the default float is named.
        implied = {default_float_name}
    else:
        default_complex = "complex128" if default_float_name == "float64" else "complex64"
        implied = {default_float_name, default_complex, "int64", "bool"}
    if dtype_name not in implied:
        suffixes.append(f"dtype=torch.{dtype_name}")
    return suffixes


def _append_suffixes(text, suffixes):
    """Append suffixes after the data, each moving to its own line when it would pass the line width."""
    linewidth = _options["linewidth"]
    # Torch's running length is the last line's length plus 2 (counting the ", ").
    line_length = len(text) - text.rfind("\n") + 1
    parts = [text]
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * len(_PREFIX) + suffix)
            line_length = len(_PREFIX) + len(suffix)
        else:
            parts.append(", " + suffix)
            line_length += len(suffix) + 2
    return "".join(parts) + ")"


def format_tensor(values, *, dtype_name, default_float_name="float32", suffixes=()):
    """Return the text ``repr(t)`` prints in torch for a CPU tensor with these values.

    ``values`` holds the elements (float16/bfloat16 already widened to a NumPy
    float type), ``dtype_name`` is the torch dtype without ``torch.``,
    ``default_float_name`` the current default float dtype, and ``suffixes``
    extra entries such as ``"grad_fn=<MulBackward0>"`` or ``"requires_grad=True"``.
    """
    values, format_class = _as_number_array(values, dtype_name)
    empty = values.size == 0
    if empty:
        body = "[]"
    else:
        summarize = values.size > _options["threshold"]
        fmt = format_class(_shown_values(values, summarize))
        body = _format_nested(values, len(_PREFIX), summarize, fmt)
    extra = _size_and_dtype_suffixes(values.shape, empty, dtype_name, default_float_name)
    return _append_suffixes(_PREFIX + body, extra + list(suffixes))


def format_meta(shape, *, dtype_name, default_float_name="float32", suffixes=()):
    """Return ``repr(t)`` of a meta tensor (no values): ``tensor(..., device='meta', size=(2, 3))``,
    the dtype named unless it is the default float one."""
    extra = ["device='meta'", f"size={tuple(shape)}"]
    if dtype_name != default_float_name:
        extra.append(f"dtype=torch.{dtype_name}")
    return _append_suffixes(_PREFIX + "...", extra + list(suffixes))
