"""In-place views, the in-place samplers, resize_, the strided factories, as_strided and its copy,
nonzero_static and the torch-level in-place twins, against PyTorch."""

import numpy as np
import pytest

import tensorgrad

from oracle import torch, _oracle  # noqa: F401


def _both(fn):
    """``fn`` run on tensorgrad and on PyTorch."""
    return fn(tensorgrad), fn(torch)


def _same(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(np.asarray(ours.detach().numpy()), theirs.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda y: y.t_(), lambda y: y.transpose_(0, 1), lambda y: y.swapdims_(1, 0), lambda y: y.squeeze_(),
    lambda y: y.unsqueeze_(1), lambda y: y.as_strided_((2,), (2,), 1),
])
def test_inplace_views(call):
    def run(m):
        x = m.arange(6.0).reshape(2, 3).requires_grad_()
        y = x * 2
        version = y._version
        out = call(y)
        assert out is y
        (y * m.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        return y, type(y.grad_fn).__name__, y._version - version, x.grad
    ours, theirs = _both(run)
    _same(ours[0], theirs[0])
    assert ours[1:3] == theirs[1:3]
    _same(ours[3], theirs[3])


def test_inplace_view_of_leaf_requiring_grad_raises():
    with pytest.raises(RuntimeError, match="leaf Variable"):
        tensorgrad.zeros(2, 3, requires_grad=True).t_()


@pytest.mark.parametrize("method,args,grad_fn", [
    ("cauchy_", (0.5, 2.0), "CauchyBackward0"), ("geometric_", (0.3,), "GeometricBackward0"),
    ("log_normal_", (0.0, 0.5), "LogNormalBackward0"), ("exponential_", (2.0,), "ExponentialBackward0"),
])
def test_inplace_samplers(method, args, grad_fn):
    x = tensorgrad.zeros(4000, dtype=tensorgrad.float64)
    getattr(x, method)(*args)
    values = x.numpy()
    reference = {"cauchy_": lambda: np.median(values) - 0.5, "geometric_": lambda: values.mean() - 1 / 0.3,
                 "log_normal_": lambda: np.log(values).std() - 0.5, "exponential_": lambda: values.mean() - 0.5}
    assert abs(reference[method]()) < 0.15
    y = tensorgrad.zeros(3, requires_grad=True) * 1
    assert type(getattr(y, method)(*args).grad_fn).__name__ == grad_fn


@pytest.mark.parametrize("call", [
    lambda m: m.zeros(3).cauchy_(0, -1), lambda m: m.zeros(3).geometric_(1.5), lambda m: m.zeros(3).log_normal_(0, 0),
    lambda m: m.zeros(3, dtype=m.int64).cauchy_(), lambda m: m.zeros(3, dtype=m.int64).log_normal_(),
    lambda m: m.zeros(3, dtype=m.bool).geometric_(0.5), lambda m: m.zeros(3).exponential_(-1.5),
    lambda m: m.zeros(3).uniform_(1, 0), lambda m: m.zeros(3, dtype=m.int64).uniform_(),
])
def test_sampler_errors(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value), match=str(theirs.value).split(",")[0].replace("(", r"\(")
                       .replace(")", r"\)").replace("[", r"\[")):
        call(tensorgrad)


def test_resize_and_strided_factories():
    def run(m):
        x = m.arange(6.0)
        x.resize_(2, 2)
        shrunk = x.clone()
        resized = m.resize_as_(m.zeros(2, 3), m.zeros(6))
        strided = m.empty_strided((2, 3), (1, 2))
        permuted = m.empty_permuted((2, 3, 4), (2, 0, 1))
        return shrunk, tuple(resized.shape), strided.stride(), permuted.stride(), tuple(permuted.shape)
    ours, theirs = _both(run)
    _same(ours[0], theirs[0])
    assert ours[1:] == theirs[1:]
    with pytest.raises(RuntimeError, match="require grad"):
        tensorgrad.zeros(2, requires_grad=True).resize_(3)


def test_as_strided_is_a_view():
    def run(m):
        x = m.arange(6.0)
        v = x.as_strided((2, 2), (1, 2), 1)
        v[0, 0] = 10.0
        x[4] = -1.0
        return x, v, v.stride(), v.storage_offset()
    ours, theirs = _both(run)
    _same(ours[0], theirs[0])
    _same(ours[1], theirs[1])
    assert ours[2:] == theirs[2:]


def test_as_strided_copy_reads_the_storage_of_a_view():
    """Of a transposed view and of a row (its offset the default): the view's storage elements,
    not those of a contiguous copy (as_strided_copy once read the copy's)."""
    def run(m):
        x = m.arange(6.0).reshape(2, 3).requires_grad_()
        a = m.as_strided_copy(x.t(), (2, 2), (1, 2))
        b = m.as_strided_copy(x[1], (2,), (1,))
        (a * m.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().add(b.sum()).backward()
        return a, b, x.grad
    for a, b in zip(*_both(run)):
        _same(a, b)
    # elements outside the view (the row at storage offset 0): refused, never another element
    with pytest.raises(NotImplementedError, match="outside its input view"):
        tensorgrad.as_strided_copy(tensorgrad.arange(6.0).reshape(2, 3)[1], (2,), (1,), 0)


def test_nonzero_static_and_fill_twins():
    def run(m):
        x = m.tensor([[0, 1], [2, 0], [3, 4]])
        y = m.ones(3)
        m.zero_(y)
        z = m.fill_(m.ones(2), 5)
        w = m.tensor([-1.0, 4.0])
        m.sqrt_(m.abs_(w))
        return (m.nonzero_static(x, size=4, fill_value=-7), m.nonzero_static(x, size=1), y, z, w,
                m.tensor([1.0, 2.0]).__rdiv__(3), m.scalar_tensor(3), m.randint_like(m.zeros(2, dtype=m.int32), 3))
    ours, theirs = _both(run)
    for a, b in zip(ours[:-1], theirs[:-1]):
        _same(a, b)
    assert str(ours[-1].dtype) == str(theirs[-1].dtype)


@pytest.mark.parametrize("name,call", [
    ("sum", lambda m, x, k: m.masked.sum(x, 1, mask=k)), ("prod", lambda m, x, k: m.masked.prod(x, 1, mask=k)),
    ("amax", lambda m, x, k: m.masked.amax(x, 1, mask=k)), ("argmin", lambda m, x, k: m.masked.argmin(x, 1, mask=k)),
    ("mean", lambda m, x, k: m.masked.mean(x, 1, mask=k)), ("median", lambda m, x, k: m.masked.median(x, 1, mask=k)),
    ("std", lambda m, x, k: m.masked.std(x, 1, mask=k)), ("softmax", lambda m, x, k: m.masked.softmax(x, 1, mask=k)),
    ("logsumexp", lambda m, x, k: m.masked.logsumexp(x, 1, mask=k)),
    ("cumprod", lambda m, x, k: m.masked.cumprod(x, 1, mask=k)),
])
def test_masked_fully_masked_rows(name, call):
    values = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
    mask = np.array([[False, False, False], [True, False, True]])
    ours, theirs = _both(lambda m: call(m, m.tensor(values), m.tensor(mask)))
    _same(ours, theirs)
