"""``tensorgrad.testing``: ``assert_close`` with PyTorch's tolerances and messages, and the
gradient checks ``gradcheck`` / ``gradgradcheck`` (also in ``tensorgrad.autograd``).

>>> import tensorgrad as torch
>>> torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.000001]))
"""

import collections.abc
import math

import numpy as np

from ._tensor import Tensor
from .autograd.gradcheck import (
    gradcheck as gradcheck, gradgradcheck as gradgradcheck, GradcheckError as GradcheckError,
)

__all__ = ["assert_close", "gradcheck", "gradgradcheck", "GradcheckError"]

# (rtol, atol) by dtype name, as torch.testing's defaults
_TOLERANCES = {
    "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
    "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7),
}
_NUMBER = (int, float, complex)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close.

    Tensors must agree in shape and (unless ``check_dtype=False``) dtype, and elementwise satisfy
    ``|actual - expected| <= atol + rtol * |expected|``; tolerances default by dtype. Sequences
    and mappings are compared item by item; Python numbers as scalars.
    """
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.")
    _compare(actual, expected, rtol, atol, equal_nan, check_dtype, msg, [])


def _compare(actual, expected, rtol, atol, equal_nan, check_dtype, msg, path):
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        return _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, msg, path)
    if isinstance(actual, _NUMBER) and isinstance(expected, _NUMBER) and not isinstance(actual, bool) | isinstance(
            expected, bool):
        return _compare_scalars(actual, expected, rtol, atol, equal_nan, msg, path)
    if isinstance(actual, bool) and isinstance(expected, bool):
        if actual != expected:
            _raise(f"Booleans mismatch: {actual} is not {expected}", msg, path)
        return None
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            _raise(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", msg, path)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_dtype, msg, path + [i])
        return None
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            _raise(f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                   f"{sorted(set(expected) - set(actual))}\nAdditional keys in the actual mapping: "
                   f"{sorted(set(actual) - set(expected))}", msg, path)
        for key in expected:
            _compare(actual[key], expected[key], rtol, atol, equal_nan, check_dtype, msg, path + [key])
        return None
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _raise(text, msg, path):
    if msg is not None:
        text = msg(text) if callable(msg) else msg
    elif path:
        text += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)
    raise AssertionError(text)


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, msg, path):
    if tuple(actual.shape) != tuple(expected.shape):
        _raise(f"The values for attribute 'shape' do not match: {actual.shape} != {expected.shape}.", msg, path)
    if check_dtype and actual.dtype is not expected.dtype:
        _raise(f"The values for attribute 'dtype' do not match: {actual.dtype} != {expected.dtype}.", msg, path)
    if rtol is None:
        pairs = [_TOLERANCES.get(t.dtype.name, (0.0, 0.0)) for t in (actual, expected)]
        rtol = max(p[0] for p in pairs)
        atol = max(p[1] for p in pairs)
    a = np.asarray(actual.detach()._data)
    e = np.asarray(expected.detach()._data)
    common = np.result_type(a, e)
    a = a.astype(common)
    e = e.astype(common)
    exact = not np.issubdtype(common, np.inexact)
    if exact:
        ok = a == e
    else:
        ok = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if ok.all():
        return None
    if a.size == 1:
        return _scalar_failure(a.reshape(()).item(), e.reshape(()).item(), rtol, atol, exact, msg, path)
    kind = "equal" if exact else "close"
    mismatched = int((~ok).sum())
    total = a.size
    if exact:
        abs_diff = np.abs(a.astype(np.int64) - e.astype(np.int64)) if common != np.bool_ else (a != e).astype(np.int64)
        rel_diff = abs_diff.astype(np.float32) / np.abs(e).astype(np.float32)
    else:
        abs_diff = np.abs(a - e)
        rel_diff = abs_diff / np.abs(e)
    abs_diff = np.where(ok, 0, abs_diff)
    rel_diff = np.where(ok, 0, rel_diff)
    abs_at = np.unravel_index(int(np.argmax(abs_diff)), a.shape)
    rel_at = np.unravel_index(int(np.argmax(rel_diff)), a.shape)
    abs_value = abs_diff[abs_at].item()
    rel_value = rel_diff[rel_at].item()
    lines = [
        f"Tensor-likes are not {kind}!",
        "",
        f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})",
        f"Greatest absolute difference: {abs_value} at index {_index(abs_at)}"
        + ("" if exact else f" (up to {atol} allowed)"),
        f"Greatest relative difference: {rel_value} at index {_index(rel_at)}"
        + ("" if exact else f" (up to {rtol} allowed)"),
    ]
    _raise("\n".join(lines), msg, path)


def _index(at):
    return "(" + ", ".join(str(int(i)) for i in at) + ("," if len(at) == 1 else "") + ")"


def _compare_scalars(actual, expected, rtol, atol, equal_nan, msg, path):
    if rtol is None:
        rtol, atol = (1e-7, 1e-7) if isinstance(actual, (float, complex)) or isinstance(expected, (float, complex)) \
            else (0.0, 0.0)
    if _scalars_close(actual, expected, rtol, atol, equal_nan):
        return None
    exact = isinstance(actual, int) and isinstance(expected, int)
    _scalar_failure(actual, expected, rtol, atol, exact, msg, path)


def _scalars_close(actual, expected, rtol, atol, equal_nan):
    if actual == expected:
        return True
    if equal_nan and _is_nan(actual) and _is_nan(expected):
        return True
    return abs(actual - expected) <= atol + rtol * abs(expected)


def _is_nan(x):
    return isinstance(x, (float, complex)) and (math.isnan(x.real) or math.isnan(x.imag) if isinstance(x, complex)
                                               else math.isnan(x))


def _scalar_failure(actual, expected, rtol, atol, exact, msg, path):
    diff = abs(actual - expected)
    rel = diff / abs(expected) if expected != 0 else (math.inf if diff else 0.0)
    if exact:
        lines = ["Scalars are not equal!", "", f"Expected {expected} but got {actual}.",
                 f"Absolute difference: {diff}", f"Relative difference: {rel}"]
    else:
        lines = ["Scalars are not close!", "", f"Expected {expected} but got {actual}.",
                 f"Absolute difference: {diff} (up to {atol} allowed)",
                 f"Relative difference: {rel} (up to {rtol} allowed)"]
    _raise("\n".join(lines), msg, path)
