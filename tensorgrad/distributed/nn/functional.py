"""``torch.distributed.nn.functional``: collectives that autograd differentiates, as PyTorch's.

Each returns new tensors (the input is not written) and records a node whose backward is
PyTorch's: ``all_reduce``'s gradient is the all-reduced (summed) gradient, ``all_gather``'s is the
sum over the processes of the gradient of this rank's slot, ``broadcast``'s is the summed gradient
on ``src`` (zero elsewhere), ``reduce_scatter``'s is the all-gathered gradient. Across processes
they run eagerly on JAX's collectives (``tensorgrad.distributed``), so not inside
``tensorgrad.compile``; with one process they are differentiable identities. As in PyTorch 2.13,
each call warns that it is deprecated (``FutureWarning``).
"""

import warnings

import jax

from ...autograd.function import Function
from ..._api.conversion import clone
from ..._api.creation import zeros_like
from .. import ReduceOp, _require
from .. import _collectives as C


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.group = group
        out = clone(tensor)
        C.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, _AllReduce.apply(ReduceOp.SUM, ctx.group, grad_output)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        outs = [zeros_like(tensor) for _ in range(jax.process_count())]
        C.all_gather(outs, tensor, group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        grads = [g if g is not None else None for g in grad_outputs]
        mine = zeros_like(grads[jax.process_index()])
        C.reduce_scatter(mine, [clone(g) for g in grads], op=ReduceOp.SUM, group=ctx.group)
        return None, mine


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group = src, group
        out = clone(tensor)
        C.broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        grad = clone(grad_output)
        C.all_reduce(grad, op=ReduceOp.SUM, group=ctx.group)
        if jax.process_index() != ctx.src:
            grad = zeros_like(grad)
        return None, None, grad


class _Reduce_Scatter(Function):
    @staticmethod
    def forward(ctx, op, group, output, *input_list):
        ctx.group = group
        out = clone(output)
        C.reduce_scatter(out, [clone(t) for t in input_list], op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        outs = [zeros_like(grad_output) for _ in range(jax.process_count())]
        C.all_gather(outs, grad_output, group=ctx.group)
        return (None, None, None) + tuple(outs)


def _deprecated(name, instead):
    # PyTorch 2.13's FutureWarning, word for word (tensorgrad has no _functional_collectives)
    warnings.warn(f"torch.distributed.nn.functional.{name} is deprecated, use "
                  f"torch.distributed._functional_collectives.{instead} instead.", FutureWarning, stacklevel=3)


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """``tensor`` reduced over the processes, as a new tensor; differentiable."""
    _deprecated("all_reduce", "all_reduce")
    C._check_tensor(tensor)
    _require(group)
    C._check_op(op, tensor)
    return _AllReduce.apply(op, group, tensor)


def all_gather(tensor, group=None):
    """Every process's ``tensor``, a tuple of one tensor per rank; differentiable."""
    _deprecated("all_gather", "all_gather_single")
    C._check_tensor(tensor)
    _require(group)
    return _AllGather.apply(group, tensor)


def broadcast(tensor, src, group=None):
    """Rank ``src``'s ``tensor``, as a new tensor; differentiable."""
    _deprecated("broadcast", "broadcast")
    C._check_tensor(tensor)
    _require(group)
    return _Broadcast.apply(src, group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None):
    """``input_list[rank]`` reduced over the processes, as a new tensor shaped like ``output``;
    differentiable with respect to ``input_list``."""
    _deprecated("reduce_scatter", "reduce_scatter_single")
    C._check_tensor(output, "output")
    C._check_list(input_list, "input_list")
    _require(group)
    return _Reduce_Scatter.apply(op, group, output, *input_list)


__all__ = ["all_reduce", "all_gather", "broadcast", "reduce_scatter"]
