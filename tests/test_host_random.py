"""Eager random draws made on the host (``_api/host_random.py``) give the numbers of the XLA
kernels they replace: bit for bit where JAX's steps are exact, within one rounding of a fused
multiply-add where they scale and shift; and the draws that build a model compile nothing."""

import jax
import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad import nn
from tensorgrad._api import host_random as H, random as R

from test_caches import _Compiles

_RNG = np.random.default_rng(20261203)


def _keys(n):
    return [jax.random.PRNGKey(int(s)) for s in _RNG.integers(0, 2 ** 62, n)]


def _shapes(n):
    return [tuple(int(d) for d in _RNG.integers(1, 30, _RNG.integers(1, 4))) for _ in range(n)]


def _same(host, kernel):
    host, kernel = np.asarray(host), np.asarray(kernel)
    assert host.dtype == kernel.dtype and host.shape == kernel.shape
    np.testing.assert_array_equal(host, kernel)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unit_uniform_and_normal_are_jaxs_bit_for_bit(dtype):
    for key, shape in zip(_keys(4), _shapes(4)):
        _same(R._uniform(key, shape, dtype, dtype, 0.0, 1.0), R._uniform_kernel(key, shape, dtype, dtype, 0.0, 1.0))
        _same(R._normal(key, shape, dtype), R._normal_kernel(key, shape, dtype))
        _same(H.normal(np.asarray(key), shape, dtype), jax.random.normal(key, shape, dtype))


def test_integer_draws_permutations_and_splits_are_jaxs_bit_for_bit():
    for key, shape, out in zip(_keys(4), _shapes(4), (np.int64, np.int32, np.uint8, np.float32)):
        low = int(_RNG.integers(-1000, 1000))
        high = low + int(_RNG.integers(1, 2 ** 40))
        _same(R._randint(key, shape, out, low, high), R._randint_kernel(key, shape, out, low, high))
        n = int(_RNG.integers(1, 3000))
        _same(R._permutation(key, n, np.int64), R._permutation_kernel(key, n, np.int64))
        new, sub = H.split(np.asarray(key))
        _same(np.stack([new, sub]), jax.random.split(key))
    key = _keys(1)[0]
    for low, high in ((-2 ** 63, 2 ** 63 - 1), (0, 1), (-5, 2 ** 62)):       # the span's edges
        _same(R._randint(key, (500,), np.int64, low, high), R._randint_kernel(key, (500,), np.int64, low, high))
    # a permutation long enough for JAX's second round of sorting
    _same(R._permutation(key, 2 ** 11 + 1, np.int64), R._permutation_kernel(key, 2 ** 11 + 1, np.int64))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scaled_draws_differ_from_the_kernels_by_a_few_roundings(dtype):
    """XLA computes ``u * (high - low) + low`` as one FMA, and reorders ``mean + std * (sqrt(2) *
    erf_inv(u))``; NumPy rounds each step: a few ulps of the product or the sum apart."""
    for key, shape in zip(_keys(3), _shapes(3)):
        low, high = sorted(_RNG.normal(size=2) * 10)
        mean, std = float(_RNG.normal()), float(abs(_RNG.normal()) * 3)
        for host, kernel, shift in ((R._uniform(key, shape, dtype, dtype, low, high),
                                     R._uniform_kernel(key, shape, dtype, dtype, low, high), low),
                                    (R._scaled_normal(key, shape, dtype, mean, std),
                                     R._scaled_normal_kernel(key, shape, dtype, mean, std), mean)):
            host, kernel = np.asarray(host), np.asarray(kernel)
            assert host.dtype == kernel.dtype == dtype
            product = np.abs(kernel - dtype(shift))
            assert (np.abs(host - kernel) <= 4 * np.spacing(np.maximum(product, np.abs(kernel)))).all()


def test_large_and_traced_draws_use_the_kernels():
    key = _keys(1)[0]
    assert H.usable(key, H.HOST_MAX) and not H.usable(key, H.HOST_MAX + 1)
    big = (H.HOST_MAX + 1,)
    _same(R._uniform(key, big, np.float32, np.float32, 0.0, 1.0), jax.random.uniform(key, big, np.float32))
    traced = jax.jit(lambda k: R._normal(k, (5,), np.float32))(key)
    _same(traced, R._normal(key, (5,), np.float32))


def test_seeded_streams_are_reproducible_and_compile_nothing_to_build_a_model():
    tg.manual_seed(3)
    first = [tg.rand(4), tg.randn(2, 3), tg.randint(0, 7, (5,)), tg.randperm(6), tg.empty(3).uniform_(-2, 2)]
    tg.manual_seed(3)
    again = [tg.rand(4), tg.randn(2, 3), tg.randint(0, 7, (5,)), tg.randperm(6), tg.empty(3).uniform_(-2, 2)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert sorted(first[3].tolist()) == list(range(6))
    nn.Linear(3, 2), nn.Conv2d(1, 2, 3)       # whatever a first module compiles once
    tg.empty(1500).normal_()                  # normal draws: one erf_inv program per size bucket
    with _Compiles() as seen:
        layers = [nn.Linear(417, 123), nn.Conv2d(3, 7, 5), nn.Embedding(97, 13), nn.LSTM(11, 9)]
        tg.rand(301, 7), tg.randint(0, 10, (307,)), tg.randperm(1013)
    assert seen.names == []
    bound = 1 / np.sqrt(417)
    weight = layers[0].weight.detach().numpy()
    assert weight.dtype == np.float32 and -bound <= weight.min() and weight.max() <= bound
    assert layers[0].weight.grad_fn is None and layers[0].weight.requires_grad


def test_random_fill_records_its_node_only_when_grad_flows():
    x = tg.ones(3, requires_grad=True) * 2
    x.uniform_()
    assert type(x.grad_fn).__name__ == "UniformBackward0"
    y = tg.ones(3, requires_grad=True) * 2
    version = y._version
    with tg.no_grad():
        y.normal_()
    assert type(y.grad_fn).__name__ == "MulBackward0" and y._version == version + 1


def test_seeds_make_jaxs_keys_and_wrap_as_pytorchs():
    for seed in (0, 1, 67280421310721, 2 ** 40 + 5, 2 ** 63 - 1):
        _same(H.seed_key(seed), jax.random.PRNGKey(seed))
    for seed, kept in ((2 ** 64 - 1, 2 ** 64 - 1), (-1, 2 ** 64 - 1), (-2 ** 63, 2 ** 63), (1.5, 1)):
        tg.manual_seed(seed)
        assert tg.initial_seed() == kept
    tg.manual_seed(-1)
    first = tg.rand(3).tolist()
    tg.manual_seed(2 ** 64 - 1)
    assert tg.rand(3).tolist() == first
    for seed in (2 ** 64, -2 ** 63 - 1):
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):
            tg.manual_seed(seed)
