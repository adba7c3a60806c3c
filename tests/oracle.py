"""PyTorch as the oracle of the differential tests, when it is installed.

``from oracle import torch, _oracle`` gives a test module ``torch`` (or None) and an autouse
fixture that skips every test needing it where it is absent; tests named ``..._without_torch``
run either way.
"""

import pytest

import tensorgrad

try:
    import torch
except ImportError:  # the oracle is optional: only the tests that do not need it run
    torch = None


@pytest.fixture(autouse=True)
def _oracle(request):
    """Differential tests need PyTorch; tests named ``..._without_torch`` run without it."""
    if torch is None and not request.node.name.split("[")[0].endswith("_without_torch"):
        pytest.skip("PyTorch (the oracle) is not installed")


def raises_alike(call):
    """``call(torch)`` raises, and ``call(tensorgrad)`` raises the same exception type with the
    same message."""
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(tensorgrad)
    assert str(ours.value) == str(theirs.value)


def error_of(fn):
    """``(exception type name, message)`` of what ``fn()`` raises, or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__, str(e)
    return None


def plain_state(obj):
    """A state dict (or any nest of tensors) as Python values, for comparison across the two
    libraries: each tensor as ``("tensor", dtype name, shape, values)``."""
    if isinstance(obj, tensorgrad.Tensor) or (torch is not None and isinstance(obj, torch.Tensor)):
        return ("tensor", str(obj.dtype).replace("torch.", ""), tuple(obj.shape), obj.detach().numpy().tolist())
    if isinstance(obj, dict):
        return {k: plain_state(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(plain_state(v) for v in obj)
    return obj


def assert_close_state(a, b, rtol=1e-5, atol=1e-6):
    """Two ``plain_state`` values agree: the same keys, types, dtypes and shapes, tensor values
    within ``rtol``/``atol``, everything else equal."""
    import numpy as np
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert a[:3] == b[:3]
        np.testing.assert_allclose(np.array(a[3]), np.array(b[3]), rtol=rtol, atol=atol)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            assert_close_state(a[k], b[k], rtol, atol)
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_close_state(x, y, rtol, atol)
    else:
        assert a == b and type(a) is type(b)
