"""``torch.amp.GradScaler``: loss scaling for float16 training, skipping steps with inf/NaN grads."""

import warnings
from collections import defaultdict
from enum import Enum

from .. import _dtype
from .._autograd.grad_mode import no_grad
from .._device import gpus as _gpus
from .._tensor import Tensor
from .._api.creation import full

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


_NO_SCALE_FIX = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."


class GradScaler:
    """Multiply the loss by a scale, unscale the gradients before the step, skip a step whose
    gradients are not finite and adapt the scale (``backoff_factor`` after such a step,
    ``growth_factor`` after ``growth_interval`` good ones).

    On ``"cuda"`` without a GPU it warns and is disabled (every method then passes through), as
    in PyTorch.
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not _gpus():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_state)

    def _check_scale_growth_tracker(self, funcname):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + _NO_SCALE_FIX)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + _NO_SCALE_FIX)
        return self._scale, self._growth_tracker

    def _lazy_init(self):
        self._scale = full((), self._init_scale, dtype=_dtype.float32)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=_dtype.int32)

    def scale(self, outputs):
        """``outputs`` (a tensor, or an iterable of them) multiplied by the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init()
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)

        def apply_scale(value):
            if isinstance(value, Tensor):
                if self._scale is None:
                    self._lazy_init()
                return value * self._scale.to(device=value.device)
            if isinstance(value, (list, tuple)):
                return type(value)(apply_scale(v) for v in value)
            if hasattr(value, "__iter__"):
                return map(apply_scale, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype == _dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grad = param.grad
                    if not bool(grad.isfinite().all()):
                        found_inf.fill_(1.0)
                    grad.mul_(inv_scale.to(grad.dtype) if grad.dtype != inv_scale.dtype else inv_scale)
        return {str(self._scale.device): found_inf}

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale in place (once per step), noting infs/NaNs."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = full((), 0.0, dtype=_dtype.float32)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless done), then ``optimizer.step(*args, **kwargs)`` unless a gradient is not
        finite; returns the step's result (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Back off the scale after a skipped step, grow it after ``growth_interval`` good ones (or
        set it to ``new_scale``)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor "
                          "with requires_grad=False.")
                if new_scale.device.type != self._device or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale)
        else:
            found_infs = [f for s in self._per_optimizer_states.values() for f in s["found_inf_per_device"].values()]
            if not found_infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            found = sum(f.item() for f in found_infs)
            with no_grad():
                if found:
                    self._scale.mul_(self._backoff_factor)
                    self._growth_tracker.fill_(0)
                else:
                    tracker = self._growth_tracker.item() + 1
                    if tracker == self._growth_interval:
                        self._scale.mul_(self._growth_factor)
                        tracker = 0
                    self._growth_tracker.fill_(tracker)
        self._per_optimizer_states = defaultdict(_fresh_state)

    def get_scale(self):
        """The current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """``{"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}``
        (empty when disabled)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
