"""Rows for the factorizations of ``tensorgrad/_api/linalg_factor.py``: LU, the ``_ex``
functions, triangular_solve, Householder QR, cond, tensorinv/tensorsolve and LDL, and the
non-symmetric eigenproblem (``linalg.eig``, ``eigvals``). Samples are well-conditioned matrices
(``well``, ``spd``) so the derivatives are smooth there."""

import warnings

import numpy as np

from op_table import FLOAT, Err, Op, Sample, arr, matrix_of, spd, vectors_of, well


def _quiet(fn):
    """``fn`` with the deprecation warnings of torch.lu / lu_solve / triangular_solve silenced."""
    def call(m, *args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return fn(m, *args, **kwargs)
    return call


def _symmetric(make):
    x = make(4, 4)
    return [Sample(((x + x.T).astype(x.dtype),), grad=False)]


def _householder(make):
    a = make(4, 3)
    tau = np.abs(make(3)).astype(a.dtype)
    return [Sample((a, tau))]


def _ormqr(make):
    a = make(4, 3)
    tau = np.abs(make(3)).astype(a.dtype)
    return [Sample((a, tau, make(4, 2)))]


def _by_real_part(m, values, vectors=None):
    """What ``eig`` determines whatever LAPACK's order and the eigenvectors' phases: the
    eigenvalues' real parts and moduli, and the eigenvectors' moduli, ordered by real part (a tie
    is a conjugate pair, whose moduli are equal)."""
    order = values.real.argsort(-1)
    out = (values.real.gather(-1, order), values.abs().gather(-1, order))
    if vectors is None:
        return out
    return out + (vectors.abs().gather(-1, order.unsqueeze(-2).expand(vectors.shape)),)


def _lu_factor(m, x):
    return m.linalg.lu_factor(well(m, x))


ROWS = [
    Op("linalg.eig", lambda m, x: _by_real_part(m, *m.linalg.eig(x)), matrix_of((3, 3), (2, 4, 4)), dtypes=FLOAT,
       tol={"float32": (1e-4, 1e-5)},
       errors=(Err((arr(2, 3),), call=lambda m, x: m.linalg.eig(x), note="not square"),
               Err((arr(3),), call=lambda m, x: m.linalg.eig(x), note="1-D"),
               Err((arr(2, 2) * np.nan,), call=lambda m, x: m.linalg.eig(x), note="NaN"))),
    Op("linalg.eigvals", lambda m, x: _by_real_part(m, m.linalg.eigvals(x)), matrix_of((3, 3), (2, 4, 4)),
       dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)},
       errors=(Err((arr(2, 3),), call=lambda m, x: m.linalg.eigvals(x), note="not square"),)),
    Op("linalg_factor.lu_factor", _lu_factor, matrix_of((2, 3, 3)), dtypes=FLOAT,
       errors=(Err((arr(3, 3),), call=lambda m, x: m.linalg.lu_factor(x), note="singular"),
               Err((arr(3),), call=lambda m, x: m.linalg.lu_factor(x), note="1-D"))),
    Op("linalg_factor.lu_factor_ex_rect", lambda m, x: m.linalg.lu_factor_ex(x), matrix_of((2, 3, 5)), dtypes=FLOAT),
    Op("linalg_factor.lu", lambda m, x: m.linalg.lu(x), matrix_of((4, 2)), dtypes=FLOAT),
    Op("linalg_factor.torch_lu", _quiet(lambda m, x: (m.lu(well(m, x)), x.lu(get_infos=True))), matrix_of((3, 3)),
       dtypes=FLOAT),
    Op("linalg_factor.lu_unpack", lambda m, x: m.lu_unpack(*m.linalg.lu_factor(x)), matrix_of((2, 4, 3)),
       dtypes=FLOAT,
       errors=(Err((arr(3, 3),), call=lambda m, x: m.lu_unpack(x, m.ones(3, dtype=m.int64)), note="int64 pivots"),
               Err((arr(3, 3),), call=lambda m, x: m.lu_unpack(x, m.zeros(3, dtype=m.int32)), note="pivot 0"))),
    Op("linalg_factor.lu_solve", lambda m, a, b: (m.linalg.lu_solve(*_lu_factor(m, a), b),
                                           m.linalg.lu_solve(*_lu_factor(m, a), b, adjoint=True),
                                           m.linalg.lu_solve(*_lu_factor(m, a), b.mT, left=False)),
       vectors_of((3, 3), (3, 2)), dtypes=FLOAT,
       errors=(Err((arr(3, 3), arr(2, 2)), call=lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(
           a + m.eye(3)), b), note="sizes"),
               Err((arr(3, 3), arr(3, 2)), call=lambda m, a, b: m.linalg.lu_solve(a, m.ones(3, dtype=m.int64), b),
                   note="int64 pivots"))),
    Op("linalg_factor.torch_lu_solve", _quiet(lambda m, a, b: b.lu_solve(*_lu_factor(m, a))), vectors_of((3, 3), (3, 2)),
       dtypes=FLOAT),
    Op("linalg_factor.solve_ex", lambda m, a, b: m.linalg.solve_ex(well(m, a), b), vectors_of((2, 3, 3), (2, 3)),
       dtypes=FLOAT,
       errors=(Err((arr(2, 3, 3), arr(3)), call=lambda m, a, b: m.linalg.solve_ex(a, b, check_errors=True),
                   note="singular"),)),
    Op("linalg_factor.inv_ex", lambda m, x: m.linalg.inv_ex(well(m, x)), matrix_of((3, 3)), dtypes=FLOAT,
       errors=(Err((arr(3, 3),), call=lambda m, x: m.linalg.inv_ex(x, check_errors=True), note="singular"),)),
    Op("linalg_factor.cholesky_ex", lambda m, x: (m.linalg.cholesky_ex(spd(m, x)), m.linalg.cholesky_ex(-x).info),
       matrix_of((2, 3, 3)), dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)},
       errors=(Err((arr(2, 2),), call=lambda m, x: m.linalg.cholesky_ex(-x, check_errors=True),
                   note="not positive-definite"),)),
    Op("linalg_factor.triangular_solve", _quiet(lambda m, b, a: (m.triangular_solve(b, well(m, a)),
                                                         b.triangular_solve(well(m, a), False, True, True))),
       vectors_of((3, 2), (3, 3)), dtypes=FLOAT,
       errors=(Err((arr(2, 2), arr(3, 3)), call=_quiet(lambda m, b, a: m.triangular_solve(b, a)), note="sizes"),
               Err((arr(3), arr(3, 3)), call=_quiet(lambda m, b, a: m.triangular_solve(b, a)), note="1-D b"))),
    Op("linalg_factor.householder_product", lambda m, a, t: (m.linalg.householder_product(a, t), a.orgqr(t[:2])),
       _householder, dtypes=FLOAT,
       errors=(Err((arr(2, 3), arr(2)), call=lambda m, a, t: m.linalg.householder_product(a, t), note="wide"),)),
    Op("linalg_factor.geqrf", lambda m, x: m.geqrf(x), matrix_of((2, 3, 4)), dtypes=FLOAT, grad=False,
       tol={"float32": (1e-4, 1e-5)}),
    Op("linalg_factor.ormqr", lambda m, a, t, c: (m.ormqr(a, t, c), a.ormqr(t, c, transpose=True),
                                           m.ormqr(a, t, c.mT, left=False)),
       _ormqr, dtypes=FLOAT,
       errors=(Err((arr(4, 3), arr(2), arr(4, 2)), call=lambda m, a, t, c: m.ormqr(a, t, c), note="tau length"),)),
    Op("linalg_factor.cond", lambda m, x: (m.linalg.cond(x), m.linalg.cond(x, -2), m.linalg.cond(x, "nuc")),
       matrix_of((2, 3, 3)), dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)},
       errors=(Err((arr(3, 3),), call=lambda m, x: m.linalg.cond(x, 3), note="order"),
               Err((arr(2, 3),), call=lambda m, x: m.linalg.cond(x, 1), note="not square"))),
    # cond's other orders fill the inverse in place, so PyTorch's backward fails: values only
    Op("linalg_factor.cond_norms", lambda m, x: tuple(m.linalg.cond(well(m, x), p)
                                               for p in ("fro", float("inf"), -float("inf"), 1, -1)),
       matrix_of((3, 3)), dtypes=FLOAT, grad=False, tol={"float32": (1e-4, 1e-5)}),
    Op("linalg_factor.tensorinv", lambda m, x: m.linalg.tensorinv(well(m, x.reshape(4, 4)).reshape(4, 2, 2), ind=1),
       matrix_of((4, 4)), dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)},
       errors=(Err((arr(4, 2, 3),), call=lambda m, x: m.linalg.tensorinv(x, ind=1), note="shapes"),)),
    Op("linalg_factor.tensorsolve", lambda m, a, b: m.linalg.tensorsolve(well(m, a).reshape(2, 3, 6), b),
       vectors_of((6, 6), (2, 3)), dtypes=FLOAT, tol={"float32": (1e-4, 1e-5)}),
    Op("linalg_factor.ldl_factor", lambda m, x: (m.linalg.ldl_factor(x), m.linalg.ldl_factor_ex(x)), _symmetric,
       dtypes=FLOAT, grad=False, tol={"float32": (1e-4, 1e-5)}),
    Op("linalg_factor.ldl_solve", lambda m, x, b: m.linalg.ldl_solve(*m.linalg.ldl_factor(x + x.mT), b),
       vectors_of((4, 4), (4, 2)), dtypes=FLOAT, grad=False, tol={"float32": (1e-4, 1e-5)},
       errors=(Err((arr(3, 3), arr(3)), call=lambda m, x, b: m.linalg.ldl_solve(x, m.ones(3, dtype=m.int32), b),
                   note="1-D B"),)),
]
