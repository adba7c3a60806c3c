"""Anomaly detection: find the forward op whose backward failed or produced NaN.

While it is on, every recorded op keeps the Python stack of its forward call. When a node's
backward raises (or returns NaN, with ``check_nan``), a warning names the node and shows that
stack, then the error propagates, as in PyTorch.
"""

import functools
import warnings

from .._autograd.grad_mode import STATE

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled():
    return STATE.anomaly


def is_anomaly_check_nan_enabled():
    return STATE.anomaly_check_nan


class detect_anomaly:
    """Context manager (or decorator) that turns anomaly detection on for its body.

    >>> import warnings
    >>> import tensorgrad as torch
    >>> x = torch.tensor([0., 1.], requires_grad=True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with torch.autograd.detect_anomaly():
    ...         try:
    ...             (torch.sqrt(x) * 0).sum().backward()
    ...         except RuntimeError as e:
    ...             print(e)
    Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan=True):
        self.check_nan = bool(check_nan)
        self.prev = []
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
            "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev.append((STATE.anomaly, STATE.anomaly_check_nan))
        STATE.anomaly = True
        STATE.anomaly_check_nan = self.check_nan

    def __exit__(self, *exc):
        STATE.anomaly, STATE.anomaly_check_nan = self.prev.pop()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Set anomaly detection on or off at once; as a context manager, restore it on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = (STATE.anomaly, STATE.anomaly_check_nan)
        STATE.anomaly = bool(mode)
        STATE.anomaly_check_nan = bool(check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        STATE.anomaly, STATE.anomaly_check_nan = self.prev
        return False
