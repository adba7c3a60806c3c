"""``nn.utils.spectral_norm``: the hook-based spectral normalization, ``W / sigma(W)``.

``spectral_norm(module)`` moves the parameter ``weight`` to ``weight_orig``, keeps the power
method's vectors in the buffers ``weight_u`` and ``weight_v`` and sets ``module.weight`` in a
forward pre-hook (one or more power iterations first, in training mode);
``remove_spectral_norm`` makes it a Parameter again. ``state_dict`` records the hook's version in
its metadata (``{'spectral_norm': {'weight.version': 1}}``), as PyTorch does.
"""

from ..._autograd.grad_mode import no_grad
from ..._api.matmul import dot, mv
from ..._api.products import multi_dot
from ..._api.linalg import pinverse
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


def _default_dim(module):
    """The dimension of outputs: 1 for the transposed convolutions, else 0."""
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm`: sets ``module.<name>`` to
    ``<name>_orig / sigma`` with ``sigma = u . (W v)`` estimated by the power method."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``weight`` as a matrix whose rows run along ``dim``."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    # the buffers are updated in place; the copies below are what the graph keeps
                    F.normalize(mv(weight_mat.t(), u), dim=0, eps=self.eps, out=v)
                    F.normalize(mv(weight_mat, v), dim=0, eps=self.eps, out=u)
                u = u.clone()
                v = v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        """The ``v`` with ``u = normalize(W v)`` and ``u . (W v) = target_sigma`` (for checkpoints
        of version 0, which saved ``weight`` but not ``weight_v``)."""
        v = multi_dot([pinverse(weight_mat.t().mm(weight_mat)), weight_mat.t(), u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / dot(u, mv(weight_mat, v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. Make sure "
                             "to run the dummy forward before applying spectral normalization")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module.register_state_dict_post_hook(SpectralNormStateDictHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """PyTorch's conversion of a version-0 checkpoint (``weight``, ``weight_orig``, ``weight_u``)
    to the current entries (``weight_v`` solved for). tensorgrad's ``load_state_dict`` runs no
    load-state-dict pre-hooks on plain modules, so :func:`spectral_norm` does not register it."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (version is None and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
                and weight_key not in state_dict):
            return
        has_missing_keys = False
        for suffix in ("_orig", "", "_u"):
            if weight_key + suffix not in state_dict:
                has_missing_keys = True
                if strict:
                    missing_keys.append(weight_key + suffix)
        if has_missing_keys:
            return
        with no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Records ``{'spectral_norm': {'<name>.version': 1}}`` in the module's state-dict metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        # tensorgrad's state_dict hands the hook a copy of the module's metadata entry: write the
        # entry itself when the destination has one
        metadata = getattr(state_dict, "_metadata", None)
        if metadata is not None and prefix[:-1] in metadata:
            local_metadata = metadata[prefix[:-1]]
        entry = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in entry:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        entry[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Replace ``module.<name>`` by ``<name>_orig`` divided by its largest singular value,
    estimated with ``n_power_iterations`` steps of the power method before every forward in
    training mode (the vectors live in the buffers ``<name>_u`` and ``<name>_v``). ``dim`` is the
    dimension of outputs (default 0, 1 for ConvTranspose). Returns ``module``.

    >>> import tensorgrad as torch
    >>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(20, 40))
    >>> m.weight_u.size(), list(m.state_dict())
    (torch.Size([40]), ['bias', 'weight_orig', 'weight_u', 'weight_v'])
    """
    if dim is None:
        dim = _default_dim(module)
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo :func:`spectral_norm` on ``module.<name>``: it becomes a Parameter holding the current
    normalized weight (no power iteration). Returns ``module``."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for key, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[key]
            break
    return module
