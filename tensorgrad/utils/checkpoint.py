"""``tensorgrad.utils.checkpoint``: activation checkpointing (recompute a function in backward).

``checkpoint(fn, *args)`` runs ``fn`` without recording its graph, keeping only its inputs;
when backward reaches its outputs it runs ``fn`` again with grad enabled (with the random
state and autocast state of the first run) and backpropagates through that second run.

* ``use_reentrant=True`` (PyTorch's default when it is not passed, with its warning): the
  gradients of the tensors ``fn`` closes over (a module's parameters) are accumulated by a
  backward pass nested in the outer one, so ``autograd.grad`` and ``backward(inputs=...)`` are
  refused, and only positional tensor arguments that require grad make the output require it.
* ``use_reentrant=False``: the tensors ``fn`` reads that require grad (arguments, keyword
  arguments and closed-over tensors such as parameters) become inputs of the checkpoint's
  node, so every form of backward works and gradients reach them through the outer graph.

Difference from PyTorch: with ``use_reentrant=False`` PyTorch records ``fn``'s own graph (the
output's ``grad_fn`` is ``fn``'s last op); here the output's ``grad_fn`` is the checkpoint's
node, ``CheckpointFunctionBackward``, in both variants.
"""

import warnings

from .._autograd.engine import in_capturing_backward
from .._autograd.grad_mode import enable_grad, no_grad
from .._storage.watch import Watch
from .._tensor import Tensor
from .._api.random import get_rng_state, set_rng_state
from .. import _autocast
from ..autograd.backward import backward as _backward, grad as _grad
from ..autograd.function import Function

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError"]


class CheckpointError(RuntimeError):
    """The recomputation of a checkpointed function did not reproduce its first run."""

_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")

_SEQUENTIAL_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In "
    "version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, "
    "but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for "
    "more details on the differences between the two variants.")


class _Reads(Watch):
    """The tensors read while open that require grad, each once, in order of first read."""

    def __init__(self):
        self.tensors = []
        self._ids = set()

    def read(self, tensor):
        if tensor.requires_grad and id(tensor) not in self._ids:
            self._ids.add(id(tensor))
            self.tensors.append(tensor)


class _Run:
    """What the recomputation needs: the function, its non-tensor arguments, the random and
    autocast states of the first run."""

    def __init__(self, function, args, kwargs, preserve_rng_state):
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.rng_state = get_rng_state() if preserve_rng_state else None
        self.autocast = _autocast.snapshot()

    def again(self, args, kwargs):
        """Run the function again with grad enabled, in the first run's random and autocast
        states; the surrounding random state is kept."""
        outer = get_rng_state() if self.rng_state is not None else None
        if self.rng_state is not None:
            set_rng_state(self.rng_state)
        try:
            with enable_grad(), _autocast.restored(self.autocast):
                return self.function(*args, **kwargs)
        finally:
            if outer is not None:
                set_rng_state(outer)


def _as_tuple(outputs):
    return outputs if isinstance(outputs, tuple) else (outputs,)


def _detached(value):
    if isinstance(value, Tensor):
        return value.detach().requires_grad_(value.requires_grad)
    return value


class CheckpointFunction(Function):
    """The reentrant checkpoint: its inputs are the positional arguments; backward runs a
    nested backward pass through the recomputed function."""

    @staticmethod
    def forward(ctx, run, *args):
        ctx.run = run
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.args = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_positions])
        with no_grad():
            return run.function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        if in_capturing_backward():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` "
                "parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call "
                ".backward() without passing the `inputs` argument.")
        args = list(ctx.args)
        for i, t in zip(ctx.tensor_positions, ctx.saved_tensors):
            args[i] = _detached(t)
        outputs = _as_tuple(ctx.run.again(args, {}))
        roots = []
        grads = []
        for o, g in zip(outputs, grad_outputs):
            if isinstance(o, Tensor) and o.requires_grad:
                roots.append(o)
                grads.append(g)
        if not roots:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward(roots, grads)
        return (None,) + tuple(a.grad if isinstance(a, Tensor) else None for a in args)


class CheckpointNonReentrant(Function):
    """The non-reentrant checkpoint: its inputs are every tensor the function read that
    requires grad; backward differentiates the recomputed function with respect to them."""

    @staticmethod
    def forward(ctx, run, n_args, *tensors):
        ctx.run = run
        ctx.n_args = n_args
        ctx.save_for_backward(*tensors[:n_args])
        ctx.captured = tensors[n_args:]
        return run.outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        run = ctx.run
        args = [_detached(a) for a in run.args]
        kwargs = {k: _detached(v) for k, v in run.kwargs.items()}
        tensor_args = [a for a in args if isinstance(a, Tensor)] + [v for v in kwargs.values() if isinstance(v, Tensor)]
        outputs = _as_tuple(run.again(args, kwargs))
        if run.determinism_check != "none":
            _check_same_metadata(_as_tuple(run.outputs), outputs)
        targets = [t for t in tensor_args if t.requires_grad] + list(ctx.captured)
        roots = []
        grads = []
        for o, g in zip(outputs, grad_outputs):
            if isinstance(o, Tensor) and o.requires_grad and g is not None:
                roots.append(o)
                grads.append(g)
        found = _grad(roots, targets, grads, allow_unused=True) if roots and targets else [None] * len(targets)
        by_arg = iter(found[:len(targets) - len(ctx.captured)])
        arg_grads = [next(by_arg) if t.requires_grad else None for t in tensor_args]
        return (None, None) + tuple(arg_grads) + tuple(found[len(targets) - len(ctx.captured):])


def _metadata(t):
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


def _check_same_metadata(first, again):
    """PyTorch's determinism check (``determinism_check="default"``), on the function's outputs."""
    lines = []
    for i, (a, b) in enumerate(zip(first, again)):
        if isinstance(a, Tensor) and isinstance(b, Tensor) and _metadata(a) != _metadata(b):
            lines.append(f"tensor at position {i}:\nsaved metadata: {_metadata(a)}\n"
                         f"recomputed metadata: {_metadata(b)}\n")
    if lines or len(first) != len(again):
        raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have different "
                              "metadata than during the forward pass.\n" + "".join(lines))


def _checkpoint_non_reentrant(function, args, kwargs, preserve_rng_state, determinism_check):
    run = _Run(function, args, kwargs, preserve_rng_state)
    run.determinism_check = determinism_check
    with _Reads() as reads, no_grad():
        run.outputs = function(*args, **kwargs)
    tensor_args = [a for a in args if isinstance(a, Tensor)] + [v for v in kwargs.values() if isinstance(v, Tensor)]
    arg_ids = {id(t) for t in tensor_args}
    captured = [t for t in reads.tensors if id(t) not in arg_ids]
    return CheckpointNonReentrant.apply(run, len(tensor_args), *tensor_args, *captured)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its activations; recompute it in backward.

    Arguments:
      use_reentrant: pass it explicitly (``False`` is recommended); without it PyTorch warns
        and uses ``True``.
      preserve_rng_state (keyword, default True): replay the random draws of the first run.
    Returns what ``function`` returns.

    ``context_fn`` and ``debug`` are not supported (``TypeError``/``NotImplementedError``), nor
    a ``determinism_check`` other than ``"default"``.
    """
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant and (context_fn is not None or debug is not False):
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    if context_fn is not None or debug:
        raise NotImplementedError("checkpoint's context_fn and debug are not supported by tensorgrad")
    if determinism_check not in ("default", "none"):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got " + str(determinism_check))
    if use_reentrant:
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning,
                          stacklevel=2)
        return CheckpointFunction.apply(_Run(function, args, {}, preserve), *args)
    return _checkpoint_non_reentrant(function, args, kwargs, preserve, determinism_check)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules (or an ``nn.Sequential``) in ``segments`` chunks, checkpointing
    every chunk but the last."""
    if use_reentrant is None:
        warnings.warn(_SEQUENTIAL_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if hasattr(functions, "children") and hasattr(functions, "_modules"):
        functions = list(functions.children())

    def run_function(start, end):
        def forward(value):
            for j in range(start, end + 1):
                value = functions[j](value)
            return value
        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1)(input)
