"""``nn.utils.parametrize``: a parameter or buffer computed from other tensors on every access.

``register_parametrization(module, "weight", P)`` moves ``module.weight`` into
``module.parametrizations.weight.original`` (a :class:`ParametrizationList`, whose first entry is
``P``) and swaps the module's class for a generated subclass, ``Parametrized<ClassName>``, whose
``weight`` property returns ``P(original)``; assigning to it calls ``P.right_inverse``. A
``right_inverse`` returning a sequence of tensors stores them as ``original0``, ``original1``, ...
Several parametrizations on one tensor chain in registration order. Names, reprs, state-dict keys
and error messages are PyTorch's.
"""

from collections import OrderedDict
from collections.abc import Sequence
from contextlib import contextmanager
from copy import deepcopy
import copyreg

from ..._autograd.grad_mode import no_grad
from ..._hooks import RemovableHandle
from ..._tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = [
    "cached", "ParametrizationList", "register_parametrization", "is_parametrized",
    "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params",
]

# (id(module), tensor name) -> the value computed inside ``cached()``; the depth of nested cached()
_cache = {}
_cache_enabled = 0


@contextmanager
def cached():
    """Inside this context a parametrized tensor is computed once, at its first access, and that
    value is returned until the outermost ``cached()`` exits.

    >>> import tensorgrad as torch
    >>> import tensorgrad.nn.utils.parametrize as P
    >>> m = P.register_parametrization(torch.nn.Linear(2, 2), "weight", torch.nn.Tanh())
    >>> with P.cached():
    ...     m.weight is m.weight
    True
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_value(dest, src):
    """Give ``dest`` the value (and shape) of ``src``, keeping the object, as PyTorch's ``set_``
    keeps a parameter's identity for the optimizer that holds it."""
    with no_grad():
        dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor of a parametrized module and the tensor(s) they start
    from: ``module.parametrizations[name]``.

    It holds ``original`` (when the first parametrization has no ``right_inverse`` or one that
    returns a tensor) or ``original0``, ``original1``, ... (when it returns a sequence), as
    Parameters if the parametrized tensor was a Parameter, else as buffers. Calling it computes
    the parametrized tensor. Made by :func:`register_parametrization`, not by users.

    Arguments:
      modules: the parametrizations (at least one).
      original: the Parameter or buffer being parametrized.
      unsafe: whether the parametrization may change the tensor's shape and dtype (unchecked).
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass            # a right_inverse that cannot run is taken as the identity
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the device.\n"
                                 f"original.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            if new is not original:
                _set_value(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, value in enumerate(new):
                if not isinstance(value, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(value).__name__}.")
                if isinstance(original, Parameter):
                    value = Parameter(value, original.requires_grad)
                value.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", value)
        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            _check_kept(Z, {"dtype": original_dtype, "shape": original_shape},
                        "Registering a parametrization may not change the {kind} of the tensor, unless `unsafe` flag "
                        "is enabled.\nunparametrized {kind}: {want}\nparametrized {kind}: {got}")

    def right_inverse(self, value):
        """Run the parametrizations' ``right_inverse`` in reverse registration order on ``value``
        and store the result in ``original`` (or ``original0``, ``original1``, ...)."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _set_value(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                 f"Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or reference-type "
                                     f"opaques. Got element {i} of type {type(tensor).__name__}.")
                if original_i.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                                     f"`original{i}` has dtype {original_i.dtype}")
                _set_value(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        index = 1
        while str(index) in self._modules:
            x = self._modules[str(index)](x)
            index += 1
        return x


# ---------------------------------------------------------------- the generated class

def _deepcopy(self, memo):
    """A copy of the module's instance dict (and slots), for classes without ``__deepcopy__``:
    the generated class refuses ``__getstate__``, which ``copy.deepcopy`` would call."""
    replica = memo.get(id(self))
    if replica is not None:
        return replica
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    object.__setattr__(replica, "__dict__", deepcopy(self.__dict__, memo))
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, deepcopy(getattr(self, slot), memo))
    return replica


def _getstate(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _register_load_state_dict_pre_hook(module, hook):
    """Add ``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
    error_msgs)``, run before ``load_state_dict`` matches the entries of parametrized ``module``
    (the generated class runs them); returns a removable handle."""
    hooks = module.__dict__.get("_load_state_dict_pre_hooks")
    if hooks is None:
        hooks = OrderedDict()
        object.__setattr__(module, "_load_state_dict_pre_hooks", hooks)
    return RemovableHandle(hooks, hook)


def _inject_new_class(module):
    """Swap the class of ``module`` for a new subclass ``Parametrized<ClassName>`` that will hold
    the properties."""
    cls = module.__class__

    def _check_state_dict(self, state_dict, prefix, local_metadata, missing_keys, unexpected_keys, error_msgs,
                          writes):
        # the module's load-state-dict pre-hooks first (weight_norm's renames the entries of the
        # old weight_norm), then the entries are matched as in any module
        for hook in list(self.__dict__.get("_load_state_dict_pre_hooks", {}).values()):
            hook(state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs)
        cls._check_state_dict(self, state_dict, prefix, local_metadata, missing_keys, unexpected_keys,
                              error_msgs, writes)

    namespace = {"__getstate__": _getstate, "_check_state_dict": _check_state_dict}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    """Add to the (generated) class of ``module`` the property ``tensor_name``: reading it runs the
    ParametrizationList (once per ``cached()`` region), assigning to it runs ``right_inverse``."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


# ---------------------------------------------------------------- public functions

def _check_kept(got, want, message):
    """PyTorch's ValueError (``message`` with ``{kind}``, ``{want}``, ``{got}``) when the tensor
    ``got`` has another dtype, or else another shape, than ``want`` says."""
    for kind in ("dtype", "shape"):
        if getattr(got, kind) != want[kind]:
            raise ValueError(message.format(kind=kind, want=want[kind], got=getattr(got, kind)))


def _check_chained(module, tensor_name, parametrization):
    """PyTorch's checks that a parametrization added to an already parametrized tensor maps
    tensors of its shape and dtype to tensors of its shape and dtype (both ways)."""
    Y = getattr(module, tensor_name)
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
    want = {"dtype": Y.dtype, "shape": Y.shape}
    _check_kept(X, want, "Registering a parametrization may not change the {kind} of the tensor, unless the `unsafe` "
                f"flag is enabled.\nmodule.{tensor_name}.{{kind}}: {{want}}\n"
                f"parametrization(module.{tensor_name}).{{kind}}: {{got}}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        Z = parametrization.right_inverse(X)
    except NotImplementedError:
        return
    if not isinstance(Z, Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(Z).__name__}")
    _check_kept(Z, want, "The tensor returned by parametrization.right_inverse must have the same {kind} as "
                f"module.{tensor_name}, unless the `unsafe` flag is enabled.\nmodule.{tensor_name}.{{kind}}: "
                "{want}\nreturned {kind}: {got}")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` the output of ``parametrization`` (a Module) applied to the
    original tensor, now at ``module.parametrizations.<tensor_name>.original``.

    When the tensor is not parametrized yet, its first value comes from
    ``parametrization.right_inverse`` (if defined) of the current value; a ``right_inverse``
    returning a sequence stores ``original0``, ``original1``, .... Registering on an already
    parametrized tensor appends to its chain. Unless ``unsafe``, the parametrization is checked
    to keep the tensor's shape and dtype. The parametrization takes the module's training mode.
    Returns ``module``.

    >>> import tensorgrad as torch
    >>> import tensorgrad.nn.utils.parametrize as P
    >>> m = P.register_parametrization(torch.nn.Linear(3, 3), "weight", torch.nn.Identity())
    >>> type(m).__name__, list(m.state_dict())
    ('ParametrizedLinear', ['bias', 'parametrizations.weight.original'])
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_chained(module, tensor_name, parametrization)
        parametrizations = module.parametrizations[tensor_name]
        parametrizations.append(parametrization)
        parametrizations.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
                         f"with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization on ``tensor_name`` (on any tensor when None)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Remove the parametrizations on ``module.<tensor_name>`` and make it a plain Parameter or
    buffer again: holding its current parametrized value (``leave_parametrized=True``) or the
    unparametrized ``original`` (only for a parametrization of one tensor). The module's class is
    restored when no parametrization is left. Returns ``module``."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set_value(original, value)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The class of ``module`` before parametrizations were registered on it."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register on ``to_module`` the parametrizations of ``from_module`` (all of them, or those of
    ``tensor_name``) and share the original tensors they act on; a tensor ``to_module`` lacks is
    first created as a Parameter. Does nothing when ``from_module`` is not parametrized. Returns
    ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
            continue
        i = 0
        while hasattr(source, f"original{i}"):
            setattr(target, f"original{i}", getattr(source, f"original{i}"))
            i += 1
    return to_module
