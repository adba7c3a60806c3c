"""One MLP training step (forward, cross-entropy, backward, SGD with momentum) per call, timed
in the same run: PyTorch eager, tensorgrad eager, tensorgrad.compile, tensorgrad.func (alone and
under tensorgrad.compile) and one hand-written jax.jit step. Prints each time per step and the ratios to PyTorch and to
jax.jit.

Run: python benchmarks/compile_bench.py [steps]
"""

import copy
import os
import sys
import time

import jax
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
import train_four_ways as ways  # noqa: E402
import tensorgrad as tg  # noqa: E402


def torch_step(base):
    import torch
    model = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                                torch.nn.ReLU(), torch.nn.Linear(128, 10))
    with torch.no_grad():
        for p, q in zip(model.parameters(), base.parameters()):
            p.copy_(torch.from_numpy(np.array(q.detach().numpy())))
    opt = torch.optim.SGD(model.parameters(), lr=ways.LR, momentum=ways.MOMENTUM)

    def step(x, y):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step, torch.as_tensor


def timed(step, batches, to_input, sync):
    inputs = [(to_input(x), to_input(y)) for x, y in batches]
    for x, y in inputs[:5]:                     # warm-up: first calls trace and compile
        sync(step(x, y))
    start = time.perf_counter()
    for x, y in inputs[5:]:
        out = step(x, y)
    sync(out)
    return (time.perf_counter() - start) / (len(inputs) - 5)


def main(steps=200):
    batches = ways.make_batches(steps + 5)
    base = ways.make_model()
    tg_sync = lambda t: jax.block_until_ready(t.jax() if isinstance(t, tg.Tensor) else t)  # noqa: E731
    times = {}
    for name, make in ways.STEPS.items():
        name = "tensorgrad eager" if name == "eager" else name
        model = copy.deepcopy(base)
        opt = tg.optim.SGD(model.parameters(), lr=ways.LR, momentum=ways.MOMENTUM)
        n = steps if name != "tensorgrad.func" else max(20, steps // 10)
        times[name] = timed(make(model, opt), batches[:n + 5], tg.as_tensor, tg_sync)
    times["jax.jit"] = timed(ways.jax_trainer(copy.deepcopy(base)), batches, jax.numpy.asarray,
                             jax.block_until_ready)
    try:
        step, to_input = torch_step(base)
        times["PyTorch eager"] = timed(step, batches, to_input, lambda t: t)
    except ImportError:
        print("(PyTorch is not installed: no PyTorch column)")
    print(f"{'':>20} {'ms/step':>10} {'/ PyTorch':>10} {'/ jax.jit':>10}")
    for name, t in times.items():
        vs_torch = f"{t / times['PyTorch eager']:10.2f}" if "PyTorch eager" in times else f"{'-':>10}"
        print(f"{name:>20} {t * 1e3:10.3f} {vs_torch} {t / times['jax.jit']:10.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
