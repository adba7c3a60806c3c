"""``tensorgrad.autograd``: backward, grad, grad modes and graph nodes."""

from .._autograd.grad_mode import (
    no_grad as no_grad,
    enable_grad as enable_grad,
    set_grad_enabled as set_grad_enabled,
    inference_mode as inference_mode,
)
from . import graph as graph
from .backward import backward as backward, grad as grad
from . import function as function
from .function import Function as Function, once_differentiable as once_differentiable
from . import anomaly_mode as anomaly_mode
from . import functional as functional
from .gradcheck import gradcheck as gradcheck, gradgradcheck as gradgradcheck
from .variable import Variable as Variable
from .anomaly_mode import detect_anomaly as detect_anomaly, set_detect_anomaly as set_detect_anomaly
