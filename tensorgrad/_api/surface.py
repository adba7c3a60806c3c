"""The declared surface: every torch-level function declared once, with all its variants.

PyTorch declares each function once (``native_functions.yaml``: its name, its variants
``function, method``, an ``out=`` overload). Here the declaration is a decorator on the
function that implements it::

    @declare("sub", "subtract", method=True, inplace=True, out=True)
    def sub(input, other, *, alpha=1): ...

registers ``tensorgrad.sub`` and ``tensorgrad.subtract`` (both taking ``out=``), the methods
``Tensor.sub``/``Tensor.subtract`` and their in-place twins ``sub_``/``subtract_``. The
decorated function itself is returned unchanged, so other modules call it directly.

What the public callables add to the implementation, in one place:

- ``out=`` (``write_out``): the result is written into ``out`` with PyTorch's dtype, resize
  and overlap rules, ``out`` is returned (None by the ops whose ``out=`` is a list of tensors,
  as in PyTorch) and its version counter moves; arguments that require grad are refused as
  PyTorch refuses them.
- NumPy's keyword names that PyTorch's argument parser accepts for native functions
  (``axis`` for ``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/``x1`` for ``input``,
  ``x2`` for ``other``).
- Unknown keywords raise ``TypeError`` naming the keyword: implementations take no ``**kwargs``,
  so Python itself refuses them.

``tensorgrad/__init__.py`` (and ``linalg``, ``special``) re-export ``exported(namespace)``;
``install_methods(Tensor)`` attaches every method and in-place twin in one loop.
"""

import functools
import inspect
import warnings

from .. import _autocast
from .. import _dtype
from .._autograd.grad_mode import STATE, no_grad
from .._tensor import Tensor, commit_inplace
from . import out_rules as _out_rules
from . import strides as _strides

# PyTorch's argument parser accepts these NumPy spellings for its native functions.
NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}


class Declaration:
    """One declared function: where it is public and in which variants.

    Attributes:
      names: its public names in ``namespace`` (empty for a method-only declaration).
      namespace: ``"torch"``, ``"linalg"``, ``"special"`` or ``"nn.functional"``.
      fn: the implementation.
      methods: the ``Tensor`` method names it is attached under.
      inplace: the names of the in-place twins (``add_``).
      inplace_of: the maker of the twins, or None for the default one.
      out: whether the functions take ``out=``.
      numpy_names: whether NumPy's keyword spellings are accepted.
    """

    __slots__ = ("names", "namespace", "fn", "methods", "inplace", "inplace_of", "out", "numpy_names", "factory")

    def __init__(self, names, namespace, fn, methods, inplace, inplace_of, out, numpy_names, factory):
        self.names = names
        self.namespace = namespace
        self.fn = fn
        self.methods = methods
        self.inplace = inplace
        self.inplace_of = inplace_of
        self.out = out
        self.numpy_names = numpy_names
        self.factory = factory

    def __repr__(self):
        return f"<declaration {self.namespace}.{'/'.join(self.names or self.methods)}>"


DECLARATIONS = []


def declare(*names, method=False, inplace=False, inplace_of=None, out=False, numpy_names=True, factory=False):
    """Declare ``fn`` as the torch-level function(s) ``names``.

    Arguments:
      names: public names: ``"add"`` in ``tensorgrad``, ``"linalg.det"`` in ``tensorgrad.linalg``,
        ``"special.erf"`` in ``tensorgrad.special``; none for a method-only declaration.
      method: ``True`` (methods of the same names), a tuple of method names, or ``False``.
      inplace: ``True`` (an in-place twin ``<method>_`` for each method name), a tuple of
        in-place names, or ``False``.
      inplace_of: ``(fn, name) -> method``, the maker of the in-place twins (default: the
        generic one, which checks the result's shape and dtype against ``self``).
      out: the functions take ``out=`` (as PyTorch's signature does); ``out_with(...)`` where
        only some of PyTorch's overloads take it (``torch.sum`` takes ``out=`` with a ``dim``).
      numpy_names: accept ``axis``/``keepdims``/... (PyTorch's native functions do; its
        Python-level ones, such as ``torch.norm`` or ``torch.split``, do not).
      factory: a creation function: with ``out=`` and no ``dtype``, ``out``'s dtype is used.
    """
    def register(fn):
        methods = tuple(n for n in names if "." not in n) if method is True else tuple(method or ())
        if inplace is True:
            twins = tuple(m + "_" for m in methods)
        else:
            twins = tuple(inplace or ())
        by_namespace = {}
        for name in names:
            namespace, _, short = name.rpartition(".")
            by_namespace.setdefault(namespace or "torch", []).append(short)
        for namespace, short_names in (by_namespace or {"torch": []}).items():
            DECLARATIONS.append(Declaration(tuple(short_names), namespace, fn, methods, twins, inplace_of, out,
                                            numpy_names, factory))
            methods = twins = ()    # the variants belong to the first namespace's declaration
        return fn
    return register


def _renames(fn, skip_first):
    """The NumPy spellings that apply to ``fn``'s parameters: ``{numpy_name: torch_name}``."""
    params = inspect.signature(fn).parameters
    names = list(params)[1:] if skip_first else list(params)
    return {alias: name for alias, name in NUMPY_NAMES.items() if name in names and alias not in params}


def _renamed(kwargs, renames, name):
    if not any(k in renames for k in kwargs):
        return kwargs
    result = {}
    for key, value in kwargs.items():
        target = renames.get(key, key)
        if target in result:
            raise TypeError(f"{name}() got multiple values for argument '{target}'")
        result[target] = value
    return result


def _public(decl, name, renames):
    """The public callable ``name`` of ``decl``: the implementation itself when it adds nothing."""
    fn = decl.fn
    if decl.out:
        def public(*args, out=None, **kwargs):
            if renames and kwargs:
                kwargs = _renamed(kwargs, renames, name)
            if out is None:
                return fn(*args, **kwargs)
            return write_out(name, decl, args, kwargs, out)
    elif renames:
        def public(*args, **kwargs):
            if kwargs:
                kwargs = _renamed(kwargs, renames, name)
            return fn(*args, **kwargs)
    else:
        return fn
    functools.update_wrapper(public, fn)
    public.__name__ = public.__qualname__ = name
    return public


# ---------------------------------------------------------------- out=

class out_with:
    """``out=`` is accepted only when the parameters ``names`` are given (not None), and, with
    ``tensors=True``, are Tensors: PyTorch's ``out=`` overload of ``sum`` needs ``dim``, that of
    ``where`` needs tensor ``input`` and ``other``."""

    def __init__(self, *names, tensors=False):
        self.names = names
        self.tensors = tensors

    def __call__(self, arguments):
        for name in self.names:
            value = arguments.get(name)
            if value is None or (self.tensors and not isinstance(value, Tensor)):
                return False
        return True

    def describe(self):
        kind = "Tensor " if self.tensors else ""
        return ", ".join(f"{kind}{name}" for name in self.names)


OUT_REQUIRES_GRAD = ("{}(): functions with out=... arguments don't support automatic differentiation, but one of "
                     "the arguments requires grad.")
RESIZED = ("An output with one or more elements was resized since it had shape {}, which does not match the required "
           "output shape {}. This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
           "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
           "elements with t.resize_(0). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
           "Resize.cpp:30.)")


def _check_out(out, result, inputs, rule, in_tuple):
    """PyTorch's checks of an ``out=`` tensor, in its order: overlaps, dtype, size (``rule``: the
    name under which ``out_rules`` lists the op, or None)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    _strides.check_no_internal_overlap(out)
    if rule in _out_rules.NO_OVERLAP:
        _strides.check_no_overlap(out, inputs)
    else:
        _strides.check_no_partial_overlap(out, inputs)
    if rule is not None:
        _out_rules.check(rule, result, out, in_tuple, inputs)
    if rule not in _out_rules.BOOL_OR_BYTE and not _dtype.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {result.dtype.c_name} can't be cast to the desired output type "
                           f"{out.dtype.c_name}")
    if tuple(out.shape) != tuple(result.shape) and out._view is not None:
        raise RuntimeError(f"Trying to resize storage that is not resizable: a view of shape {list(out.shape)} "
                           f"cannot hold the result of shape {list(result.shape)}")


def _store(out, result):
    if tuple(out.shape) != tuple(result.shape):
        if out.numel():
            warnings.warn(RESIZED.format(list(out.shape), list(result.shape)), UserWarning, stacklevel=4)
        cell = out._cell
        cell.value = result._data.astype(out._data.dtype)
        cell.gen += 1
        out._bump()
        return
    if result.dtype is not out.dtype:
        result = result.to(out.dtype)
    commit_inplace(out, result)


def _rule_name(decl):
    """The name under which ``out_rules`` lists ``decl`` (any of its names), or None."""
    prefix = "" if decl.namespace == "torch" else decl.namespace + "."
    for n in decl.names:
        if any(prefix + n in rules for rules in (_out_rules.EXACT, _out_rules.NO_OVERLAP, _out_rules.TENSOR_LISTS,
                                                 _out_rules.BOOL_OR_BYTE)):
            return prefix + n
    return None


def _write_tensor_list(name, decl, args, kwargs, out, inputs, rule):
    """``out=`` of the ops whose PyTorch overload takes ``Tensor(a!)[] out`` (``split_copy``,
    ``unbind_copy``, ...; ``out_rules.TENSOR_LISTS``): PyTorch's element and count checks, the
    pieces written without a graph, and None returned, as PyTorch does."""
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    position = len(inspect.signature(decl.fn).parameters)
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {position}, but got {type(o).__name__}")
    if rule in _out_rules.REFUSE_OUT_REQUIRING_GRAD and STATE.grad and any(o._rg for o in out):
        raise RuntimeError(OUT_REQUIRES_GRAD.format(name))
    with no_grad():
        results = tuple(decl.fn(*args, **kwargs))
        if len(results) != len(out):
            raise RuntimeError(f"{_out_rules.TENSOR_LISTS[rule]} expected an out= argument of size {len(results)}, "
                               f"got size {len(out)}")
        if rule in _out_rules.COPIED_IN:
            # PyTorch copies from views of the input: an out sharing its memory gets an answer
            # that depends on the copy order, refused here
            for o in out:
                _strides.check_no_overlap(o, inputs)
            for o, r in zip(out, results):
                o.copy_(r)
            return None
        for o, r in zip(out, results):
            _check_out(o, r, inputs, rule, True)
        for o, r in zip(out, results):
            _store(o, r)
    return None


def write_out(name, decl, args, kwargs, out):
    """Compute ``decl.fn(*args, **kwargs)`` and write it into ``out`` (a Tensor or a tuple)."""
    inputs = list(_strides.tensors_in(args))
    inputs.extend(_strides.tensors_in(kwargs.values()))
    rule = _rule_name(decl)
    if rule in _out_rules.TENSOR_LISTS:
        return _write_tensor_list(name, decl, args, kwargs, out, inputs, rule)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if STATE.grad and any(t._rg for t in inputs + [o for o in outs if isinstance(o, Tensor)]):
        raise RuntimeError(OUT_REQUIRES_GRAD.format(name))
    if decl.out is not True:
        bound = inspect.signature(decl.fn).bind(*args, **kwargs)
        bound.apply_defaults()
        if not decl.out(bound.arguments):
            raise TypeError(f"{name}() received an invalid combination of arguments: out= is accepted only with "
                            f"{decl.out.describe()} given")
    if decl.factory and kwargs.get("dtype") is None and isinstance(out, Tensor):
        kwargs = dict(kwargs, dtype=out.dtype)
    with _autocast.off():       # PyTorch's autocast casts no out= variant
        result = decl.fn(*args, **kwargs)
    results = tuple(result) if isinstance(out, (tuple, list)) else (result,)
    if len(results) != len(outs):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(results)} Tensors, got {len(outs)}")
    for o, r in zip(outs, results):
        _check_out(o, r, inputs, rule, isinstance(out, (tuple, list)))
    for o, r in zip(outs, results):
        _store(o, r)
    if isinstance(out, (tuple, list)) and hasattr(result, "_fields"):
        return type(result)(*outs)
    return out


# ---------------------------------------------------------------- what the facade reads

def exported(namespace):
    """``{name: public callable}`` of one namespace, in declaration order."""
    names = {}
    for decl in DECLARATIONS:
        if decl.namespace != namespace:
            continue
        for name in decl.names:
            if name in names:
                raise RuntimeError(f"{namespace}.{name} is declared twice")
            renames = _renames(decl.fn, False) if decl.numpy_names else {}
            names[name] = _public(decl, name, renames)
    return names


def install_methods(cls, inplace_of):
    """Attach every declared method and in-place twin to ``cls`` (the Tensor), in one loop."""
    seen = {}
    for decl in DECLARATIONS:
        renames = _renames(decl.fn, True) if decl.numpy_names and decl.methods else {}
        attached = [(m, decl.fn) for m in decl.methods]
        make = decl.inplace_of or inplace_of
        attached.extend((twin, make(decl.fn, twin)) for twin in decl.inplace)
        for name, fn in attached:
            if name in seen:
                raise RuntimeError(f"Tensor.{name} is declared twice ({seen[name]} and {decl})")
            seen[name] = decl
            if renames:
                fn = _method_with_numpy_names(fn, name, renames)
            setattr(cls, name, fn)
    return seen


def _method_with_numpy_names(fn, name, renames):
    def method(self, *args, **kwargs):
        if kwargs:
            kwargs = _renamed(kwargs, renames, name)
        return fn(self, *args, **kwargs)
    functools.update_wrapper(method, fn)
    method.__name__ = method.__qualname__ = name
    return method


# ---------------------------------------------------------------- torch-level in-place functions

# PyTorch's torch-level spellings of in-place twins (``torch.sin_(t)`` is ``t.sin_()``)
TORCH_LEVEL_INPLACE = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "conj_physical_",
    "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_",
    "frac_", "gcd_", "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_",
    "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_",
    "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
)


def inplace_functions(cls):
    """``{name: function}`` for ``TORCH_LEVEL_INPLACE``: each calls ``cls``'s method on its first
    argument, which must be a ``cls`` (PyTorch's TypeError otherwise)."""
    return {name: _inplace_function(cls, name) for name in TORCH_LEVEL_INPLACE}


def _inplace_function(cls, name):
    method = getattr(cls, name)

    def function(input, *args, **kwargs):
        if not isinstance(input, cls):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return method(input, *args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)`` is ``input.{name}(...)``."
    return function
