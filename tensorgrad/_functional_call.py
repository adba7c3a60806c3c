"""``functional_call`` and ``stack_module_state``: run an nn.Module with substituted tensors.

A module's parameters and buffers live in its ``_parameters`` / ``_buffers`` tables (and its
children in ``_modules``), as in PyTorch; ``functional_call`` swaps entries of those tables for
the call and puts the originals back afterwards.
"""

from ._api.joining import stack as stack_tensors


def _named_slots(module):
    """Every (dotted name, owning module, registry, key) for parameters and buffers, tied ones included."""
    modules = []
    stack = [("", module)]
    seen = set()
    while stack:
        prefix, mod = stack.pop()
        if id(mod) in seen:
            continue
        seen.add(id(mod))
        modules.append((prefix, mod))
        children = list(getattr(mod, "_modules", {}).items())
        for name, child in reversed(children):
            if child is not None:
                stack.append((prefix + name + ".", child))
    slots = []
    for registry in ("_parameters", "_buffers"):
        for prefix, mod in modules:
            for key, value in getattr(mod, registry, {}).items():
                if value is not None:
                    slots.append((prefix + key, mod, registry, key, value))
    return slots


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """Call ``module`` with some parameters and buffers replaced by the given tensors.

    Arguments:
      parameter_and_buffer_dicts: a dict ``{dotted name: Tensor}``, or a tuple of dicts.
      args: one argument or a tuple of arguments; kwargs: keyword arguments.
      tie_weights: a tensor given for one of several tied names replaces all of them.
      strict: every parameter and buffer must be given, and nothing else.

    The module's own tensors are restored afterwards, also when the call raises.
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        mapping = dict(parameter_and_buffer_dicts)
    else:
        dicts = tuple(parameter_and_buffer_dicts)
        keys = [k for d in dicts for k in d]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        mapping = {k: v for d in dicts for k, v in d.items()}
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    slots = _named_slots(module)
    names = [s[0] for s in slots]
    tied = {}
    for name, _, _, _, value in slots:
        tied.setdefault(id(value), []).append(name)
    if tie_weights:
        for group in tied.values():
            given = [n for n in group if n in mapping]
            if len(given) > 1:
                first = mapping[given[0]]
                if any(mapping[n] is not first for n in given[1:]):
                    raise ValueError(
                        f"functional_call got multiple values for keys {sorted(given)}, which are tied. Consider "
                        "using tie_weights=False")
            if given:
                for n in group:
                    mapping.setdefault(n, mapping[given[0]])
    if strict:
        unique = [group[0] for group in tied.values()] if tie_weights else names
        missing = [n for n in unique if n not in mapping]
        unexpected = [k for k in mapping if k not in names]
        if missing or unexpected:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("\n".join(lines))
    swapped = []
    try:
        for name, mod, registry, key, value in slots:
            if name in mapping:
                table = getattr(mod, registry)
                swapped.append((table, key, table[key]))
                table[key] = mapping[name]
        return module(*args, **kwargs)
    finally:
        for table, key, value in reversed(swapped):
            table[key] = value


def stack_module_state(models):
    """``(params, buffers)``: each model's tensors stacked along a new leading dimension.

    The stacked parameters are new leaves that require grad when the models' parameters do, so
    they can be optimized directly; use with ``vmap`` and ``functional_call`` to run an ensemble.
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {}
    for name in all_params[0]:
        tensors = [p[name] for p in all_params]
        flags = {t.requires_grad for t in tensors}
        if len(flags) != 1:
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        stacked = stack_tensors([t.detach() for t in tensors])
        params[name] = stacked.requires_grad_() if flags.pop() else stacked
    buffers = {name: stack_tensors([b[name].detach() for b in all_buffers]) for name in all_buffers[0]}
    return params, buffers
