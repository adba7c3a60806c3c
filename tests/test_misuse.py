"""A catalogue of misuses: each raises PyTorch's exception (type, and message where tensorgrad
matches it) and leaves everything as it was.

A case is a function of the ``torch`` module (tensorgrad or PyTorch) that makes some tensors,
modules or optimizers and returns ``(state, misuse)`` or ``(state, misuse, followup)``:
``misuse()`` must raise (or, for the few misuses PyTorch only warns about, warn);
``state`` is snapshotted before and after (each tensor's value, dtype,
``.grad``, ``_version``, ``grad_fn``, ``requires_grad``, ``is_leaf``; a module's state dict and
mode; an optimizer's state dict), and must be unchanged; ``followup()`` is a correct operation
on the same objects (by default a backward through every float leaf that requires grad), which
must then work and give PyTorch's result. ``@misuse(Type)`` registers a case with the
exception type it expects, so the state checks run without PyTorch too; with PyTorch present
the type, message and warnings are compared with PyTorch running the same case.
"""

import io
import math
import warnings

import pytest

import tensorgrad as tg
from oracle import _oracle, torch as real_torch  # noqa: F401 - _oracle is an autouse fixture

CASES = []


def misuse(expected, *, message=True, xfail=None, xfail_torch=None, differential=True, pytorch_keeps_state=True):
    """Register a case that must raise ``expected`` (a class, or a function of the module giving it).

    Arguments:
      message: whether tensorgrad's message must equal PyTorch's (False where it is Python's own).
      xfail: a known tensorgrad bug that breaks the case (both tests fail on it).
      xfail_torch: a known difference from PyTorch (only the comparison fails on it).
      differential: False for a case of tensorgrad's own API (save/load), not run under PyTorch.
      pytorch_keeps_state: False where PyTorch itself leaves a partial change behind (tensorgrad
        changes nothing: the project's rule is stricter).
    """
    def register(fn):
        CASES.append((fn, expected, message, xfail, xfail_torch, differential, pytorch_keeps_state))
        return fn
    return register


def ones_case(name, shape, call, *args, requires_grad=False, **options):
    """Register the misuse ``call(torch, a)`` of one tensor ``a`` of ones of ``shape``;
    ``args`` and ``options`` are ``misuse``'s."""
    def case(torch):
        a = torch.ones(*shape, requires_grad=requires_grad)
        return [a], lambda: call(torch, a)
    case.__name__ = case.__qualname__ = name
    misuse(*args, **options)(case)


# ---------------------------------------------------------------------------- the harness

class _Identity:
    """Equal only to a snapshot of the very same object (``grad_fn`` must not be replaced)."""

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Identity) and self.obj is other.obj

    def __repr__(self):
        return f"<{type(self.obj).__name__}>"


def _is_tensor(obj):
    return type(obj).__name__ in ("Tensor", "Parameter") and hasattr(obj, "grad_fn")


def _tensor_state(t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grad = t.grad
    return (str(t.dtype), tuple(t.shape), repr(t.detach().tolist()), t.requires_grad, t.is_leaf,
            _Identity(t.grad_fn), t._version, None if grad is None else repr(grad.tolist()))


def _snapshot(state):
    out = []
    for obj in state:
        if _is_tensor(obj):
            out.append(_tensor_state(obj))
        elif hasattr(obj, "state_dict") and hasattr(obj, "training"):
            out.append(("module", obj.training, [(k, _tensor_state(v)) for k, v in
                                                 obj.state_dict(keep_vars=True).items()]))
        elif hasattr(obj, "param_groups"):
            out.append(("optimizer", repr(_plain(obj.state_dict()))))
        else:
            out.append(repr(_plain(obj)))
    return out


def _plain(obj):
    """Containers of tensors as containers of lists (comparable between the two libraries)."""
    if _is_tensor(obj):
        return ("tensor", str(obj.dtype), obj.detach().tolist())
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def _default_followup(state):
    """A backward through every float leaf that requires grad; their gradients."""
    leaves = [t for t in state if _is_tensor(t) and t.requires_grad and t.is_leaf]
    if not leaves:
        return None
    total = sum((t * t).sum() for t in leaves)
    total.backward()
    return [t.grad for t in leaves]


def _run(torch, fn):
    """The case under ``torch``: (exception, warnings, state before, after, followup's result)."""
    made = fn(torch)
    state, action = made[0], made[1]
    followup = made[2] if len(made) > 2 else (lambda: _default_followup(state))
    before = _snapshot(state)
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            action()
        except Exception as e:  # noqa: BLE001 - the exception is the result
            error = e
    after = _snapshot(state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = _plain(followup())
    return error, [(w.category.__name__, str(w.message)) for w in caught], before, after, result


def _params(kind):
    out = []
    for fn, expected, message, xfail, xfail_torch, differential, keeps in CASES:
        if kind == "torch" and not differential:
            continue
        marks = []
        reason = xfail or (xfail_torch if kind == "torch" else None)
        if reason:
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        out.append(pytest.param(fn, expected, message, keeps, id=fn.__name__, marks=marks))
    return out


# ---------------------------------------------------------------------------- shapes: broadcasting

@misuse(RuntimeError)
def add_broadcast(torch):
    a, b = torch.ones(2, requires_grad=True), torch.ones(3)
    return [a, b], lambda: a + b


@misuse(RuntimeError)
def mul_broadcast_2d(torch):
    a, b = torch.ones(2, 3), torch.ones(3, 2, requires_grad=True)
    return [a, b], lambda: a * b


@misuse(RuntimeError)
def add_inplace_cannot_grow(torch):
    a, b = torch.ones(1), torch.ones(3)
    return [a, b], lambda: a.add_(b), lambda: a.add_(b[:1])


@misuse(RuntimeError)
def sub_inplace_broadcast(torch):
    a, b = torch.ones(2, 3), torch.ones(2)
    return [a, b], lambda: a.sub_(b), lambda: a.sub_(b[:1])


@misuse(RuntimeError)
def where_broadcast(torch):
    c, a, b = torch.tensor([True, False]), torch.ones(2), torch.zeros(3)
    return [c, a, b], lambda: torch.where(c, a, b), lambda: torch.where(c, a, b[:2])


@misuse(RuntimeError)
def maximum_broadcast(torch):
    a, b = torch.ones(2, requires_grad=True), torch.ones(4)
    return [a, b], lambda: torch.maximum(a, b)


# ---------------------------------------------------------------------------- matmul

@misuse(RuntimeError)
def mm_of_a_vector(torch):
    a, b = torch.ones(2), torch.ones(2, 2)
    return [a, b], lambda: torch.mm(a, b)


@misuse(RuntimeError)
def mm_inner_mismatch(torch):
    a, b = torch.ones(2, 3, requires_grad=True), torch.ones(2, 3)
    return [a, b], lambda: a @ b, lambda: (a @ b.t()).sum().backward()


@misuse(RuntimeError)
def bmm_batch_mismatch(torch):
    a, b = torch.ones(2, 2, 3), torch.ones(3, 3, 2)
    return [a, b], lambda: torch.bmm(a, b)


@misuse(RuntimeError)
def dot_sizes(torch):
    a, b = torch.ones(2), torch.ones(3)
    return [a, b], lambda: a.dot(b)


@misuse(RuntimeError)
def mv_mismatch(torch):
    a, b = torch.ones(2, 3), torch.ones(2)
    return [a, b], lambda: torch.mv(a, b)


@misuse(RuntimeError)
def matmul_dtypes(torch):
    a, b = torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64)
    return [a, b], lambda: a @ b


@misuse(RuntimeError)
def matmul_of_scalars(torch):
    a = torch.tensor(2.0)
    return [a], lambda: a @ a


# ---------------------------------------------------------------------------- cat and stack

@misuse(RuntimeError)
def cat_ranks(torch):
    a, b = torch.ones(2), torch.ones(2, 2)
    return [a, b], lambda: torch.cat([a, b])


@misuse(RuntimeError)
def cat_sizes(torch):
    a, b = torch.ones(2, 3, requires_grad=True), torch.ones(2, 2)
    return [a, b], lambda: torch.cat([a, b])


@misuse(ValueError)
def cat_nothing(torch):
    return [], lambda: torch.cat([])


ones_case("cat_dim_out_of_range", (2,), lambda torch, a: torch.cat([a, a], dim=2), IndexError)


@misuse(RuntimeError)
def stack_shapes(torch):
    a, b = torch.ones(2), torch.ones(3)
    return [a, b], lambda: torch.stack([a, b])


@misuse(RuntimeError)
def stack_nothing(torch):
    return [], lambda: torch.stack([])


# ---------------------------------------------------------------------------- view and reshape

ones_case("view_numel", (2, 3), lambda torch, a: a.view(4), RuntimeError)
ones_case("view_two_inferred", (2, 3), lambda torch, a: a.view(-1, -1), RuntimeError)


@misuse(RuntimeError)
def view_of_non_contiguous(torch):
    a = torch.ones(2, 3, requires_grad=True)
    t = a.t()
    return [a, t], lambda: t.view(6), lambda: t.reshape(6).sum().backward()


@misuse(RuntimeError)
def reshape_numel(torch):
    a = torch.arange(6.)
    return [a], lambda: a.reshape(4, 2)


ones_case("flatten_dims_reversed", (2, 3, 4), lambda torch, a: a.flatten(2, 1), RuntimeError)
ones_case("squeeze_dim_out_of_range", (2, 1), lambda torch, a: a.squeeze(3), IndexError)
ones_case("permute_too_few_dims", (2, 3), lambda torch, a: a.permute(0), RuntimeError)
ones_case("permute_repeated_dim", (2, 3), lambda torch, a: a.permute(0, 0), RuntimeError)
ones_case("transpose_dim_out_of_range", (2, 3), lambda torch, a: a.transpose(0, 2), IndexError)
ones_case("expand_to_smaller", (3,), lambda torch, a: a.expand(2), RuntimeError)
ones_case("expand_to_fewer_dims", (2, 3), lambda torch, a: a.expand(3), RuntimeError)
ones_case("unflatten_sizes", (2, 6), lambda torch, a: a.unflatten(1, (4, 2)), RuntimeError)
ones_case("chunk_zero", (4,), lambda torch, a: a.chunk(0), RuntimeError)
ones_case("repeat_too_few_dims", (2, 2), lambda torch, a: a.repeat(2), RuntimeError)


# ---------------------------------------------------------------------------- indexing

ones_case("index_out_of_range", (3,), lambda torch, a: a[3], IndexError, requires_grad=True)
ones_case("too_many_indices", (3,), lambda torch, a: a[0, 0], IndexError)


@misuse(IndexError)
def float_index_tensor(torch):
    a, i = torch.ones(3), torch.tensor([0.0, 1.0])
    return [a, i], lambda: a[i]


@misuse(IndexError)
def mask_of_the_wrong_shape(torch):
    a, m = torch.ones(3), torch.tensor([True, False])
    return [a, m], lambda: a[m]


@misuse(IndexError)
def index_select_out_of_range(torch):
    a, i = torch.ones(3, 2), torch.tensor([0, 5])
    return [a, i], lambda: a.index_select(0, i)


@misuse(RuntimeError)
def index_select_float_index(torch):
    a, i = torch.ones(3), torch.tensor([0.0])
    return [a, i], lambda: torch.index_select(a, 0, i)


@misuse(RuntimeError)
def setitem_shape_mismatch(torch):
    a, v = torch.zeros(4), torch.ones(3)
    return [a, v], lambda: a.__setitem__(slice(0, 2), v), lambda: a.__setitem__(slice(0, 3), v)


@misuse(RuntimeError)
def masked_fill_with_a_float_mask(torch):
    a, m = torch.ones(3), torch.tensor([1.0, 0.0, 1.0])
    return [a, m], lambda: a.masked_fill(m, 0.0)


@misuse(IndexError)
def index_put_out_of_range(torch):
    a, i = torch.zeros(3), torch.tensor([4])
    return [a, i], lambda: a.index_put_((i,), torch.tensor(1.0))


# ---------------------------------------------------------------------------- gather and scatter

@misuse(RuntimeError)
def gather_index_out_of_bounds(torch):
    a, i = torch.ones(2, 3, requires_grad=True), torch.tensor([[0, 7]])
    return [a, i], lambda: a.gather(1, i)


@misuse(RuntimeError)
def gather_ranks(torch):
    a, i = torch.ones(2, 3), torch.tensor([0, 1])
    return [a, i], lambda: a.gather(1, i)


@misuse(RuntimeError)
def gather_float_index(torch):
    a, i = torch.ones(2, 3), torch.tensor([[0.0]])
    return [a, i], lambda: torch.gather(a, 1, i)


@misuse(RuntimeError, pytorch_keeps_state=False)
def scatter_index_out_of_bounds(torch):
    a, i, s = torch.zeros(2, 3), torch.tensor([[0, 9]]), torch.ones(1, 2)
    return [a, i, s], lambda: a.scatter_(1, i, s)


@misuse(RuntimeError)
def scatter_src_dtype(torch):
    a, i, s = torch.zeros(2, 3), torch.tensor([[0, 1]]), torch.ones(1, 2, dtype=torch.float64)
    return [a, i, s], lambda: a.scatter_(1, i, s)


@misuse(RuntimeError)
def scatter_add_index_larger_than_src(torch):
    a, i, s = torch.zeros(3), torch.tensor([0, 1, 2]), torch.ones(2)
    return [a, i, s], lambda: a.scatter_add_(0, i, s)


@misuse(IndexError)
def take_out_of_range(torch):
    a, i = torch.ones(2, 2), torch.tensor([4])
    return [a, i], lambda: torch.take(a, i)


# ---------------------------------------------------------------------------- convolutions, linear

# Modules of few shapes: initializing parameters of a new shape compiles (seconds, not milliseconds).

@misuse(RuntimeError)
def conv2d_of_a_matrix(torch):
    conv, x = torch.nn.Conv2d(1, 1, 3), torch.ones(5, 5)
    return [conv, x], lambda: conv(x)


@misuse(RuntimeError)
def conv2d_channels(torch):
    conv, x = torch.nn.Conv2d(1, 1, 3), torch.ones(1, 2, 5, 5)
    return [conv, x], lambda: conv(x), lambda: list(conv(x[:, :1]).shape)


@misuse(RuntimeError)
def conv2d_kernel_larger_than_input(torch):
    conv, x = torch.nn.Conv2d(1, 1, 3), torch.ones(1, 1, 2, 2)
    return [conv, x], lambda: conv(x)


@misuse(RuntimeError)
def conv1d_stride_zero(torch):
    x, w = torch.ones(1, 1, 5), torch.ones(1, 1, 2)
    return [x, w], lambda: torch.nn.functional.conv1d(x, w, stride=0)


@misuse(ValueError)
def conv_groups_not_dividing(torch):
    return [], lambda: torch.nn.Conv2d(3, 4, 3, groups=2)


@misuse(RuntimeError)
def linear_features(torch):
    layer, x = torch.nn.Linear(3, 2), torch.ones(4, 5)
    return [layer, x], lambda: layer(x), lambda: list(layer(x[:, :3]).shape)


@misuse(RuntimeError)
def functional_linear_weight(torch):
    x, w = torch.ones(2, 3), torch.ones(3, 2)
    return [x, w], lambda: torch.nn.functional.linear(x, w)


@misuse(RuntimeError)
def functional_linear_bias(torch):
    x, w, b = torch.ones(2, 3), torch.ones(4, 3), torch.ones(3)
    return [x, w, b], lambda: torch.nn.functional.linear(x, w, b)


@misuse(RuntimeError)
def maxpool_larger_than_input(torch):
    pool, x = torch.nn.MaxPool2d(4), torch.ones(1, 1, 2, 2)
    return [x], lambda: pool(x)


# ---------------------------------------------------------------------------- losses

@misuse(RuntimeError)
def mse_shapes(torch):
    x, y = torch.ones(2, 3, requires_grad=True), torch.ones(3, 2)
    return [x, y], lambda: torch.nn.functional.mse_loss(x, y)


@misuse(IndexError)
def cross_entropy_class_out_of_range(torch):
    x, y = torch.zeros(2, 3, requires_grad=True), torch.tensor([0, 5])
    return [x, y], lambda: torch.nn.functional.cross_entropy(x, y)


@misuse(RuntimeError)
def cross_entropy_float_target_shape(torch):
    x, y = torch.zeros(2, 3), torch.zeros(2, 4)
    return [x, y], lambda: torch.nn.functional.cross_entropy(x, y)


@misuse(ValueError)
def nll_loss_batch_mismatch(torch):
    x, y = torch.zeros(2, 3), torch.tensor([0, 1, 2])
    return [x, y], lambda: torch.nn.functional.nll_loss(x, y)


@misuse(RuntimeError)
def binary_cross_entropy_out_of_range(torch):
    x, y = torch.tensor([1.5, 0.5]), torch.ones(2)
    return [x, y], lambda: torch.nn.functional.binary_cross_entropy(x, y)


@misuse(ValueError)
def binary_cross_entropy_shapes(torch):
    x, y = torch.full((2,), 0.5), torch.ones(3)
    return [x, y], lambda: torch.nn.functional.binary_cross_entropy(x, y)


@misuse(ValueError)
def cross_entropy_target_batch(torch):
    x, y = torch.zeros(2, 3), torch.tensor([0.0, 1.0, 1.0])
    return [x, y], lambda: torch.nn.CrossEntropyLoss()(x, y)


# ---------------------------------------------------------------------------- norms

@misuse(RuntimeError)
def batchnorm_channels(torch):
    # as PyTorch, the module counts the batch before the functional refuses it
    bn, x = torch.nn.BatchNorm1d(3), torch.ones(4, 2)
    return [x], lambda: bn(x), lambda: (bn(torch.ones(4, 3)).sum().item(), bn.num_batches_tracked.item())


@misuse(ValueError)
def batchnorm1d_rank(torch):
    bn, x = torch.nn.BatchNorm1d(3), torch.ones(2, 3, 4, 4)
    return [bn, x], lambda: bn(x)


@misuse(ValueError)
def batchnorm2d_rank(torch):
    bn, x = torch.nn.BatchNorm2d(3), torch.ones(2, 3, 4)
    return [bn, x], lambda: bn(x)


@misuse(ValueError)
def batchnorm_one_value_per_channel(torch):
    bn, x = torch.nn.BatchNorm1d(3), torch.ones(1, 3)
    return [x], lambda: bn(x), lambda: (bn.running_mean.tolist(), bn.num_batches_tracked.item())


@misuse(RuntimeError)
def layernorm_shape(torch):
    ln, x = torch.nn.LayerNorm(4), torch.ones(2, 3)
    return [ln, x], lambda: ln(x)


@misuse(ValueError)
def groupnorm_groups(torch):
    return [], lambda: torch.nn.GroupNorm(4, 6)


@misuse(RuntimeError)
def functional_batch_norm_running_stats(torch):
    x, mean, var = torch.ones(2, 3), torch.zeros(2), torch.ones(2)
    return [x, mean, var], lambda: torch.nn.functional.batch_norm(x, mean, var)


# ---------------------------------------------------------------------------- dtypes

@misuse(RuntimeError)
def float_into_int_inplace(torch):
    a = torch.arange(3)
    return [a], lambda: a.add_(1.5), lambda: a.add_(1)


@misuse(RuntimeError)
def float_tensor_into_int_inplace(torch):
    a, b = torch.arange(3), torch.ones(3)
    return [a, b], lambda: a.mul_(b)


@misuse(RuntimeError)
def bool_subtraction(torch):
    a = torch.tensor([True, False])
    return [a], lambda: a - a


@misuse(RuntimeError)
def bool_negation(torch):
    a = torch.tensor([True, False])
    return [a], lambda: -a


@misuse(RuntimeError)
def out_cast_float_to_int(torch):
    a, out = torch.ones(2), torch.zeros(2, dtype=torch.int64)
    return [a, out], lambda: torch.add(a, a, out=out), lambda: torch.add(a, a, out=out.float())


ones_case("bitwise_and_of_floats", (2,), lambda torch, a: a & a, NotImplementedError)


@misuse(RuntimeError)
def int_tensor_requiring_grad(torch):
    return [], lambda: torch.ones(2, dtype=torch.int64, requires_grad=True)


@misuse(RuntimeError)
def mean_of_ints(torch):
    a = torch.arange(4)
    return [a], lambda: a.mean()


@misuse(RuntimeError)
def std_of_ints(torch):
    a = torch.arange(4)
    return [a], lambda: a.std()


@misuse(RuntimeError)
def out_of_a_tensor_requiring_grad(torch):
    a, out = torch.ones(2, requires_grad=True), torch.zeros(2)
    return [a, out], lambda: torch.exp(a, out=out)


# ---------------------------------------------------------------------------- autograd

@misuse(RuntimeError)
def backward_twice(torch):
    a = torch.ones(2, requires_grad=True)
    y = (a.exp() * 2).sum()
    y.backward()
    return [a, y], lambda: y.backward(), lambda: (a * 3).sum().backward()


@misuse(RuntimeError)
def backward_of_a_non_scalar(torch):
    a = torch.ones(2, requires_grad=True)
    y = a * 2
    return [a, y], lambda: y.backward(), lambda: y.backward(torch.ones(2))


@misuse(RuntimeError)
def backward_gradient_shape(torch):
    a = torch.ones(2, requires_grad=True)
    y = a * 2
    return [a, y], lambda: y.backward(torch.ones(3)), lambda: y.backward(torch.ones(2))


ones_case("backward_without_grad", (2,), lambda torch, a: a.sum().backward(), RuntimeError)
ones_case("inplace_on_a_leaf_requiring_grad", (2,), lambda torch, a: a.mul_(2), RuntimeError, requires_grad=True)


@misuse(RuntimeError)
def saved_tensor_modified_then_backward(torch):
    a = torch.ones(2, requires_grad=True)
    b = a * 1
    y = b.exp()
    y.add_(1)
    return [a, b, y], lambda: y.sum().backward(), lambda: (b * 2).sum().backward()


@misuse(RuntimeError)
def requires_grad_on_ints(torch):
    a = torch.arange(3)
    return [a], lambda: a.requires_grad_()


@misuse(RuntimeError)
def grad_of_an_unused_input(torch):
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    y = (a * 2).sum()
    # as in PyTorch the refused call has run the backward, which freed the graph
    return [a, b], lambda: torch.autograd.grad(y, [a, b]), lambda: torch.autograd.grad((a * 2).sum(), [a])


@misuse(RuntimeError)
def grad_of_an_input_not_requiring_grad(torch):
    a, b = torch.ones(2, requires_grad=True), torch.ones(2)
    y = (a * b).sum()
    return [a, b, y], lambda: torch.autograd.grad(y, [b])


@misuse(RuntimeError)
def grad_of_a_non_scalar(torch):
    a = torch.ones(2, requires_grad=True)
    y = a * 2
    return [a, y], lambda: torch.autograd.grad(y, a)


ones_case("hook_on_a_tensor_without_grad", (2,), lambda torch, a: a.register_hook(lambda g: g), RuntimeError)


@misuse(RuntimeError)
def detach_inplace_of_a_view(torch):
    a = torch.ones(4, requires_grad=True)
    v = a[:2]
    return [a, v], lambda: v.detach_()


@misuse(RuntimeError)
def requires_grad_off_on_a_non_leaf(torch):
    a = torch.ones(2, requires_grad=True)
    y = a * 2
    return [a, y], lambda: setattr(y, "requires_grad", False)


ones_case("retain_grad_without_grad", (2,), lambda torch, a: a.retain_grad(), RuntimeError)
ones_case("assign_grad_of_the_wrong_shape", (2,), lambda torch, a: setattr(a, "grad", torch.ones(3)),
          RuntimeError, requires_grad=True)


ones_case("assign_grad_that_is_not_a_tensor", (2,), lambda torch, a: setattr(a, "grad", [1.0, 2.0]),
          TypeError, requires_grad=True)


ones_case("numpy_of_a_tensor_requiring_grad", (2,), lambda torch, a: a.numpy(), RuntimeError, requires_grad=True)


@misuse(RuntimeError)
def backward_through_no_grad_result(torch):
    a = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = (a * 2).sum()
    return [a, y], lambda: y.backward()


@misuse(RuntimeError)
def grad_twice_without_retain_graph(torch):
    a = torch.ones(2, requires_grad=True)
    y = (a.sin() * a).sum()
    torch.autograd.grad(y, a)
    return [a, y], lambda: torch.autograd.grad(y, a)


@misuse(UserWarning)
def grad_of_a_non_leaf(torch):
    a = torch.ones(2, requires_grad=True)
    y = a * 2
    return [a, y], lambda: y.grad


ones_case("tensor_of_a_tensor", (2,), lambda torch, a: torch.tensor(a), UserWarning, requires_grad=True)
ones_case("softmax_without_dim", (2, 3), lambda torch, a: torch.nn.functional.softmax(a),
          UserWarning, requires_grad=True)


@misuse(RuntimeError)
def post_accumulate_hook_on_a_non_leaf(torch):
    a = torch.ones(2, requires_grad=True)
    y = a * 2
    return [a, y], lambda: y.register_post_accumulate_grad_hook(lambda t: None)


# ---------------------------------------------------------------------------- views

ones_case("inplace_on_a_view_of_a_leaf", (3,), lambda torch, a: a[0].mul_(2), RuntimeError, requires_grad=True)


@misuse(RuntimeError)
def inplace_on_a_no_grad_view_with_grad(torch):
    a = torch.ones(3, requires_grad=True)
    b = a * 1
    with torch.no_grad():
        v = b[:2]
    return [a, b, v], lambda: v.mul_(2)


@misuse(RuntimeError)
def inplace_on_an_unbind_output(torch):
    a = torch.ones(2, 2, requires_grad=True)
    b = a * 1
    first, _ = b.unbind(0)
    return [a, b, first], lambda: first.mul_(2)


@misuse(RuntimeError)
def inplace_into_an_expanded_tensor(torch):
    a = torch.ones(1, 3)
    e = a.expand(2, 3)
    return [a, e], lambda: e.add_(1)


ones_case("resize_of_a_tensor_requiring_grad", (2,), lambda torch, a: a.resize_(3),
          RuntimeError, requires_grad=True)


@misuse(RuntimeError)
def requires_grad_on_a_view_of_a_non_leaf(torch):
    a = torch.ones(3, requires_grad=True)
    v = (a * 2)[:2]
    return [a, v], lambda: setattr(v, "requires_grad", False)


# ---------------------------------------------------------------------------- nn

@misuse(RuntimeError, pytorch_keeps_state=False)
def load_state_dict_missing_key(torch):
    layer = torch.nn.Linear(3, 2)
    state = {"weight": torch.zeros(2, 3)}
    return [layer], lambda: layer.load_state_dict(state), lambda: layer.load_state_dict(state, strict=False)


@misuse(RuntimeError, pytorch_keeps_state=False)
def load_state_dict_unexpected_key(torch):
    layer = torch.nn.Linear(3, 2)
    state = {"weight": torch.zeros(2, 3), "bias": torch.zeros(2), "scale": torch.ones(1)}
    return [layer], lambda: layer.load_state_dict(state)


@misuse(RuntimeError, pytorch_keeps_state=False)
def load_state_dict_shape(torch):
    layer = torch.nn.Linear(3, 2)
    state = {"weight": torch.zeros(3, 3), "bias": torch.zeros(2)}
    return [layer], lambda: layer.load_state_dict(state)


@misuse(RuntimeError, pytorch_keeps_state=False)
def load_state_dict_shape_in_a_submodule(torch):
    model = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(3, 2))
    state = dict(model.state_dict())
    state["1.weight"] = torch.zeros(2, 2)
    return [model], lambda: model.load_state_dict(state)


@misuse(IndexError)
def embedding_index_out_of_range(torch):
    emb, i = torch.nn.Embedding.from_pretrained(torch.ones(4, 2)), torch.tensor([1, 4])
    return [emb, i], lambda: emb(i)


@misuse(RuntimeError)
def embedding_float_indices(torch):
    emb, i = torch.nn.Embedding.from_pretrained(torch.ones(4, 2)), torch.tensor([1.0])
    return [emb, i], lambda: emb(i)


@misuse(KeyError)
def buffer_name_with_a_dot(torch):
    m = torch.nn.Module()
    return [m], lambda: m.register_buffer("a.b", torch.ones(1))


@misuse(TypeError)
def add_module_of_a_non_module(torch):
    m = torch.nn.Module()
    return [m], lambda: m.add_module("x", 3)


@misuse(TypeError)
def assign_a_tensor_to_a_parameter_name(torch):
    layer = torch.nn.Linear(3, 2)
    return [layer], lambda: setattr(layer, "weight", torch.zeros(2, 3))


@misuse(ValueError)
def dropout_probability(torch):
    return [], lambda: torch.nn.Dropout(1.5)


@misuse(IndexError)
def sequential_index(torch):
    model = torch.nn.Sequential(torch.nn.ReLU())
    return [model], lambda: model[3]


@misuse(RuntimeError)
def parameter_of_ints(torch):
    return [], lambda: torch.nn.Parameter(torch.arange(3))


@misuse(IndexError)
def softmax_dim(torch):
    x = torch.ones(2, 3)
    return [x], lambda: torch.softmax(x, 2)


@misuse(RuntimeError)
def rnn_input_size(torch):
    rnn, x = torch.nn.RNN(3, 2), torch.ones(4, 1, 5)
    return [rnn, x], lambda: rnn(x)


@misuse(RuntimeError)
def pad_of_odd_length(torch):
    x = torch.ones(2, 3)
    return [x], lambda: torch.nn.functional.pad(x, (1, 2, 3))


# ---------------------------------------------------------------------------- optim

@misuse(ValueError)
def optimize_a_non_leaf(torch):
    a = torch.ones(2, requires_grad=True)
    b = a * 2
    return [a, b], lambda: torch.optim.SGD([b], lr=0.1)


ones_case("negative_learning_rate", (2,), lambda torch, a: torch.optim.SGD([a], lr=-0.1),
          ValueError, requires_grad=True)


ones_case("parameter_in_two_groups", (2,), lambda torch, a: torch.optim.SGD([{"params": [a]}, {"params": [a]}], lr=0.1),
          ValueError, requires_grad=True)


@misuse(ValueError)
def empty_parameter_list(torch):
    return [], lambda: torch.optim.Adam([])


ones_case("params_that_are_a_tensor", (2,), lambda torch, a: torch.optim.SGD(a, lr=0.1), TypeError, requires_grad=True)
ones_case("adam_beta", (2,), lambda torch, a: torch.optim.Adam([a], betas=(1.5, 0.9)), ValueError, requires_grad=True)
ones_case("negative_momentum", (2,), lambda torch, a: torch.optim.SGD([a], lr=0.1, momentum=-1.0),
          ValueError, requires_grad=True)


ones_case("negative_weight_decay", (2,), lambda torch, a: torch.optim.Adam([a], weight_decay=-1.0),
          ValueError, requires_grad=True)


@misuse(ValueError)
def optimizer_state_of_other_groups(torch):
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    opt = torch.optim.SGD([a], lr=0.1)
    other = torch.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).state_dict()
    return [a, opt], lambda: opt.load_state_dict(other)


@misuse(ValueError)
def add_param_group_twice(torch):
    a = torch.ones(2, requires_grad=True)
    opt = torch.optim.SGD([a], lr=0.1)
    return [a, opt], lambda: opt.add_param_group({"params": [a]})


@misuse(TypeError)
def scheduler_of_a_non_optimizer(torch):
    return [], lambda: torch.optim.lr_scheduler.StepLR([1, 2], step_size=1)


# ---------------------------------------------------------------------------- data

def _dataset(torch):
    return torch.utils.data.TensorDataset(torch.arange(6.).reshape(3, 2), torch.arange(3))


@misuse(ValueError)
def dataloader_batch_size_zero(torch):
    return [], lambda: torch.utils.data.DataLoader(_dataset(torch), batch_size=0)


@misuse(ValueError)
def dataloader_sampler_and_shuffle(torch):
    ds = _dataset(torch)
    sampler = torch.utils.data.SequentialSampler(ds)
    return [], lambda: torch.utils.data.DataLoader(ds, sampler=sampler, shuffle=True)


@misuse(ValueError)
def dataloader_batch_sampler_and_batch_size(torch):
    ds = _dataset(torch)
    batches = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(ds), 2, False)
    return [], lambda: torch.utils.data.DataLoader(ds, batch_sampler=batches, batch_size=2)


@misuse(ValueError)
def dataloader_negative_workers(torch):
    return [], lambda: torch.utils.data.DataLoader(_dataset(torch), num_workers=-1)


@misuse(TypeError)
def dataloader_sampler_that_is_not_iterable(torch):
    loader = torch.utils.data.DataLoader(_dataset(torch), sampler=5)
    return [], lambda: list(loader)


@misuse(ValueError)
def random_split_lengths(torch):
    return [], lambda: torch.utils.data.random_split(_dataset(torch), [1, 1])


@misuse(AssertionError)
def tensor_dataset_sizes(torch):
    return [], lambda: torch.utils.data.TensorDataset(torch.ones(3), torch.ones(2))


@misuse(ValueError)
def batch_sampler_batch_size(torch):
    return [], lambda: torch.utils.data.BatchSampler(range(4), 0, False)


# ---------------------------------------------------------------------------- creation and conversion

@misuse(ValueError)
def ragged_nested_list(torch):
    return [], lambda: torch.tensor([[1, 2], [3]])


@misuse(RuntimeError)
def negative_dimension(torch):
    return [], lambda: torch.zeros(-1)


@misuse(RuntimeError)
def arange_step_zero(torch):
    return [], lambda: torch.arange(0, 3, 0)


ones_case("item_of_many_elements", (2,), lambda torch, a: a.item(), RuntimeError)
ones_case("truth_of_many_elements", (2,), lambda torch, a: bool(a), RuntimeError)
ones_case("int_of_many_elements", (2,), lambda torch, a: int(a), ValueError)


@misuse(TypeError)
def len_of_a_scalar(torch):
    a = torch.tensor(1.0)
    return [a], lambda: len(a)


@misuse(TypeError)
def iterate_a_scalar(torch):
    a = torch.tensor(1.0)
    return [a], lambda: iter(a)


ones_case("topk_larger_than_the_dim", (3,), lambda torch, a: a.topk(4), RuntimeError, requires_grad=True)
ones_case("sum_dim_out_of_range", (2,), lambda torch, a: a.sum(1), IndexError, requires_grad=True)
ones_case("max_of_an_empty_tensor", (0,), lambda torch, a: a.max(), RuntimeError)
ones_case("argmax_of_an_empty_tensor", (0,), lambda torch, a: a.argmax(), IndexError)
ones_case("add_a_string", (2,), lambda torch, a: a + "1", TypeError, requires_grad=True)


@misuse(TypeError, message=False)
def unknown_keyword(torch):
    # tensorgrad's message is Python's own (ARCHITECTURE: implementations take no **kwargs)
    a = torch.ones(2)
    return [a], lambda: torch.sum(a, dims=0)


@misuse(RuntimeError)
def multinomial_negative_probabilities(torch):
    p = torch.tensor([0.5, -0.1])
    return [p], lambda: torch.multinomial(p, 1)


# ---------------------------------------------------------------------------- more argument checks

@misuse(RuntimeError)
def copy_of_the_wrong_shape(torch):
    a, b = torch.zeros(2, 3), torch.ones(3, 2)
    return [a, b], lambda: a.copy_(b), lambda: a.copy_(b.t())


@misuse(RuntimeError)
def one_hot_class_too_large(torch):
    i = torch.tensor([3])
    return [i], lambda: torch.nn.functional.one_hot(i, 2)


ones_case("cumsum_dim", (2,), lambda torch, a: a.cumsum(3), IndexError, requires_grad=True)


@misuse(RuntimeError)
def randint_bounds(torch):
    return [], lambda: torch.randint(5, 2, (3,))


@misuse(RuntimeError)
def normal_negative_std(torch):
    return [], lambda: torch.normal(0.0, -1.0, (2,))


@misuse(RuntimeError)
def eye_negative(torch):
    return [], lambda: torch.eye(-1)


ones_case("unfold_window_too_large", (3,), lambda torch, a: a.unfold(0, 5, 1), RuntimeError)
ones_case("clamp_without_bounds", (2,), lambda torch, a: a.clamp(), RuntimeError, requires_grad=True)


@misuse(RuntimeError)
def einsum_sizes(torch):
    a, b = torch.ones(2, 3), torch.ones(4, 2)
    return [a, b], lambda: torch.einsum("ij,jk->ik", a, b)


ones_case("flip_repeated_dim", (2, 2), lambda torch, a: torch.flip(a, (0, 0)), RuntimeError)
ones_case("stack_dim_out_of_range", (2,), lambda torch, a: torch.stack([a, a], dim=3), IndexError)


@misuse(RuntimeError, xfail_torch="masked_select's broadcast error names input as tensor a; PyTorch names the "
                                  "mask a (_api/indexing.py, 'views')")
def masked_select_shape(torch):
    a, m = torch.ones(2, 3), torch.tensor([[True], [False], [True]])
    return [a, m], lambda: a.masked_select(m)


ones_case("outer_of_matrices", (2, 2), lambda torch, a: torch.outer(a, a), RuntimeError)
ones_case("nesterov_without_momentum", (2,), lambda torch, a: torch.optim.SGD([a], lr=0.1, nesterov=True),
          ValueError, requires_grad=True)


@misuse(RuntimeError)
def clip_grad_norm_of_a_non_finite_gradient(torch):
    a = torch.ones(2, requires_grad=True)
    a.grad = torch.tensor([1.0, float("inf")])
    return [a], lambda: torch.nn.utils.clip_grad_norm_([a], 1.0, error_if_nonfinite=True)


@misuse(TypeError)
def load_state_dict_of_none(torch):
    layer = torch.nn.Linear(3, 2)
    return [layer], lambda: layer.load_state_dict(None)


@misuse(TypeError)
def register_parameter_of_a_tensor(torch):
    m = torch.nn.Module()
    return [m], lambda: m.register_parameter("w", torch.ones(2))


@misuse(RuntimeError)
def linear_of_doubles(torch):
    layer, x = torch.nn.Linear(3, 2), torch.ones(1, 3, dtype=torch.float64)
    return [layer, x], lambda: layer(x), lambda: list(layer(x.float()).shape)


@misuse(RuntimeError)
def addmm_dtypes(torch):
    b, x, w = torch.ones(2), torch.ones(1, 3, dtype=torch.float64), torch.ones(3, 2)
    return [b, x, w], lambda: torch.addmm(b, x, w)


@misuse(RuntimeError)
def linear_bias_dtype(torch):
    x, w, b = torch.ones(2, 1, 3), torch.ones(2, 3), torch.ones(2, dtype=torch.float64)
    return [x, w, b], lambda: torch.nn.functional.linear(x, w, b)


@misuse(IndexError)
def subset_index(torch):
    subset = torch.utils.data.Subset(_dataset(torch), [0, 5])
    return [], lambda: subset[1]


ones_case("dropout_functional_probability", (2,), lambda torch, a: torch.nn.functional.dropout(a, p=2.0), ValueError)


@misuse(RuntimeError)
def out_into_a_leaf_requiring_grad(torch):
    a, leaf = torch.ones(2), torch.zeros(2, requires_grad=True)
    return [a, leaf], lambda: torch.add(a, 1, out=leaf)


@misuse(RuntimeError)
def autograd_backward_gradient_shape(torch):
    a = torch.ones(2, requires_grad=True)
    y = a * 2
    return [a, y], lambda: torch.autograd.backward([y], [torch.ones(3)]), lambda: y.sum().backward()


@misuse(RuntimeError)
def index_add_source_shape(torch):
    a, i, src = torch.zeros(3, 2), torch.tensor([0, 1]), torch.ones(3, 2)
    return [a, i, src], lambda: a.index_add_(0, i, src)


@misuse(lambda torch: torch.linalg.LinAlgError)
def inverse_of_a_singular_matrix(torch):
    a = torch.zeros(2, 2)
    return [a], lambda: torch.linalg.inv(a)


# ---------------------------------------------------------------------------- save and load

def _pickling_a_local_lambda_error(torch):
    """What pickle raises for a local lambda (AttributeError before Python 3.14, PicklingError since)."""
    try:
        __import__("pickle").dumps(lambda: 0)
    except Exception as e:  # noqa: BLE001 - the type is what is asked
        return type(e)


@misuse(_pickling_a_local_lambda_error)
def save_a_lambda(torch):
    # not JSON, so pickled, as PyTorch pickles it: pickle refuses a local lambda (PyTorch has
    # written part of the archive by then, tensorgrad nothing: test_serialization checks it)
    return [], lambda: torch.save({"f": lambda: 0}, io.BytesIO())


@misuse(RuntimeError, differential=False)
def load_a_text_file(torch):
    # torch.load(weights_only=True) raises pickle.UnpicklingError; tensorgrad documents RuntimeError
    return [], lambda: tg.load(io.BytesIO(b"not a checkpoint"))


@misuse(lambda torch: __import__("pickle").UnpicklingError, message=False)
def load_a_module_weights_only(torch):
    # a whole module is pickled; weights_only (the default) refuses it, running nothing
    layer = torch.nn.Linear(2, 2)
    buf = io.BytesIO()
    torch.save(layer, buf)
    buf.seek(0)
    return [layer], lambda: torch.load(buf)


@misuse(RuntimeError)
def load_weights_only_with_a_pickle_module(torch):
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buf)
    buf.seek(0)
    return [], lambda: torch.load(buf, pickle_module=__import__("pickle"), weights_only=True)


# ---------------------------------------------------------------------------- the tests

@pytest.mark.parametrize("fn, expected, message, pytorch_keeps_state", _params("tensorgrad"))
def test_misuse_raises_and_changes_nothing_without_torch(fn, expected, message, pytorch_keeps_state):
    error, warned, before, after, _ = _run(tg, fn)
    _check_outcome(_resolve(expected, tg), error, warned)
    assert after == before


@pytest.mark.parametrize("fn, expected, message, pytorch_keeps_state", _params("torch"))
def test_misuse_matches_pytorch(fn, expected, message, pytorch_keeps_state):
    error, warned, _, after, result = _run(tg, fn)
    their_error, their_warned, their_before, their_after, their_result = _run(real_torch, fn)
    _check_outcome(_resolve(expected, real_torch), their_error, their_warned)
    _check_outcome(_resolve(expected, tg), error, warned)
    if message:
        assert str(error) == str(their_error)
        assert warned == their_warned
    assert (their_after == their_before) == pytorch_keeps_state, "PyTorch's state after the misuse is not as declared"
    assert _close(result, their_result), f"after the misuse: {result} != PyTorch's {their_result}"


def _resolve(expected, torch):
    """The expected class: a builtin, or one that each library defines (``torch.linalg.LinAlgError``)."""
    return expected if isinstance(expected, type) else expected(torch)


def _check_outcome(expected, error, warned):
    """The misuse raised ``expected`` or, for a Warning class, warned it and went on."""
    if issubclass(expected, Warning):
        assert error is None and expected.__name__ in [category for category, _ in warned], (error, warned)
    else:
        assert type(error) is expected, f"expected {expected.__name__}, got {type(error).__name__}: {error}"


def _close(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_close(a[k], b[k]) for k in a)
    return a == b


def test_the_snapshot_sees_every_kind_of_change_without_torch():
    changes = [
        lambda a, y, m: a.data.add_(1),                     # the value
        lambda a, y, m: (a + y).sum(),                      # the control: an out-of-place op changes nothing
        lambda a, y, m: setattr(a, "grad", tg.ones(2)),   # .grad
        lambda a, y, m: y.mul_(2),                          # _version and grad_fn
        lambda a, y, m: y.retain_grad() or y.sum().backward(),   # .grad of a non-leaf
        lambda a, y, m: setattr(a, "requires_grad", False),  # requires_grad
        lambda a, y, m: y.detach_(),                        # is_leaf
        lambda a, y, m: m.eval(),                           # a module's mode
        lambda a, y, m: m.weight.data.fill_(0),             # a module's parameters
    ]
    for k, change in enumerate(changes):
        a = tg.ones(2, requires_grad=True)
        y = a * 3
        m = tg.nn.Linear(3, 2)
        before = _snapshot([a, y, m])
        change(a, y, m)
        assert (_snapshot([a, y, m]) == before) == (k == 1), k


def test_the_catalogue_is_large_and_its_cases_are_distinct_without_torch():
    names = [case[0].__name__ for case in CASES]
    assert len(names) >= 100 and len(set(names)) == len(names)
