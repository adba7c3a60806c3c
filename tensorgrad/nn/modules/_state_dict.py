"""Saving and loading a Module's parameters and buffers: ``state_dict`` and ``load_state_dict``.

Key names, the ``_metadata`` versions, the missing/unexpected-key report and the error text are
PyTorch's. Loading checks every entry before it writes any, so a failed load changes nothing.
"""

from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import numpy as np

from ..._autograd.grad_mode import no_grad
from ..._hooks import RemovableHandle
from ..._tensor import Tensor
from ..._api.creation import tensor as _tensor_from
from ..parameter import Parameter


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the missing and unexpected keys."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _tensor_like(value):
    return isinstance(value, (Tensor, np.ndarray)) or (hasattr(value, "__array__") and hasattr(value, "shape"))


def _as_tensor(value):
    """A checkpoint value as a Tensor (numpy arrays and other array-likes are converted)."""
    if isinstance(value, Tensor):
        return value
    arr = value.detach().numpy() if hasattr(value, "detach") else np.asarray(value)
    return _tensor_from(np.require(arr, requirements="C"))


class StateDictMixin:
    """The state-dict half of Module (Module inherits it)."""

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not StateDictMixin.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer, keyed by dotted name.

        Values are detached tensors sharing storage with the module's (``keep_vars=True``
        keeps the Parameters themselves).
        """
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        metadata = getattr(destination, "_metadata", None)
        for name, module in self.named_modules(remove_duplicate=False):
            module_prefix = prefix + (name + "." if name else "")
            if metadata is not None:
                metadata[module_prefix[:-1]] = {"version": module._version}
            module._save_to_state_dict(destination, module_prefix, keep_vars)
            for hook in module._state_dict_hooks.values():
                result = hook(module, destination, module_prefix, {"version": module._version})
                if result is not None:
                    destination = result
        return destination

    def get_extra_state(self):
        raise RuntimeError(
            "Reached a code path in StateDictMixin.get_extra_state() that should never be called. Please file an issue "
            "at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError(
            "Reached a code path in StateDictMixin.set_extra_state() that should never be called. Please file an issue "
            "at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug.")

    def _check_state_dict(self, state_dict, prefix, local_metadata, missing_keys, unexpected_keys,
                          error_msgs, writes):
        """Match this module's own entries of ``state_dict``; changes nothing.

        Appends to the key lists and error messages, and appends ``(kind, name, target, value)``
        to ``writes`` for every entry that may be written once the whole dict is checked.
        """
        local = [("_parameters", name, p) for name, p in self._parameters.items() if p is not None]
        local += [("_buffers", name, b) for name, b in self._buffers.items()
                  if b is not None and name not in self._non_persistent_buffers_set]
        local_names = set()
        for kind, name, target in local:
            local_names.add(name)
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            value = state_dict[key]
            if not _tensor_like(value):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f'Tensor-like object from checkpoint but received {type(value)}')
                continue
            value = _as_tensor(value)
            if target.ndim == 0 and value.ndim == 1:
                value = value[0]
            if tuple(value.shape) != tuple(target.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {target.shape}.")
                continue
            if value.is_complex() and not target.is_complex():
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are '
                    f"{target.shape} and whose dimensions in the checkpoint are {value.shape}, an exception "
                    "occurred : ('Complex values can not be copied into a real tensor',).")
                continue
            writes.append((kind, name, target, value))
        extra_key = prefix + "_extra_state"
        has_extra = type(self).set_extra_state is not StateDictMixin.set_extra_state
        if has_extra:
            if extra_key in state_dict:
                writes.append(("_extra_state", None, None, state_dict[extra_key]))
            else:
                missing_keys.append(extra_key)
        for key in state_dict:
            if not key.startswith(prefix) or (has_extra and key == extra_key):
                continue
            head, dot, _ = key[len(prefix):].partition(".")
            if dot:
                if head not in self._modules:
                    unexpected_keys.append(key)
            elif head not in local_names:
                unexpected_keys.append(key)

    def _write_state(self, writes, assign):
        with no_grad():
            for kind, name, target, value in writes:
                if kind == "_extra_state":
                    self.set_extra_state(value)
                elif not assign:
                    target.copy_(value)
                elif kind == "_parameters":
                    setattr(self, name, Parameter(value, requires_grad=target.requires_grad))
                else:
                    self._buffers[name] = value

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy ``state_dict``'s values into this module's parameters and buffers.

        Every entry is checked before anything is written: on an error (a size mismatch, or
        with ``strict`` a missing or unexpected key) the module is left unchanged and
        PyTorch's ``RuntimeError`` lists the keys. Values may be Tensors or numpy arrays.
        Returns ``_IncompatibleKeys(missing_keys, unexpected_keys)``.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        missing_keys = []
        unexpected_keys = []
        error_msgs = []
        plan = []
        for name, module in self.named_modules(remove_duplicate=False):
            prefix = name + "." if name else ""
            local_metadata = {} if metadata is None else metadata.get(name, {})
            writes = []
            module._check_state_dict(state_dict, prefix, local_metadata, missing_keys, unexpected_keys,
                                     error_msgs, writes)
            plan.append((module, writes))
        if strict:
            if unexpected_keys:
                keys = ", ".join(f'"{k}"' for k in unexpected_keys)
                error_msgs.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing_keys:
                keys = ", ".join(f'"{k}"' for k in missing_keys)
                error_msgs.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        for module, writes in plan:
            module._write_state(writes, assign)
        result = _IncompatibleKeys(missing_keys, unexpected_keys)
        for _, module in self.named_modules():
            for hook in module._load_state_dict_post_hooks.values():
                hook(module, result)
        return result

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after a module's entries are saved."""
        return RemovableHandle(self._state_dict_hooks, hook)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after ``load_state_dict`` wrote the values."""
        return RemovableHandle(self._load_state_dict_post_hooks, hook)
