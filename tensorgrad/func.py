"""``tensorgrad.func``: torch.func's composable transforms, run by JAX's transforms.

Each transform hands the function Tensors that wrap JAX tracers, runs the JAX transform and
wraps the results back into Tensors. The transforms nest (``vmap(grad(f))``,
``jacfwd(jacrev(f))``). Inside them, ``detach()``, ``.data`` and ``no_grad`` blocks stop
gradients (``enable_grad`` inside ``no_grad`` lets them through again), as in torch.func, and
``backward()`` is an error. When a real input requires grad, the transform's result is recorded
on the tape too, so ``func.grad(f)(x)`` can itself be backpropagated.

>>> import tensorgrad as torch
>>> from tensorgrad.func import grad, vmap
>>> grad(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
tensor([ 3., 12.])
>>> vmap(grad(lambda x: (x ** 3).sum()))(torch.tensor([[1.], [2.]]))
tensor([[ 3.],
        [12.]])
"""

import functools

import jax
import jax.numpy as jnp

from ._autograd.grad_mode import STATE
from ._bridge import _ClosureWatch, functional_scope, record_call, is_tensor, tensors_to_arrays, skeleton, reorder
from ._tensor import Tensor, _wrap
from ._functional_call import functional_call as functional_call, stack_module_state as stack_module_state
from ._api import random as RND

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state"]


# ---------------------------------------------------------------------- helpers

def _check_argnums(argnums, nargs):
    many = isinstance(argnums, (tuple, list))
    nums = tuple(argnums) if many else (argnums,)
    for n in nums:
        if not isinstance(n, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(n)}")
        if not -nargs <= n < nargs:
            raise RuntimeError(f"Got argnum={n}, but only {nargs} positional inputs")
    normalized = tuple(n % nargs for n in nums)
    if len(set(normalized)) != len(normalized):
        raise RuntimeError(f"argnums elements must be unique, got {tuple(nums)}")
    return normalized if many else normalized[0]


def _check_tensors(tree):
    """Differentiated arguments must be Tensors (or pytrees of them), as torch.func requires."""
    for leaf in jax.tree_util.tree_leaves(tree, is_leaf=is_tensor):
        if not isinstance(leaf, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(leaf)}")
        if not jnp.issubdtype(leaf._data.dtype, jnp.inexact):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")


def _selected(args, argnums):
    return tuple(args[i] for i in argnums) if isinstance(argnums, tuple) else args[argnums]


def _scalar_output(name, out):
    if not isinstance(out, Tensor):
        raise RuntimeError(f"{name}(f)(*args): Expected f(*args) to return a Tensor, got {type(out)}")
    if out.dim() != 0:
        raise RuntimeError(
            f"{name}(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with {out.dim()} dims. "
            "Maybe you wanted to use the vjp or jacrev APIs instead?")
    return out._data


def _split_aux(name, result, has_aux):
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(
            f"{name}(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is True")
    return result


def _checked_argnums(argnums, args):
    """``argnums`` made non-negative, after checking it and that the arguments it picks are Tensors."""
    nums = _check_argnums(argnums, len(args))
    _check_tensors(_selected(args, nums))
    return nums


def _as_passed(func, args, kwargs, name, has_aux, layout):
    """``func`` as the JAX transform calls it, returning ``(output, aux)``.

    JAX rebuilds dicts with sorted keys; this gives ``func`` its arguments in the order they were
    passed (``args`` as passed) and records the structure of its output and aux in ``layout``
    (``"out"`` and ``"aux"``) so that results can be put back in the same order.
    """
    arg_skeleton = skeleton(args)

    def call(*rebuilt):
        result = func(*reorder(rebuilt, arg_skeleton), **kwargs)
        out, aux = _split_aux(name, result, has_aux)
        layout["out"] = skeleton(out)
        layout["aux"] = skeleton(aux)
        return out, aux
    return call


def _wrap_tree(tree):
    """Results of a JAX transform: arrays become Tensors (Tensors stay)."""
    return jax.tree_util.tree_map(lambda x: _wrap(x) if isinstance(x, (jax.Array, jax.core.Tracer)) else x,
                                  tree, is_leaf=is_tensor)


# ---------------------------------------------------------------------- grad

def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a function returning a scalar Tensor (``(gradient, (value, aux))``).

    >>> import tensorgrad as torch
    >>> torch.func.grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1., 2.]))
    (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _checked_argnums(argnums, args)

        def run(*args):
            layout = {}
            call = _as_passed(func, args, kwargs, "grad_and_value", has_aux, layout)

            def scalar_fn(*args):
                out, aux = call(*args)
                value = _scalar_output("grad_and_value", out)
                return (value, (out, aux)) if has_aux else (value, out)

            with functional_scope():
                (_, kept), grads = jax.value_and_grad(scalar_fn, argnums=nums, has_aux=True)(*args)
            grads = reorder(grads, skeleton(_selected(args, nums)))
            if has_aux:
                out, aux = kept
                return grads, (_wrap_tree(out), reorder(_wrap_tree(aux), layout["aux"]))
            return grads, _wrap_tree(kept)

        return record_call(run, args, name="GradBackward0")
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a function returning a scalar Tensor, w.r.t. the argument(s) ``argnums``.

    >>> import tensorgrad as torch
    >>> torch.func.grad(torch.func.grad(lambda t: t ** 3))(torch.tensor(2.))
    tensor(12.)
    """
    value_and_grad = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = value_and_grad(*args, **kwargs)
        if has_aux:
            return grads, value[1]
        return grads
    return wrapper


# ---------------------------------------------------------------------- vjp / jvp

def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` returns a tuple, one entry per primal.

    >>> import tensorgrad as torch
    >>> out, vjp_fn = torch.func.vjp(lambda t: t ** 2, torch.tensor([1., 2.]))
    >>> vjp_fn(torch.ones(2))
    (tensor([2., 4.]),)
    """
    _check_tensors(primals)

    layout = {}
    call = _as_passed(func, primals, {}, "vjp", has_aux, layout)

    def forward(*primals):
        out, aux = call(*primals)
        return tensors_to_arrays(out), tensors_to_arrays(aux)

    def run(*primals):
        with functional_scope():
            out, jax_vjp_fn, aux = jax.vjp(forward, *primals, has_aux=True)
        return reorder(_wrap_tree(out), layout["out"]), reorder(_wrap_tree(aux), layout["aux"]), jax_vjp_fn

    closes_over = False
    if STATE.grad and not STATE.functional:
        with _ClosureWatch() as watch:
            out, aux, jax_vjp_fn = run(*primals)
        closes_over = bool(watch.found)
    else:
        out, aux, jax_vjp_fn = run(*primals)
    recorded = STATE.grad and (closes_over or any(t.requires_grad for t in jax.tree_util.tree_leaves(
        primals, is_leaf=is_tensor)))

    def vjp_fn(cotangents):
        _check_cotangents(out, cotangents)
        if not recorded and not any(isinstance(c, Tensor) and c.requires_grad
                                    for c in jax.tree_util.tree_leaves(cotangents, is_leaf=is_tensor)):
            return reorder(tuple(_wrap_tree(jax_vjp_fn(tensors_to_arrays(cotangents)))), skeleton(primals))

        def again(primals, cotangents):
            with functional_scope():
                _, fn, _ = jax.vjp(forward, *primals, has_aux=True)
                return reorder(tuple(_wrap_tree(fn(tensors_to_arrays(cotangents)))), skeleton(primals))
        return record_call(again, (primals, cotangents), name="VjpBackward0")

    if recorded:
        out = record_call(lambda *p: _wrap_tree(forward(*p)[0]), primals, name="VjpBackward0")
    if has_aux:
        return out, vjp_fn, aux
    return out, vjp_fn


def _check_cotangents(out, cotangents):
    outs = jax.tree_util.tree_leaves(out, is_leaf=is_tensor)
    cts = jax.tree_util.tree_leaves(cotangents, is_leaf=is_tensor)
    if len(outs) != len(cts):
        raise RuntimeError(
            f"Expected pytree structure of cotangents to be the same as pytree structure of outputs to the "
            f"function. cotangents: {jax.tree_util.tree_structure(cotangents, is_leaf=is_tensor)}, primal "
            f"output: {jax.tree_util.tree_structure(out, is_leaf=is_tensor)}")
    for i, (o, c) in enumerate(zip(outs, cts)):
        if tuple(o.shape) != tuple(c.shape):
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and output[{i}] has a shape of "
                f"{o.shape}.")


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), jvp_out)``: the Jacobian-vector product along ``tangents``.

    >>> import tensorgrad as torch
    >>> torch.func.jvp(lambda t: t ** 2, (torch.tensor([1., 2.]),), (torch.ones(2),))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    if not isinstance(primals, tuple):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    if not isinstance(tangents, tuple):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected tangents to be a tuple. E.g. it should be valid to call "
            "f(*primals).")
    _check_tensors(primals)
    for p, t in zip(jax.tree_util.tree_leaves(primals, is_leaf=is_tensor),
                    jax.tree_util.tree_leaves(tangents, is_leaf=is_tensor)):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original Tensor, "
                f"this is not supported. Tensor is of size {list(p.shape)} while the given forward gradient is "
                f"of size {list(t.shape)}.")

    def run(primals, tangents):
        layout = {}
        call = _as_passed(func, tuple(primals), {}, "jvp", has_aux, layout)

        def forward(*primals):
            out, aux = call(*primals)
            return tensors_to_arrays(out), tensors_to_arrays(aux)

        with functional_scope(forward=True):
            out, tangent_out, aux = jax.jvp(forward, tuple(primals), _tangents_like(primals, tangents),
                                            has_aux=True)
        out = reorder(_wrap_tree(out), layout["out"])
        tangent_out = reorder(_wrap_tree(tangent_out), layout["out"])
        if has_aux:
            return out, tangent_out, reorder(_wrap_tree(aux), layout["aux"])
        return out, tangent_out

    return record_call(run, (primals, tangents), name="JvpBackward0")


def _tangents_like(primals, tangents):
    """Tangents in the primals' dtypes (JAX requires them to match)."""
    return jax.tree_util.tree_map(lambda p, t: _wrap(t._data.astype(p._data.dtype)), tuple(primals),
                                  tuple(tangents), is_leaf=is_tensor)


# ---------------------------------------------------------------------- jacobians

def _jacobian_transform(jax_transform, name, func, argnums, has_aux, forward=False, **extra):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _checked_argnums(argnums, args)

        def run(*args):
            layout = {}
            call = _as_passed(func, args, kwargs, name, has_aux, layout)

            def arrays_fn(*args):
                out, aux = call(*args)
                for leaf in jax.tree_util.tree_leaves(out, is_leaf=is_tensor):
                    if not isinstance(leaf, Tensor):
                        raise RuntimeError(f"{name}(f, ...)(*args): expected f(*args) to return only tensors, "
                                           f"got unsupported type {type(leaf)}")
                if has_aux:
                    return tensors_to_arrays(out), tensors_to_arrays(aux)
                return tensors_to_arrays(out)

            with functional_scope(forward=forward):
                result = _wrap_tree(jax_transform(arrays_fn, argnums=nums, has_aux=has_aux, **extra)(*args))
            inputs = skeleton(_selected(args, nums))
            if has_aux:
                jac, aux = result
                return reorder(jac, layout["out"], inputs), reorder(aux, layout["aux"])
            return reorder(result, layout["out"], inputs)

        return record_call(run, args, name=name.capitalize() + "Backward0")
    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` by reverse mode; shape ``output.shape + input.shape``.

    >>> import tensorgrad as torch
    >>> torch.func.jacrev(lambda t: t ** 2)(torch.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    _check_chunk_size(chunk_size)
    return _jacobian_transform(jax.jacrev, "jacrev", func, argnums, has_aux)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` by forward mode."""
    _check_randomness(randomness)
    return _jacobian_transform(jax.jacfwd, "jacfwd", func, argnums, has_aux, forward=True)


def hessian(func, argnums=0):
    """The Hessian of a scalar function: ``jacfwd(jacrev(func))``.

    >>> import tensorgrad as torch
    >>> torch.func.hessian(lambda t: (t ** 3).sum())(torch.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


def _check_chunk_size(chunk_size):
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")


# ---------------------------------------------------------------------- vmap

_RANDOMNESS = ("error", "different", "same")
RANDOM_IN_VMAP = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
    "'different' randomness flags on vmap or perform the randomness operation out of vmap")


def _check_randomness(randomness):
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map ``func`` over a dimension of its inputs, as if called once per slice and stacked.

    Arguments:
      in_dims: per argument (nested like the arguments), the mapped dimension or None.
      out_dims: per output, where the mapped dimension goes (None: not mapped).
      randomness: ``'error'`` (random ops raise), ``'different'`` (each slice draws its own
        numbers) or ``'same'`` (one draw shared by all slices).
      chunk_size: map this many slices at a time.

    >>> import tensorgrad as torch
    >>> torch.func.vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2))
    tensor([2., 2., 2.])
    """
    _check_randomness(randomness)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    fname = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        flat, treedef = jax.tree_util.tree_flatten(args, is_leaf=is_tensor)
        dims = _broadcast_in_dims(fname, in_dims, args)
        mapped = []
        size = None
        sizes = []
        for i, (leaf, d) in enumerate(zip(flat, dims)):
            if d is None:
                continue
            if not isinstance(leaf, Tensor):
                raise ValueError(
                    f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the input is "
                    f"of type {type(leaf)}. We cannot vmap over non-Tensor arguments, please use None as the "
                    "respective in_dim")
            nd = leaf.dim()
            if not -nd <= d < max(nd, 0) or nd == 0:
                raise ValueError(
                    f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but that "
                    f"input is a Tensor of dimensionality {nd} so expected in_dim to satisfy -{nd} <= in_dim < {nd}.")
            mapped.append((i, d % nd))
            sizes.append(leaf.shape[d])
        if not mapped:
            raise ValueError(
                f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): at least one input must be a Tensor mapped "
                "over a dimension (in_dims is not None for it).")
        if len(set(sizes)) != 1:
            raise ValueError(
                f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} for "
                "the mapped dimension")
        size = sizes[0]

        def run(*leaves):
            return _vmap_call(func, fname, kwargs, list(leaves), treedef, skeleton(args), mapped, size, out_dims,
                              randomness, chunk_size)

        return record_call(run, tuple(flat), name="VmapBackward0")
    return wrapper


def _broadcast_in_dims(fname, in_dims, args):
    """One in_dim per flattened argument leaf (in_dims is a prefix of the arguments' structure)."""
    out = []

    def walk(spec, tree):
        if spec is None or isinstance(spec, int):
            count = len(jax.tree_util.tree_leaves(tree, is_leaf=is_tensor))
            out.extend([spec] * count)
            return
        if isinstance(spec, (tuple, list)) and isinstance(tree, (tuple, list)) and len(spec) == len(tree):
            for s, t in zip(spec, tree):
                walk(s, t)
            return
        if isinstance(spec, dict) and isinstance(tree, dict) and set(spec) == set(tree):
            for key in sorted(tree):
                walk(spec[key], tree[key])
            return
        raise ValueError(
            f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure of "
            f"`inputs`. in_dims has structure {jax.tree_util.tree_structure(in_dims)} but inputs has structure "
            f"{jax.tree_util.tree_structure(args, is_leaf=is_tensor)}.")

    if isinstance(in_dims, int) or in_dims is None:
        walk(in_dims, args)
    elif isinstance(in_dims, tuple):
        walk(in_dims, args)
    else:
        raise ValueError(
            f"vmap({fname}, in_dims={in_dims}, ...): expected `in_dims` to be int or a (potentially nested) tuple "
            f"matching the structure of inputs, got: {type(in_dims)}.")
    return out


def _vmap_call(func, fname, kwargs, flat, treedef, arg_skeleton, mapped, size, out_dims, randomness, chunk_size):
    layout = {}
    key = None
    if randomness == "different":
        key = RND.default_generator.next_key()

    def body(keys, *arrays):
        call = list(flat)
        for (i, _), arr in zip(mapped, arrays):
            call[i] = _wrap(arr)
        with functional_scope(vmap=True), _random_mode(randomness, keys):
            result = func(*reorder(jax.tree_util.tree_unflatten(treedef, call), arg_skeleton), **kwargs)
        leaves, tree = jax.tree_util.tree_flatten(result, is_leaf=is_tensor)
        dims = _broadcast_out_dims(fname, out_dims, result, len(leaves))
        for leaf, d in zip(leaves, dims):
            if d is not None and not isinstance(leaf, Tensor):
                raise ValueError(
                    f"vmap({fname}, ...): `{fname}` must only return Tensors, got type {type(leaf)}. Did you mean to "
                    "set out_dims= to None for output?")
        layout["tree"] = tree
        layout["skeleton"] = skeleton(result)
        layout["dims"] = dims
        layout["static"] = [None if isinstance(x, Tensor) else x for x in leaves]
        return [x._data for x in leaves if isinstance(x, Tensor)]

    arrays = [flat[i]._data for i, _ in mapped]
    axes = [d for _, d in mapped]
    if chunk_size is None or chunk_size >= size:
        keys = None if key is None else jax.random.split(key, size)
        outs = jax.vmap(body, in_axes=(None if keys is None else 0, *axes))(keys, *arrays)
    else:
        pieces = []
        for start in range(0, size, chunk_size):
            stop = min(start + chunk_size, size)
            chunk = [jax.lax.slice_in_dim(a, start, stop, axis=d) for a, d in zip(arrays, axes)]
            keys = None if key is None else jax.random.split(jax.random.fold_in(key, start), stop - start)
            pieces.append(jax.vmap(body, in_axes=(None if keys is None else 0, *axes))(keys, *chunk))
        outs = [jnp.concatenate(parts, axis=0) for parts in zip(*pieces)]
    results = []
    tensor_dims = [d for d, s in zip(layout["dims"], layout["static"]) if s is None]
    for arr, d in zip(outs, tensor_dims):
        if d is None:
            results.append(_wrap(arr[0]))
        else:
            results.append(_wrap(jnp.moveaxis(arr, 0, d % arr.ndim)))
    leaves = []
    for s in layout["static"]:
        leaves.append(results.pop(0) if s is None else s)
    return reorder(jax.tree_util.tree_unflatten(layout["tree"], leaves), layout["skeleton"])


def _broadcast_out_dims(fname, out_dims, result, count):
    if out_dims is None or isinstance(out_dims, int):
        return [out_dims] * count
    if isinstance(out_dims, tuple) and isinstance(result, tuple) and len(out_dims) == len(result):
        dims = []
        for d, r in zip(out_dims, result):
            dims.extend(_broadcast_out_dims(fname, d, r, len(jax.tree_util.tree_leaves(r, is_leaf=is_tensor))))
        return dims
    if isinstance(out_dims, tuple) and len(out_dims) == 1 and not isinstance(result, tuple):
        return [out_dims[0]] * count
    raise ValueError(
        f"vmap({fname}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the structure of "
        "`outputs`.")


class _random_mode:
    """Route the default generator's draws inside a vmapped function (the ``randomness`` flag)."""

    def __init__(self, randomness, keys):
        self.randomness = randomness
        self.keys = keys
        self.saved = None

    def __enter__(self):
        gen = RND.default_generator
        self.saved = gen.__dict__.get("next_key")
        if self.randomness == "error":
            def next_key():
                raise RuntimeError(RANDOM_IN_VMAP)
            gen.next_key = next_key
        elif self.randomness == "different":
            state = {"key": self.keys}

            def next_key():
                state["key"], sub = jax.random.split(state["key"])
                return sub
            gen.next_key = next_key
        return self

    def __exit__(self, *exc):
        gen = RND.default_generator
        if self.saved is None:
            gen.__dict__.pop("next_key", None)
        else:
            gen.next_key = self.saved
        return False
