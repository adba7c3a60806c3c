"""``gradcheck`` / ``gradgradcheck``: the tape's gradients against central finite differences.

Run them in float64: finite differences in float32 are too coarse for the default tolerances
(a warning says so, as PyTorch's does).
"""

import warnings

import jax.numpy as jnp
import numpy as np

from .._autograd.grad_mode import no_grad, enable_grad
from .._tensor import Tensor, _wrap
from .backward import grad as autograd_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when the gradients do not match."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable(inputs):
    return [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _outputs(func, inputs):
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor))


def _numerical(func, inputs, positions, eps):
    """Per (output, input): the finite-difference Jacobian, shape (input numel, output numel)."""
    with no_grad():
        base = _outputs(func, inputs)
    result = [[None] * len(positions) for _ in base]
    for col, pos in enumerate(positions):
        x = inputs[pos]
        flat = np.array(x._data).reshape(-1)
        rows = [np.zeros((flat.size, max(o.numel(), 0)), dtype=np.asarray(o._data).dtype) for o in base]
        for k in range(flat.size):
            values = []
            for sign in (1.0, -1.0):
                bumped = flat.copy()
                bumped[k] = bumped[k] + sign * eps
                call = list(inputs)
                call[pos] = _wrap(jnp.asarray(bumped.reshape(x._data.shape)), requires_grad=True)
                with no_grad():
                    values.append(_outputs(func, call))
            for r, (plus, minus) in enumerate(zip(*values)):
                diff = (np.asarray(plus._data, dtype=np.float64) - np.asarray(minus._data, dtype=np.float64))
                rows[r][k] = (diff / (2 * eps)).reshape(-1)
        for r in range(len(base)):
            result[r][col] = rows[r]
    return result


def _analytical(func, inputs, positions):
    """Per (output, input): the Jacobian from the tape, one backward per output element."""
    with enable_grad():
        outs = _outputs(func, inputs)
    result = []
    for out in outs:
        row = []
        for pos in positions:
            row.append(np.zeros((inputs[pos].numel(), out.numel()), dtype=np.asarray(out._data).dtype))
        if out.requires_grad:
            for j in range(out.numel()):
                onehot = jnp.zeros(out.numel(), out._data.dtype).at[j].set(1).reshape(out._data.shape)
                with enable_grad():
                    grads = autograd_grad(out, [inputs[p] for p in positions], grad_outputs=_wrap(onehot),
                                          retain_graph=True, allow_unused=True)
                for c, g in enumerate(grads):
                    if g is not None:
                        row[c][:, j] = np.asarray(g._data).reshape(-1)
        result.append(row)
    return result


def _fail(message, raise_exception):
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """Compare the tape's Jacobians of ``func`` at ``inputs`` with central finite differences.

    Returns True, or raises ``GradcheckError`` (False with ``raise_exception=False``).

    >>> import tensorgrad as torch
    >>> x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(lambda t: (t ** 3).sin(), (x,))
    True
    """
    inputs = _as_tuple(inputs)
    positions = _differentiable(inputs)
    if not positions:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them have "
            "requires_grad=True.")
    for i in positions:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or complex. This check "
                "will likely fail if all the inputs are not of double precision floating point or complex. ",
                UserWarning, stacklevel=2)
    numerical = _numerical(func, inputs, positions, eps)
    analytical = _analytical(func, inputs, positions)
    for r, (num_row, ana_row) in enumerate(zip(numerical, analytical)):
        for c, (num, ana) in enumerate(zip(num_row, ana_row)):
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                return _fail(
                    f"Jacobian mismatch for output {r} with respect to input {positions[c]},\n"
                    f"numerical:{_wrap(jnp.asarray(num))}\nanalytical:{_wrap(jnp.asarray(ana))}\n",
                    raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """``gradcheck`` of the gradient itself: second derivatives against finite differences of the first.

    ``grad_outputs`` default to fixed pseudo-random float64 vectors that require grad.
    """
    inputs = _as_tuple(inputs)
    positions = _differentiable(inputs)
    with enable_grad():
        outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            _wrap(jnp.asarray(rng.standard_normal(o._data.shape), o._data.dtype), requires_grad=True) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def first_derivative(*args):
        xs, gs = args[:n], args[n:]
        with enable_grad():
            outputs = _outputs(func, xs)
            diff = [(o, g) for o, g in zip(outputs, gs) if o.requires_grad]
            grads = autograd_grad([o for o, _ in diff], [xs[p] for p in positions],
                                  grad_outputs=[g for _, g in diff], create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
