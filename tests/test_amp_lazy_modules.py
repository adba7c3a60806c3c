"""Lazy modules (LazyLinear, LazyConvNd, LazyBatchNormNd) and uninitialized parameters against PyTorch."""

import copy

import pytest

import tensorgrad as tg

from oracle import _oracle, torch  # noqa: F401


def _story(lib):
    nn = lib.nn
    out = []
    m = nn.LazyLinear(3)
    out += [repr(m), repr(m.weight), type(m.weight).__name__, m.weight.requires_grad, str(m.weight.dtype)]
    with pytest.raises(RuntimeError) as error:
        m.weight.shape
    out.append(str(error.value))
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    out += [m.has_uninitialized_params(), str(m.state_dict())]
    y = m(lib.ones(2, 4))
    out += [repr(m), type(m).__name__, tuple(y.shape), tuple(m.weight.shape), type(m.weight).__name__]
    y.sum().backward()
    before = m.weight.detach().clone()
    opt.step()
    out.append(repr(m.weight.grad))
    out.append(bool(((before - m.weight.detach()) - 0.1 * m.weight.grad).abs().max() < 1e-6))
    c = nn.LazyConv2d(4, 3)
    out.append(repr(c))
    c(lib.ones(1, 2, 5, 5))
    out += [repr(c), type(c).__name__, tuple(c.weight.shape)]
    b = nn.LazyBatchNorm1d()
    out += [repr(b), repr(b.running_mean), type(b.running_mean).__name__]
    b(lib.ones(3, 5))
    out += [repr(b), tuple(b.running_mean.shape), repr(b.num_batches_tracked), repr(b.running_var)]
    b2 = nn.LazyBatchNorm2d(affine=False)
    out += [repr(b2), b2.weight]
    b2(lib.ones(2, 3, 2, 2))
    out += [repr(b2), repr(b2.running_mean)]
    out += [repr(nn.LazyConv1d(2, 3)), repr(nn.LazyConv3d(2, 3, bias=False))]
    for module, x in ((nn.LazyConv2d(2, 3), lib.ones(3, 3)), (nn.LazyConv2d(2, 3, groups=2), lib.ones(1, 3, 4, 4))):
        with pytest.raises((RuntimeError, ValueError)) as error:
            module(x)
        out += [type(error.value).__name__, str(error.value)]
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
        nn.utils.parameters_to_vector(nn.LazyLinear(2).parameters())
    out.append(repr(copy.deepcopy(nn.LazyLinear(2))))
    out.append(str(nn.LazyLinear(2, dtype=lib.float64).weight.dtype))
    s = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1))
    out += [tuple(s(lib.ones(5, 7)).shape), repr(s)]
    return out


def test_lazy_modules_behave_as_pytorchs():
    assert _story(tg) == _story(torch)
