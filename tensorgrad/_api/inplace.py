"""In-place twins (``add_``, ``mul_``, ``exp_``, ...): the out-of-place op, then a write-back; and
``zero_``/``fill_``.
"""

from .. import _autocast
from .. import _dtype
from .._autograd.grad_mode import STATE, is_grad_enabled
from .._device import filled
from .._meta import is_meta
from .._ops import elementwise as E
from .._ops import views as _views
from .._tensor import Tensor, apply, cast_result, check_inplace, commit_inplace, _wrap
from . import strides as _strides
from .surface import declare


def _fit(self, new):
    """Check that ``new`` can be written into ``self`` (dtype kind and shape), then cast it."""
    if new.dtype is not self.dtype:
        if not _dtype.can_cast(new.dtype, self.dtype):
            raise RuntimeError(f"result type {new.dtype.c_name} can't be cast to the desired output type {self.dtype.c_name}")
        new = cast_result(new, self)
    if tuple(new.shape) != tuple(self.shape):
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(new.shape)}")
    return new


def _elementwise_checks(self, inputs):
    _strides.check_no_repeated_elements(self)
    _strides.check_no_partial_overlap(self, inputs)


def _scattering_checks(self, inputs):
    _strides.check_no_internal_overlap(self)
    _strides.check_no_overlap(self, inputs)


def _no_checks(self, inputs):
    pass


def inplace_twin(fn, name, checks, fit):
    """The in-place twin ``name`` of ``fn``: PyTorch's autograd checks, then ``checks(self, inputs)``
    (the memory-overlap rules of the op's kernel), the out-of-place op, and the write-back (after
    ``_fit`` where the result's shape and dtype are not self's by construction)."""
    def method(self, *args, **kwargs):
        inputs = args + tuple(kwargs.values())
        check_inplace(self, *inputs)
        checks(self, inputs)
        immediate = STATE.immediate
        STATE.immediate = True  # the result is written back at once: nothing to defer
        try:
            with _autocast.off():   # PyTorch's autocast casts no in-place variant
                new = fn(self, *args, **kwargs)
        finally:
            STATE.immediate = immediate
        return commit_inplace(self, _fit(self, new) if fit else new)
    method.__name__ = method.__qualname__ = name or fn.__name__ + "_"
    return method


def inplace_of(fn, name=None):
    """The in-place twin ``name`` (``add_``) of the out-of-place ``fn``: self may not be an expanded
    view nor share part of its memory with an input; the result is checked against self's shape
    and dtype kind, cast, and written back."""
    return inplace_twin(fn, name, _elementwise_checks, fit=True)


def inplace_checked(fn, name=None):
    """The in-place twin of ``fn`` whose result keeps ``self``'s shape and dtype by construction
    (``tril_``: ``fn`` raises PyTorch's errors itself)."""
    return inplace_twin(fn, name, _no_checks, fit=False)


def inplace_scattering(fn, name=None):
    """The in-place twin of an op that writes its inputs' values at indices (``scatter_``,
    ``index_add_``, ``index_copy_``): self may not be an expanded view, and no input may share its
    memory (PyTorch's ``assert_no_overlap``)."""
    return inplace_twin(fn, name, _scattering_checks, fit=False)


def _host_fill(self, value):
    """``self`` filled with the number ``value`` made on the host, when no node is recorded (an
    ``nn.init`` fill under no_grad): no kernel to compile per shape. None when it does not apply."""
    if (is_grad_enabled() and self.requires_grad) or is_meta(self._data):
        return None
    return commit_inplace(self, _wrap(filled(tuple(self.shape), value, self._data.dtype)))


@declare("zero_", method=True)
def zero_(self):
    check_inplace(self)
    done = _host_fill(self, 0)
    return done if done is not None else commit_inplace(self, apply(E.zero, (self,)))


def _fill_value(value):
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")


@declare("fill")
def fill(input, value):
    """A new tensor of input's shape and dtype, every element ``value``."""
    _fill_value(value)
    if isinstance(value, Tensor):
        return apply(_views.FILL_TENSOR_OUT, (input, value))
    _dtype.check_fits(value, input.dtype)
    return apply(_views.fill_value, (input, value))


@declare("fill_", method=True)
def fill_(self, value):
    check_inplace(self, value)
    _fill_value(value)
    if isinstance(value, Tensor):
        _strides.check_no_internal_overlap(self)
        return commit_inplace(self, apply(_views.fill_tensor, (self, value)))
    _dtype.check_fits(value, self.dtype)
    done = _host_fill(self, value)
    return done if done is not None else commit_inplace(self, apply(E.fill, (self, value)))

