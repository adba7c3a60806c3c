"""Complex numbers: views between complex and real layouts, conjugation, polar form.

``view_as_real``, ``view_as_complex`` and ``conj`` are views: writing through them reaches
the storage by their inverses (``views.INVERSES``), so ``x.real.zero_()`` changes ``x``.
"""

import jax.numpy as jnp
from jax import lax

from .registry import op, with_tangent


@op("view_as_real", grad_fn="ViewAsRealBackward0", is_view=True, saves="none")
def view_as_real(x):
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)


@op("view_as_complex", grad_fn="ViewAsComplexBackward0", is_view=True, saves="none")
def view_as_complex(x):
    return lax.complex(x[..., 0], x[..., 1])


# The lazy conjugate: a view whose values are conjugated (PyTorch's conj bit).
@op("conj", grad_fn="ConjBackward0", is_view=True, saves="none")
def conj(x):
    return jnp.conj(x)


@op("conj_physical", grad_fn="ConjPhysicalBackward0", saves="none")
def conj_physical(x):
    return jnp.conj(x)


# ``conj_physical_``: PyTorch's in-place node has its own name (a real tensor's too)
conj_physical_ = op("conj_physical_", grad_fn="ConjPhysicalBackward1", saves="none")(conj_physical.fn)


@op("complex", grad_fn="ComplexBackward0", saves="none")
def complex_(real, imag):
    return lax.complex(*jnp.broadcast_arrays(real, imag))


def _polar(abs, angle):
    abs, angle = jnp.broadcast_arrays(abs, angle)
    return lax.complex(abs * jnp.cos(angle), abs * jnp.sin(angle))


# PyTorch's derivative in ``abs`` is ``sgn(result)``: its sign flips where ``abs`` is negative,
# and it is 0 where ``abs`` is 0
_polar_pytorch = with_tangent(_polar, lambda abs, angle, out, t_abs, t_angle:
                              t_abs * jnp.sign(out) + t_angle * out * 1j)


@op("polar", grad_fn="PolarBackward0", saves="output")
def polar(abs, angle):
    return _polar_pytorch(abs, angle)


@op("angle", grad_fn="AngleBackward0")
def angle(x, *, dtype):
    if jnp.iscomplexobj(x):
        return jnp.angle(x)
    x = x.astype(dtype)
    # PyTorch: pi for negative numbers, 0 otherwise, NaN kept; no gradient through a real input
    return lax.stop_gradient(jnp.where(jnp.isnan(x), x, jnp.where(x < 0, jnp.asarray(jnp.pi, dtype), 0)))


@op("isreal", differentiable=False, saves="none")
def isreal(x):
    if jnp.iscomplexobj(x):
        return jnp.imag(x) == 0
    return jnp.ones(x.shape, bool)



# ---------------------------------------------------------------- non-symmetric eigenproblems

@op("linalg_eig", grad_fn="LinalgEigBackward0", saves={"out0": "any", "out1": "any"})
def linalg_eig(a, *, dtype):
    """Eigenvalues and unit-norm eigenvectors (LAPACK's geev, JAX's CPU kernel); the
    eigenvectors' derivative assumes, as PyTorch's does, a loss that ignores their phases."""
    if a.shape[-1] == 0:        # nothing to decompose (JAX's derivative rule cannot take 0 x 0)
        empty = a.astype(dtype) + jnp.zeros((), dtype)
        return empty.sum(-1), empty
    w, v = lax.linalg.eig(a.astype(dtype), compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    return w, v


@op("linalg_eigvals", grad_fn="LinalgEigBackward0", saves={"out0": "any"})
def linalg_eigvals(a, *, dtype):
    return lax.linalg.eig(a.astype(dtype), compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]
