"""``nn.Module``: the base class of layers and models.

A Module registers the Parameters, buffers (tensors) and child Modules assigned to its
attributes, walks them (``parameters()``, ``named_modules()``, ...), converts them
(``to``, ``float``), saves and loads them (``state_dict``, ``load_state_dict``) and runs
``forward`` between its hooks when called. Names, orders, reprs and error messages are
PyTorch's.
"""

from collections import OrderedDict

from ... import _dtype
from ..._autograd.grad_mode import no_grad
from ..._hooks import MODULE_CALL, RemovableHandle

# ``[compile_call]``, filled in by ``tensorgrad.compile``'s module (a layer above nn):
# ``compile_call(module, **compile_kwargs)`` is the compiled call of ``Module.compile``, or None
# where ``disable=True``
COMPILE_CALL = [None]
from ..._typename import typename
from ..._api.creation import empty_like
from ..._tensor import Tensor
from ..parameter import Parameter, Buffer
from ._state_dict import StateDictMixin, _IncompatibleKeys  # noqa: F401  (PyTorch exposes _IncompatibleKeys here)


def _addindent(text, spaces):
    """Indent every line of ``text`` but the first by ``spaces`` spaces."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


class _HookHandle(RemovableHandle):
    """A hook handle that also forgets the hook's flags (``with_kwargs``, ``always_call``)."""

    def __init__(self, hooks_dict, fn, flag_sets=()):
        super().__init__(hooks_dict, fn)
        self.flag_sets = flag_sets

    def remove(self):
        super().remove()
        for flags in self.flag_sets:
            flags.discard(self.id)


class Module(StateDictMixin):
    """Base class for all neural network modules.

    Subclasses assign Parameters, tensors registered as buffers and other Modules as
    attributes in ``__init__`` and compute in ``forward``; calling the module runs
    ``forward`` with its hooks.

    >>> import tensorgrad as torch
    >>> class Net(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = torch.nn.Linear(2, 1)
    ...     def forward(self, x):
    ...         return self.fc(x)
    >>> Net()
    Net(
      (fc): Linear(in_features=2, out_features=1, bias=True)
    )
    """

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", set())
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", set())
        setattr_(self, "_forward_hooks_always_called", set())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ------------------------------------------------------------------ registration
    def _check_new_name(self, kind, registry, name):
        """PyTorch's errors for registering ``name`` as a ``kind`` ("buffer" or "parameter") in the
        dict attribute ``registry``."""
        if registry not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f"{kind} name can't contain \".\"")
        if name == "":
            raise KeyError(f"{kind} name can't be empty string \"\"")
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        """Register ``tensor`` as buffer ``name``; a persistent buffer is saved in ``state_dict``."""
        self._check_new_name("buffer", "_buffers", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Register ``param`` (a Parameter or None) as parameter ``name``."""
        self._check_new_name("parameter", "_parameters", name)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                "the forward() method.")
        self._parameters[name] = param

    def add_module(self, name, module):
        """Register ``module`` (a Module or None) as child ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep="_parameters")
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self._forget(name, keep="_buffers")
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def _forget(self, name, keep):
        """Drop ``name`` from every registry but ``keep`` and from the instance dict."""
        d = self.__dict__
        d.pop(name, None)
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry != keep and name in d.get(registry, ()):
                del d[registry][name]
        if keep != "_buffers":
            d.get("_non_persistent_buffers_set", set()).discard(name)

    def __getattr__(self, name):
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            found = d.get(registry)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if name in d.get(registry, ()):
                del d[registry][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        attrs = set(object.__dir__(self))
        attrs.update(self._parameters, self._buffers, self._modules)
        return sorted(a for a in attrs if not a[:1].isdigit())

    # ------------------------------------------------------------------ traversal
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Yield ``(name, module)`` for this module and every descendant, depth first."""
        seen = set() if memo is None else memo
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if module in seen:
                    continue
                seen.add(module)
            yield name, module
            children = [(name + ("." if name else "") + key, child)
                        for key, child in module._modules.items() if child is not None]
            stack.extend(reversed(children))

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry, prefix, recurse, remove_duplicate):
        if recurse:
            modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            modules = [(prefix, self)]
        seen = set()
        for module_prefix, module in modules:
            for key, value in getattr(module, registry).items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + key, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(name, parameter)``; a parameter shared by several modules comes once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def _walk(self, target):
        """The module at dotted path ``target`` (``""`` is this module)."""
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_submodule(self, target):
        return self._walk(target)

    def _owner(self, target):
        """The module holding the attribute at dotted path ``target``, and the attribute's name."""
        module_path, _, name = target.rpartition(".")
        module = self._walk(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        return module, name

    def get_parameter(self, target):
        module, name = self._owner(target)
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module, name = self._owner(target)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    # ------------------------------------------------------------------ modes and conversions
    def train(self, mode=True):
        """Set training mode on this module and its descendants; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters (to None by default)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def apply(self, fn):
        """Call ``fn`` on every descendant (children first), then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse=True):
        """Replace every parameter's and buffer's value by ``fn(value)``, keeping the Parameter objects."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for key, param in self._parameters.items():
                if param is None:
                    continue
                new = fn(param)
                if new is not param:
                    param.data = new
                grad = param._grad
                if grad is not None:
                    new_grad = fn(grad)
                    if new_grad is not grad:
                        grad.data = new_grad
            for key, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``, ``to(tensor)``.

        Only floating point and complex tensors change dtype.
        """
        device = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments - got unexpected "
                            f"keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, _dtype.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
                device = a.device
            elif isinstance(a, bool) or a is None:
                continue
            else:
                device = a
        if dtype is not None:
            dtype = _dtype.to_dtype(dtype)
            if dtype.kind < _dtype.FLOAT:
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                                f"desired dtype={dtype}")

        def convert(t):
            floating = t.is_floating_point() or t.is_complex()
            return t.to(device=device, dtype=dtype if floating else None)

        return self._apply(convert)

    def _cast_floats(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        return self._cast_floats(_dtype.float32)

    def double(self):
        return self._cast_floats(_dtype.float64)

    def half(self):
        return self._cast_floats(_dtype.float16)

    def bfloat16(self):
        return self._cast_floats(_dtype.bfloat16)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def to_empty(self, *, device, recurse=True):
        """Give every parameter and buffer new, uninitialised storage on ``device`` (the way out of
        a model built on the meta device); returns self."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        return self

    # ------------------------------------------------------------------ hooks and call
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` (or ``hook(module, args, kwargs)``) runs before ``forward``.

        A hook that returns a value replaces the arguments (a non-tuple is wrapped in one).
        """
        handle = _HookHandle(self._forward_pre_hooks, hook, (self._forward_pre_hooks_with_kwargs,))
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output)`` runs after ``forward``; a returned value replaces the output."""
        handle = _HookHandle(self._forward_hooks, hook,
                             (self._forward_hooks_with_kwargs, self._forward_hooks_always_called))
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    _compiled_call = None       # set by ``compile``

    def __call__(self, *args, **kwargs):
        if self._compiled_call is not None:
            return self._compiled_call(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    def compile(self, *args, **kwargs):
        """PyTorch's ``Module.compile``: from now on this module's calls (hooks included) run as
        ``tensorgrad.compile`` of its call, with these arguments, in place: its type, attributes
        and state dict stay as they are. Pickles and deep copies are not compiled."""
        compiled = COMPILE_CALL[0](self, *args, **kwargs)
        if compiled is not None:
            self.__dict__["_compiled_call"] = compiled

    def _call_impl(self, *args, **kwargs):
        if MODULE_CALL.listeners:
            MODULE_CALL(self)       # tensorgrad.compile guards the training flag of modules it runs
        if not self._forward_pre_hooks and not self._forward_hooks:
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        called = set()
        try:
            output = self.forward(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                called.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    result = hook(self, args, kwargs, output)
                else:
                    result = hook(self, args, output)
                if result is not None:
                    output = result
        except Exception:
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called and hook_id not in called:
                    if hook_id in self._forward_hooks_with_kwargs:
                        hook(self, args, kwargs, None)
                    else:
                        hook(self, args, None)
            raise
        return output

    # ------------------------------------------------------------------ printing
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text printed inside this module's parentheses, before its children."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

