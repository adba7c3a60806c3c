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
