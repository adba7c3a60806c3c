"""Complex tensors: ``real``/``imag`` and ``view_as_real``/``view_as_complex`` views, the lazy
conjugate (``conj``, ``is_conj``, ``resolve_conj``, ``is_neg``, ``resolve_neg``), ``complex``,
``polar``, ``angle``, ``isreal`` and the conjugate transposes ``mH``/``H``.

PyTorch's ``conj()`` of a complex tensor is a view with a conjugate bit; here it is a view
step that conjugates (writes through it conjugate back), and the bits are read off the view
chain: a tensor is conjugated when an odd number of ``conj`` steps lead to it, and negative
when it is the imaginary part of a conjugated tensor.
"""

from .. import _dtype
from .._ops import complex as C
from .._storage.layout import conj_bits
from .._tensor import Tensor, apply
from .conversion import clone
from .inplace import inplace_of
from .linalg import _all_finite, _matrices
from .operands import _named
from .operands import _tensor_input
from .shape import deprecated_0d, select, transpose
from .surface import declare


def _bits(t):
    """``(is_conj, is_neg)`` of ``t``, from the conj steps in its view chain."""
    return conj_bits(t._view)


@declare("is_conj", method=True)
def is_conj(input):
    """Whether ``input`` is a lazily conjugated view (``x.conj()`` of a complex ``x``)."""
    _tensor_input("is_conj", input)
    return _bits(input)[0]


@declare("is_neg", method=True)
def is_neg(input):
    """Whether ``input`` is the negated view PyTorch makes for ``x.conj().imag``."""
    _tensor_input("is_neg", input)
    return _bits(input)[1]


@declare("resolve_conj", method=True)
def resolve_conj(input):
    """A conjugated view materialised (a copy); any other tensor itself."""
    _tensor_input("resolve_conj", input)
    return clone(input) if _bits(input)[0] else input


@declare("resolve_neg", method=True)
def resolve_neg(input):
    """A negated view materialised (a copy); any other tensor itself."""
    _tensor_input("resolve_neg", input)
    return clone(input) if _bits(input)[1] else input


@declare("conj", method=True)
def conj(input):
    """The complex conjugate as a view (PyTorch's lazy conjugate); a real tensor itself."""
    _tensor_input("conj", input)
    return apply(C.conj, (input,)) if input.is_complex() else input


def _conj_physical_in_place(fn, name):
    """``conj_physical_``: recorded as PyTorch's ``ConjPhysicalBackward1``, for a real tensor too
    (whose value it keeps)."""
    return inplace_of(lambda self: apply(C.conj_physical_, (self,)), name)


@declare("conj_physical", method=True, inplace=True, inplace_of=_conj_physical_in_place, out=True)
def conj_physical(input):
    """The complex conjugate, computed (not a view); a real tensor itself."""
    _tensor_input("conj_physical", input)
    return apply(C.conj_physical, (input,)) if input.is_complex() else input


def _as_real(input):
    return apply(V_AS_REAL, (input,))


V_AS_REAL = C.view_as_real


@declare("view_as_real")
def view_as_real(input):
    """A real view of a complex tensor, with a last dimension of 2 (real, imaginary)."""
    _tensor_input("view_as_real", input)
    if not input.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if _bits(input)[0]:
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor so you "
            "can view it as real, use self.resolve_conj(); however, be warned that the resulting tensor will NOT "
            "alias the original.")
    return _as_real(input)


@declare("view_as_complex")
def view_as_complex(input):
    """A complex view of a real tensor whose last dimension (of size 2) holds (real, imaginary)."""
    _tensor_input("view_as_complex", input)
    if input.dtype not in (_dtype.float32, _dtype.float64, _dtype.float16):
        raise RuntimeError("view_as_complex is only supported for float, double and half tensors, but got a "
                           f"tensor of scalar type: {input.dtype.c_name}")
    if input.ndim == 0 or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if input.dtype is _dtype.float16:
        raise RuntimeError("view_as_complex: complex32 (ComplexHalf) tensors are not supported by tensorgrad")
    strides = input.stride()
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(st % 2 for st in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return apply(C.view_as_complex, (input,))


@declare("real")
def real(input):
    """The real part: a view of a complex tensor; a real tensor itself."""
    _tensor_input("real", input)
    if not input.is_complex():
        return input
    return select(_as_real(input), -1, 0)


@declare("imag")
def imag(input):
    """The imaginary part of a complex tensor, as a view."""
    _tensor_input("imag", input)
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select(_as_real(input), -1, 1)


def _set_part(part):
    def setter(self, value):
        getattr(self, part).copy_(value)
    return setter


Tensor.real = property(real, _set_part("real"))
Tensor.imag = property(imag, _set_part("imag"))


def _float_pair(name, a, b):
    """PyTorch's checks of ``complex``/``polar``: two float tensors of one dtype."""
    floats = (_dtype.float16, _dtype.float32, _dtype.float64)
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        bad = a if not isinstance(a, Tensor) else b
        arg = ("real", "imag") if name == "complex" else ("abs", "angle")
        which = arg[0] if bad is a else arg[1]
        pos = 1 if bad is a else 2
        raise TypeError(f"{name}(): argument '{which}' (position {pos}) must be Tensor, not {type(bad).__name__}")
    if a.dtype not in floats or b.dtype not in floats:
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{a.dtype.c_name} and {b.dtype.c_name}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"Expected object of scalar type {a.dtype.c_name} but got scalar type "
                           f"{b.dtype.c_name} for second argument")
    if a.dtype is _dtype.float16:
        raise RuntimeError(f"{name}: complex32 (ComplexHalf) tensors are not supported by tensorgrad")


@declare("complex", out=True)
def complex(real, imag):
    """The complex tensor ``real + imag * 1j`` (both float tensors of one dtype, broadcast)."""
    _float_pair("complex", real, imag)
    return apply(C.complex_, (real, imag))


@declare("polar", out=True)
def polar(abs, angle):
    """The complex tensor ``abs * (cos(angle) + sin(angle) * 1j)``."""
    _float_pair("polar", abs, angle)
    return apply(C.polar, (abs, angle))


@declare("angle", method=True, out=True)
def angle(input):
    """The argument of each complex number; for real numbers pi where negative, else 0."""
    _tensor_input("angle", input)
    d = input.dtype
    out = d.to_real() if d.is_complex else (d if d.kind == _dtype.FLOAT else _dtype.get_default_dtype())
    return apply(C.angle, (input,), (out.np,))


@declare("isreal", method=True)
def isreal(input):
    """Elementwise: the imaginary part is 0 (always True for a real tensor)."""
    _tensor_input("isreal", input)
    return apply(C.isreal, (input,))


def _mH(self):
    if self.ndim == 0:
        deprecated_0d("mH", "Consider using x.conj().", 4382)
        return conj(self)
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return conj(transpose(self, -2, -1))


def _H(self):
    if self.ndim == 0:
        deprecated_0d("H", "Consider using x.conj().", 4335)
        return conj(self)
    if self.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""))
    return conj(transpose(self, 0, 1))


Tensor.mH = property(_mH)
Tensor.H = property(_H)


def _eig_input(name, A):
    _tensor_input(name, A)
    if A.dtype.kind < _dtype.FLOAT:
        raise RuntimeError(f"Unknown Complex ScalarType for {A.dtype.c_name}")
    _matrices(name, A)
    if A.dtype in (_dtype.float16, _dtype.bfloat16):
        raise NotImplementedError(f"\"linalg_eig_out_cpu\" not implemented for '{A.dtype.c_name}'")
    return (A.dtype if A.dtype.is_complex else A.dtype.to_complex()).np


@declare("linalg.eig", out=True)
def eig(A):
    """Eigenvalues and eigenvectors (unit norm, complex) of square matrices."""
    dtype = _eig_input("linalg.eig", A)
    if not _all_finite(A):
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    return _named("linalg_eig", ("eigenvalues", "eigenvectors"))(*apply(C.linalg_eig, (A,), (dtype,)))


@declare("linalg.eigvals", out=True)
def eigvals(A):
    """The eigenvalues (complex) of square matrices."""
    dtype = _eig_input("linalg.eigvals", A)
    return apply(C.linalg_eigvals, (A,), (dtype,))
