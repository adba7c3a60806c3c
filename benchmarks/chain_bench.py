"""Time per op of a chain of 50 elementwise ops on a 3x4 tensor, forward + backward.

Prints, from one run: tensorgrad (eager tape), PyTorch eager, and one ``jax.jit`` of the whole
function (forward + ``jax.grad``), and the ratios tensorgrad/PyTorch and tensorgrad/jit.
Run: python benchmarks/chain_bench.py [--repeats N]
"""

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import tensorgrad

N_OPS = 50


def chain(m, x):
    """50 elementwise ops written against a torch-like module ``m``."""
    for i in range(N_OPS // 5):
        x = m.sin(x)
        x = x * 1.5
        x = x + 0.25
        x = m.tanh(x)
        x = x * x
    return x


class _JaxModule:
    sin = staticmethod(jnp.sin)
    tanh = staticmethod(jnp.tanh)


def _time(step, repeats, inner):
    step()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            step()
        samples.append((time.perf_counter() - start) / inner)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--inner", type=int, default=20)
    args = parser.parse_args()
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)

    x_tg = tensorgrad.tensor(data, requires_grad=True)

    def step_tg():
        x_tg.grad = None
        chain(tensorgrad, x_tg).sum().backward()
        x_tg.grad._data.block_until_ready()

    results = {"tensorgrad": _time(step_tg, args.repeats, args.inner)}

    grad_fn = jax.jit(jax.grad(lambda x: chain(_JaxModule, x).sum()))
    x_jax = jnp.asarray(data)

    def step_jax():
        grad_fn(x_jax).block_until_ready()

    results["jax.jit"] = _time(step_jax, args.repeats, args.inner)

    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(1)
        x_pt = torch.tensor(data, requires_grad=True)

        def step_pt():
            x_pt.grad = None
            chain(torch, x_pt).sum().backward()

        results["pytorch eager"] = _time(step_pt, args.repeats, args.inner)

    print(f"chain of {N_OPS} elementwise ops on a 3x4 tensor, forward + backward, per op:")
    for name, t in results.items():
        print(f"  {name:14s} {t / N_OPS * 1e6:8.2f} us/op")
    tg = results["tensorgrad"]
    if "pytorch eager" in results:
        print(f"  ratio tensorgrad / pytorch eager: {tg / results['pytorch eager']:.2f}x")
    print(f"  ratio tensorgrad / jax.jit (whole function): {tg / results['jax.jit']:.2f}x")


if __name__ == "__main__":
    main()
