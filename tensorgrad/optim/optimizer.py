"""The Optimizer base class: parameter groups, per-parameter state, state dicts and hooks.

Subclasses implement their update rule as ``_update_param(p, grad, state, group)``, which moves
one parameter in place, and say what state a parameter starts with in ``_init_state(p, group)``;
``_update(group)`` runs the rule for each parameter of ``group`` that has a gradient (an optimizer
whose state is not per parameter from the first step, such as SGD, overrides ``_update`` instead).
``step`` runs ``_update`` under ``no_grad`` for every group, after evaluating the optional closure
with grad enabled. The in-place updates follow PyTorch's single-tensor (CPU) algorithms operation
by operation, so results agree with PyTorch's to float rounding. A complex parameter is updated
through its real view, its gradient and state too (``real_views``), as PyTorch's are: each real
and imaginary part is a coordinate of its own.
"""

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

import jax
import numpy as np

from .. import _dtype
from .._autograd.grad_mode import enable_grad, no_grad
from .._hooks import OPTIMIZER_STEP, RemovableHandle
from .._tensor import Tensor
from .._typename import typename
from .._api.complex import view_as_real
from .._api.creation import tensor as _tensor, zeros_like
from ._fused import step_group


class _Required:
    """The marker for a hyperparameter that has no default (``optim.optimizer.required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _Required()


# ---------------------------------------------------------------- in-place update helpers
# Tensor.add_(x, alpha=a) and Tensor.addcdiv_(..., value=v) take their number as part of the
# compiled kernel's key, so a number that changes every step (a scheduled learning rate, a bias
# correction) would compile a new kernel each step. These pass it as an operand instead, in
# PyTorch's order of operations (the number is rounded to the tensor's dtype first, as there).

def addcdiv_(t, a, b, value=1.0):
    """``t += value * a / b``."""
    return t.add_(a.mul(value).div(b))


def axpy_(t, x, alpha):
    """``t += alpha * x``, as PyTorch's optimizers write it (``add_(x, alpha=...)``: one kernel)."""
    return t.add_(x, alpha=alpha)


def check_nonnegative(**values):
    """PyTorch's ``ValueError("Invalid learning rate: -1")`` for the first negative hyperparameter
    (the keyword names the message: ``lr``, ``eps`` or the argument's own name)."""
    for name, value in values.items():
        if not 0.0 <= value:
            label = {"lr": "learning rate", "eps": "epsilon value"}.get(name, f"{name} value")
            raise ValueError(f"Invalid {label}: {value}")


def check_implementation_flags(optimizer):
    """Check ``optimizer``'s defaults for the flags that choose how PyTorch runs a step.

    ``foreach`` and ``fused`` only pick an implementation that gives the same updates, so
    tensorgrad's one implementation serves them all (their invalid combinations raise PyTorch's
    errors); ``capturable`` (CUDA-graph capture) and ``differentiable`` (recording the step for
    autograd) change what a step does and are not supported, so they raise rather than being
    ignored."""
    name = type(optimizer).__name__
    flags = optimizer.defaults
    foreach, fused = flags.get("foreach"), flags.get("fused")
    capturable, differentiable = flags.get("capturable"), flags.get("differentiable")
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if capturable:
        raise NotImplementedError(
            f"{name}(capturable=True) is not supported: tensorgrad has no CUDA-graph capture. Leave "
            "capturable=False (tensorgrad.compile traces a whole training step instead).")
    if differentiable:
        raise NotImplementedError(
            f"{name}(differentiable=True) is not supported: tensorgrad's optimizers update parameters outside "
            "autograd. Write the update as a function of the parameters (tensorgrad.func) to differentiate it.")


def value_of(t):
    """A state counter's value for the update's arithmetic: a Python number when run eagerly
    (PyTorch's single-tensor CPU path does its scalar math in double precision); while
    ``tensorgrad.compile`` traces the step, a float64 tensor, so that the count stays in the
    compiled program instead of being frozen into it."""
    if isinstance(t._cell.value, jax.core.Tracer):
        return t.double()
    return t.item()


def step_tensor():
    """The float32 step counter PyTorch keeps in each parameter's state."""
    return _tensor(0.0, dtype=_dtype.float32)


def new_state(p, *buffers):
    """A parameter's first state: the ``step`` counter, then a zero tensor like ``p`` for each name
    in ``buffers`` (in that order, which is PyTorch's order in the state dict)."""
    state = {"step": step_tensor()}
    for name in buffers:
        state[name] = zeros_like(p)
    return state


def real_views(p, *tensors):
    """``(p, *tensors)`` as the update rule sees them: for a complex ``p``, each (``p`` itself, its
    gradient, its state tensors) as its real view (``view_as_real``, a last dimension of 2 holding
    the real and imaginary parts), as PyTorch's single-tensor updates do, so that a moment of the
    gradient is kept per part (Adam's ``exp_avg_sq`` of ``0.1+2j`` is ``(0.01, 4)``, not the complex
    square); in-place updates of the views write the complex tensors. A real ``p``'s as they are."""
    if not p.is_complex():
        return (p, *tensors)
    return tuple(view_as_real(t) for t in (p, *tensors))


def apply_weight_decay(p, grad, group, *, decoupled=False):
    """The gradient with ``group["weight_decay"]`` applied: ``grad + weight_decay * p`` (L2), or with
    ``decoupled=True`` (AdamW's rule) ``grad`` itself, after scaling ``p`` in place by
    ``1 - lr * weight_decay``."""
    weight_decay = group["weight_decay"]
    if weight_decay == 0:
        return grad
    if decoupled:
        p.mul_(1 - group["lr"] * weight_decay)
        return grad
    return grad.add(p, alpha=weight_decay)


def _hooked(step):
    """Wrap an optimizer's ``step`` to run the step hooks and to note that it was called
    (learning-rate schedulers warn when they step before the optimizer)."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        self._opt_called = True
        out = step(self, *args, **kwargs)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out
    wrapper._hooked = True
    return wrapper


class Optimizer:
    """Base class of the optimizers.

    Arguments:
      params: an iterable of Tensors, of ``(name, Tensor)`` pairs, or of dicts that define
        parameter groups (each with a ``"params"`` entry and optional hyperparameters).
      defaults: the hyperparameters a group takes when it does not set them.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        # as PyTorch's: the hooks are not pickled, so an unpickled optimizer starts without them
        for name in ("step_pre", "step_post", "state_dict_pre", "state_dict_post", "load_state_dict_pre",
                     "load_state_dict_post"):
            self.__dict__.setdefault(f"_optimizer_{name}_hooks", OrderedDict())
        # groups saved by an older version may lack newer hyperparameters
        for group in self.param_groups:
            for key, value in self.defaults.items():
                if value is not required:
                    group.setdefault(key, value)

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group):
        """Add a group of parameters (a dict with ``"params"`` and optional hyperparameters)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        tensors = []
        names = []
        for param in params:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        if names and len(names) != len(tensors):
            raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
            if param.dtype.kind < _dtype.FLOAT:
                raise TypeError(f"optimizer can only optimize floating point or complex Tensors, but one of the "
                                f"params has dtype {param.dtype}")
        param_group["params"] = tensors
        if names:
            param_group["param_names"] = names
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. cannot add param "
                                 f"group {which} to the optimizer")
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ stepping
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors (to None by default)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _hooked(step)

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns the closure's loss, if given.

        The closure (which re-evaluates the model and returns the loss) runs with grad enabled;
        the updates run under ``no_grad``.
        """
        if OPTIMIZER_STEP.listeners:
            OPTIMIZER_STEP(self)    # tensorgrad.compile guards the hyperparameters of a compiled step
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for index, group in enumerate(self.param_groups):
                if not step_group(self, index, group):
                    self._update(group)
                    self.__dict__["_fused"]["eager"] = True     # its kernels are compiled
        return loss

    def _update(self, group):
        """Update each parameter of ``group`` that has a gradient, creating its state first if it
        has none."""
        for p, grad in self._with_grads(group):
            state = self.state[p]
            if not state:
                state.update(self._init_state(p, group))
            self._update_param(p, grad, state, group)

    def _init_state(self, p, group):
        """The state ``p`` starts with, as a dict (none by default)."""
        return {}

    def _update_param(self, p, grad, state, group):
        """The update rule: move ``p`` in place given its gradient (already negated with
        ``maximize``), its state (updated in place) and its group's hyperparameters."""
        raise NotImplementedError

    def _with_grads(self, group):
        """``(param, grad)`` for the parameters of ``group`` that have a gradient (negated with
        ``maximize``)."""
        out = []
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            out.append((p, grad.neg() if group.get("maximize") else grad))
        return out

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs before each step; it may return new ``(args, kwargs)``."""
        return RemovableHandle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs after each step."""
        return RemovableHandle(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return self._hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return self._hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return self._hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return self._hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    @staticmethod
    def _hook(hooks, hook, prepend):
        handle = RemovableHandle(hooks, hook)
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    # ------------------------------------------------------------------ state dicts
    def state_dict(self):
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``.

        Parameters are replaced by their position across all groups; the state tensors are
        the optimizer's own (not copies), as in PyTorch.
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                if id(p) not in index:
                    index[id(p)] = len(index)
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        result = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            out = hook(self, result)
            if out is not None:
                result = out
        return result

    def load_state_dict(self, state_dict):
        """Load a ``state_dict()`` result; floating point state tensors take each parameter's dtype.

        Raises ValueError, changing nothing, when the groups do not match this optimizer's.
        """
        state_dict = dict(state_dict)
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            out = hook(self, state_dict)
            if out is not None:
                state_dict = out
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
        params_by_index = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                                   chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in params_by_index:
                param = params_by_index[key]
                state[param] = _cast_state(param, value)
            else:
                state[key] = value
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)


def _cast_state(param, value, key=None):
    """A loaded state value converted to ``param``'s dtype (the ``step`` counter is kept as is);
    numpy arrays (a PyTorch state converted with ``.numpy()``) become tensors."""
    if isinstance(value, (np.ndarray, np.generic)):
        value = _tensor(np.require(value, requirements="C"))
    if isinstance(value, Tensor):
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value


Optimizer.step = _hooked(Optimizer.step)
