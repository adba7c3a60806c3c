"""``nn.utils.weight_norm``: the hook-based weight normalization (deprecated in PyTorch for
``nn.utils.parametrizations.weight_norm``), ``w = g * v / ||v||``.

``weight_norm(module)`` replaces the parameter ``weight`` by ``weight_g`` (the norms) and
``weight_v`` (the direction) and recomputes ``module.weight`` in a forward pre-hook;
``remove_weight_norm`` makes it a Parameter again. It warns with PyTorch's FutureWarning.
"""

import warnings

from ..._api.linalg import vector_norm
from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _norm_except_dim(v, pow, dim):
    """PyTorch's ``norm_except_dim``: the ``pow``-norms of ``v`` over every dimension but ``dim``,
    shaped to broadcast against ``v`` (``dim=-1``: the norm of the whole tensor, 0-d)."""
    if dim == -1:
        return vector_norm(v, pow)
    if dim == 0:
        shape = [v.size(0)] + [1] * (v.dim() - 1)
        return vector_norm(v.reshape(v.size(0), -1), pow, dim=1).reshape(shape)
    if dim == v.dim() - 1:
        shape = [1] * (v.dim() - 1) + [v.size(-1)]
        return vector_norm(v.reshape(-1, v.size(-1)), pow, dim=0).reshape(shape)
    return _norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim):
    """PyTorch's ``_weight_norm``: ``v * (g / norm_except_dim(v, 2, dim))``."""
    return v * (g / _norm_except_dim(v, 2, dim))


_DEPRECATED = ("`torch.nn.utils.weight_norm` is deprecated in favor of "
               "`torch.nn.utils.parametrizations.weight_norm`.")


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm`: sets ``module.<name>`` from ``<name>_g`` and
    ``<name>_v`` before every forward."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn(_DEPRECATED, FutureWarning, stacklevel=2)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. Make sure to "
                             "run the dummy forward before applying weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replace ``module.<name>`` by a magnitude ``<name>_g`` and a direction ``<name>_v`` (both
    Parameters), the weight being ``g * v / ||v||`` with norms over every dimension but ``dim``
    (the whole tensor when ``dim=None``), recomputed before every forward. Returns ``module``.

    >>> import tensorgrad as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = torch.nn.utils.weight_norm(torch.nn.Linear(20, 40))
    >>> m.weight_g.size(), m.weight_v.size()
    (torch.Size([40, 1]), torch.Size([40, 20]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo :func:`weight_norm` on ``module.<name>``: it becomes a Parameter holding the current
    weight. Returns ``module``."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")

