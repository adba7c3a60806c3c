"""``tensorgrad.typename``: the type name PyTorch shows in its error messages."""

from ._tensor import Tensor


def typename(obj):
    """``torch.FloatTensor`` for a tensor, else the object's qualified type name (``int``,
    ``tensorgrad.nn.modules.linear.Linear``).

    >>> typename(3)
    'int'
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        module = type(obj).__module__ or ""
        name = type(obj).__qualname__
    if module in ("", "builtins"):
        return name
    return f"{module}.{name}"
