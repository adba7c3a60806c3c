"""``autograd.Function``: user-defined ops with a hand-written backward.

On the tape, ``MyFn.apply`` runs ``forward`` under no_grad and records one node, an instance of
the class ``MyFnBackward``, which is also the ``ctx`` that forward and backward share (its graph
half is ``FunctionNode`` in ``tensorgrad/_autograd/node.py``; its ctx half is here). Inside a
JAX transform (``tensorgrad.func``, ``jax.grad`` over tensorgrad code) the same Function becomes
a ``jax.custom_vjp``, so the transform differentiates it with the user's backward too.
"""

import functools
import inspect
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._autograd.grad_mode import STATE, no_grad
from .._dtype import FROM_NP
from .._autograd.node import FunctionNode, SECOND_BACKWARD
from .._tensor import Tensor, _wrap, _version_error

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


def _check_saved(tensors, message):
    """PyTorch's TypeError (``message(position, value)``) for the first saved value that is
    neither a Tensor nor None."""
    for i, t in enumerate(tensors):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(message(i, t))


class FunctionCtx:
    """What ``forward``/``setup_context`` may tell ``backward`` through ``ctx``."""

    to_save = ()
    _saved = None           # ((tensor, version_holder, version), ...) packed after forward
    _freed = False
    dirty_tensors = ()
    non_differentiable = ()
    materialize_grads = True

    def save_for_forward(self, *tensors):
        """Keep ``tensors`` (or None) for ``jvp``, which reads them as ``ctx.saved_tensors``."""
        _check_saved(tensors, lambda i, t: (
            f"save_for_forward expects all arguments to be tensors; but got {type(t).__name__} at {i}"))
        self.for_forward = tensors

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` (or None) for backward; read them back as ``ctx.saved_tensors``."""
        _check_saved(tensors, lambda i, t: (
            f"save_for_backward can only save variables, but argument {i} is of type {type(t).__name__}"))
        self.to_save = tensors

    def mark_dirty(self, *tensors):
        """Declare inputs that forward modified in place (they are returned as outputs)."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that carry no gradient (``requires_grad=False``)."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        """False: backward receives None, not zeros, for outputs that got no gradient."""
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(SECOND_BACKWARD)
        if self._saved is None:
            return tuple(self.to_save)
        out = []
        for entry in self._saved:
            if entry is None:
                out.append(None)
                continue
            if entry[1].version != entry[2]:
                raise _version_error(self, entry)
            out.append(entry[0])
        return tuple(out)

    saved_variables = saved_tensors


class BackwardCFunction(FunctionCtx, FunctionNode):
    """The graph node of one ``Function.apply`` call; it doubles as the ``ctx``."""

    _forward_cls = None

    def _user_backward(self, grad_outputs):
        results = _call_backward(self._forward_cls, self, grad_outputs)
        return _check_grads(type(self).__name__, results, self._inputs)


def _call_backward(cls, ctx, grad_outputs):
    if cls.backward is Function.backward and cls.vjp is Function.vjp:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use "
            "it with backward mode AD.")
    fn = cls.backward if cls.backward is not Function.backward else cls.vjp
    results = fn(ctx, *grad_outputs)
    return results if isinstance(results, tuple) else (results,)


def _check_grads(name, results, inputs):
    """PyTorch's checks on what backward returned; gradients are reduced/cast to each input."""
    expected = len(inputs)
    if len(results) != expected:
        if len(results) > expected and all(r is None for r in results[expected:]):
            results = results[:expected]
        else:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients (expected {expected}, got {len(results)})")
    checked = []
    slot = 0
    for i, (meta, g) in enumerate(zip(inputs, results)):
        if meta is None:
            if g is not None:
                raise RuntimeError(
                    f"function {name} returned a gradient different than None at position {i + 1}, but the "
                    "corresponding forward input was not a Variable")
            checked.append(None)
            continue
        if g is not None and not isinstance(g, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
        if g is not None:
            g = _fit_grad(name, slot, g, meta)
        checked.append(g)
        slot += 1
    return checked


def _fit_grad(name, index, g, meta):
    shape, dtype = meta
    if tuple(g.shape) != tuple(shape):
        if not _expandable(shape, tuple(g.shape)):
            raise RuntimeError(
                f"Function {name} returned an invalid gradient at index {index} - got {list(g.shape)} but "
                f"expected shape compatible with {list(shape)}")
        g = _sum_to(g, shape)
    if g._data.dtype != dtype:
        g = g.to(FROM_NP[np.dtype(dtype)])
    return g


def _expandable(shape, target):
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != t and s != 1:
            return False
    return True


def _sum_to(g, shape):
    lead = g.dim() - len(shape)
    if lead:
        g = g.sum(tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if dims:
        g = g.sum(dims, keepdim=True)
    return g


class FunctionMeta(type):
    """Makes the node class ``<Name>Backward`` for every Function subclass."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls.__module__ = "torch.autograd.function"
        backward_cls.__qualname__ = name + "Backward"
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class of user-defined differentiable ops.

    Subclass it with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` (or
    ``forward(*args)`` plus ``setup_context(ctx, inputs, output)``), then call ``MyFn.apply``.

    >>> import tensorgrad as torch
    >>> class Exp(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         y = x.exp()
    ...         ctx.save_for_backward(y)
    ...         return y
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         y, = ctx.saved_tensors
    ...         return g * y
    >>> x = torch.tensor([0., 1.], requires_grad=True)
    >>> Exp.apply(x).sum().backward()
    >>> x.grad
    tensor([1.0000, 2.7183])
    """

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all static, so you "
            "should invoke them on the class itself. Instantiating an autograd function will raise an error in "
            "a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use "
            "it with backward mode AD.")

    @staticmethod
    def vjp(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use "
            "it with backward mode AD.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the Function on ``args``: record its node when an input requires grad."""
        args = _bind(cls, args, kwargs)
        tensors = [a for a in args if isinstance(a, Tensor)]
        traced = any(isinstance(t._data, jax.core.Tracer) for t in tensors)
        recording = STATE.grad and any(t.requires_grad for t in tensors)
        if traced and STATE.forward:
            return _apply_custom_jvp(cls, args)
        if traced and (STATE.functional or not recording):
            return _apply_custom_vjp(cls, args)
        return _apply_tape(cls, args, recording)


def _uses_setup_context(cls):
    return cls.setup_context is not Function.setup_context


def _bind(cls, args, kwargs):
    """Keyword arguments become positional ones, as the forward's signature orders them."""
    if not kwargs:
        return args
    old_style = not _uses_setup_context(cls)
    bound = inspect.signature(cls.forward).bind(*((None,) if old_style else ()), *args, **kwargs)
    bound.apply_defaults()
    return bound.args[1:] if old_style else bound.args


def _run_forward(cls, ctx, args):
    with no_grad():
        if _uses_setup_context(cls):
            output = cls.forward(*args)
            cls.setup_context(ctx, args, output)
        else:
            output = cls.forward(ctx, *args)
    return output


def _new_ctx(cls, args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
    ctx._inputs = tuple((a._data.shape, a._data.dtype) if isinstance(a, Tensor) else None for a in args)
    if STATE.anomaly:
        import traceback
        ctx._trace = traceback.format_stack()[:-3]
    return ctx


def _is_float(t):
    return jnp.issubdtype(t._data.dtype, jnp.inexact)


def _apply_tape(cls, args, recording):
    ctx = _new_ctx(cls, args)
    output = _run_forward(cls, ctx, args)
    single = not isinstance(output, tuple)
    outputs = (output,) if single else output
    input_ids = {id(a) for a in args if isinstance(a, Tensor)}
    dirty_ids = {id(t) for t in ctx.dirty_tensors}
    non_diff_ids = {id(t) for t in ctx.non_differentiable}
    if recording:
        edges = []
        for a in args:
            if isinstance(a, Tensor):
                edges.append(a._edge() if a.requires_grad else (None, 0))
        ctx._next = tuple(edges)
    metas = []
    results = []
    for k, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            metas.append(None)
            results.append(o)
            continue
        metas.append((o._data.shape, o._data.dtype))
        if id(o) in dirty_ids:
            if recording and o._grad_fn is None and o._rg:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            o._bump()
            out = o
        elif id(o) in input_ids or o._base is not None:
            out = o.detach()      # a new Tensor object on the same storage, as PyTorch returns
        else:
            out = o
        if recording and id(o) not in non_diff_ids and _is_float(o):
            out._grad_fn = ctx
            out._output_nr = k
            out._rg = True
        results.append(out)
    ctx._outputs = tuple(metas)
    if recording and ctx.to_save:
        saved = []
        for t in ctx.to_save:
            if t is None:
                saved.append(None)
                continue
            holder = t._vc or t._cell
            saved.append((t, holder, holder.version))
        ctx._saved = tuple(saved)
    return results[0] if single else tuple(results)


def _forward_on(cls, args, positions, arrays, state):
    """Run the Function's forward with ``arrays`` (tracers) in place of its tensor arguments;
    returns ``(ctx, outputs)`` and notes in ``state["layout"]`` which outputs are tensors."""
    call_args = list(args)
    for i, arr in zip(positions, arrays):
        call_args[i] = _wrap(arr)
    ctx = _new_ctx(cls, tuple(call_args))
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and _is_float(a) for a in call_args)
    output = _run_forward(cls, ctx, tuple(call_args))
    single = not isinstance(output, tuple)
    outputs = (output,) if single else output
    state["layout"] = (single, tuple(None if isinstance(o, Tensor) else o for o in outputs),
                       tuple(isinstance(o, Tensor) for o in outputs))
    return ctx, outputs


def _outputs_from(arrays, state):
    """The Function's results: its tensor outputs over ``arrays``, its other outputs as returned."""
    single, others, is_tensor = state["layout"]
    arrays = list(arrays)
    results = [_wrap(arrays.pop(0)) if flag else other for other, flag in zip(others, is_tensor)]
    return results[0] if single else tuple(results)


def _apply_custom_vjp(cls, args):
    """The Function as a ``jax.custom_vjp`` of its tensor inputs (inside JAX transforms)."""
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    state = {}

    def run(arrays):
        ctx, outputs = _forward_on(cls, args, positions, arrays, state)
        for o in outputs:
            if isinstance(o, Tensor) and id(o) in {id(t) for t in ctx.dirty_tensors}:
                o._bump()
        ctx._outputs = tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None for o in outputs)
        return ctx, tuple(o._data for o in outputs if isinstance(o, Tensor))

    @jax.custom_vjp
    def primal(*arrays):
        return run(arrays)[1]

    def fwd(*arrays):
        ctx, outs = run(arrays)
        state["ctx"] = ctx
        residuals = tuple(None if t is None else t._data for t in ctx.to_save)
        return outs, residuals

    def bwd(residuals, cotangents):
        ctx = state["ctx"]
        ctx.to_save = tuple(None if r is None else _wrap(r) for r in residuals)
        grads = list(cotangents)
        grad_outputs = []
        for meta in ctx._outputs:
            if meta is None:
                grad_outputs.append(None)
            else:
                grad_outputs.append(_wrap(grads.pop(0)))
        results = _call_backward(cls, ctx, grad_outputs)
        checked = _check_grads(type(ctx).__name__, results, ctx._inputs)
        out = []
        for i in positions:
            g = checked[i]
            shape, dtype = ctx._inputs[i]
            if not jnp.issubdtype(dtype, jnp.inexact):
                out.append(np.zeros(shape, jax.dtypes.float0))
            else:
                out.append(jnp.zeros(shape, dtype) if g is None else g._data)
        return tuple(out)

    primal.defvjp(fwd, bwd)
    return _outputs_from(primal(*[args[i]._data for i in positions]), state)


def _apply_custom_jvp(cls, args):
    """The Function as a ``jax.custom_jvp`` whose rule is its ``jvp`` (inside forward-mode
    transforms: ``func.jvp``, ``jacfwd``, ``hessian``)."""
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    layout = {}

    def run(arrays):
        ctx, outputs = _forward_on(cls, args, positions, arrays, layout)
        return ctx, tuple(o._data for o in outputs if isinstance(o, Tensor))

    @jax.custom_jvp
    def primal(*arrays):
        return run(arrays)[1]

    @primal.defjvp
    def primal_jvp(arrays, tangents):
        ctx, outs = run(arrays)
        ctx.to_save = getattr(ctx, "for_forward", ())
        grad_inputs = [None] * len(args)
        for i, t in zip(positions, tangents):
            grad_inputs[i] = _wrap(t)
        result = cls.jvp(ctx, *grad_inputs)
        result = result if isinstance(result, tuple) else (result,)
        tangent_out = []
        for o, t in zip(outs, [r for r, flag in zip(result, layout["layout"][2]) if flag]):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"jvp() of {cls.__name__} returned a {type(t).__name__}, expected Tensors or None")
            tangent_out.append(jnp.zeros_like(o) if t is None else t._data.astype(o.dtype))
        if len(tangent_out) != len(outs):
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of forward "
                               f"gradients (expected {len(outs)}, got {len(tangent_out)})")
        return outs, tuple(tangent_out)

    return _outputs_from(primal(*[args[i]._data for i in positions]), layout)


def once_differentiable(fn):
    """Decorate a backward that is not itself differentiable: it runs under no_grad."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper
