"""One model trained four ways, imperative to functional to compiled, with the same result.

1. **eager**: PyTorch's imperative style, ``loss.backward(); opt.step()`` (``optim.SGD``).
2. **func.grad**: the loss as a pure function of a dict of parameters (``functional_call``),
   differentiated by ``tensorgrad.func.grad``, and the update written functionally
   (``{k: p - lr * g}``): no tape, no ``.grad``, no optimizer object.
3. **compile**: the eager step of 1. under ``tensorgrad.compile``: one XLA program per step.
4. **plain JAX**: the same network and update written with ``jax.numpy``, under ``jax.jit``.

All four start from the same weights and see the same batches. After training, each one's
parameters agree with the eager run's to 1e-5 (asserted, and the largest difference printed).
A table gives each style's whole run (which includes compiling; the styles run one after another
in one process, so a later one may reuse kernels an earlier one compiled) and its steady time
per step; the same numbers are drawn as a bar chart into ``imperative_vs_functional.png``.

Run: python examples/imperative_vs_functional.py [--steps N] [--device cuda] [--out FOLDER]
"""

import copy
import time

import jax
import jax.numpy as jnp
import numpy as np

import _common
from train_four_ways import eager_step, make_batches, make_model

import tensorgrad as torch
import tensorgrad.nn.functional as F
from tensorgrad.func import functional_call, grad

LR = 0.05
TOLERANCE = 1e-5


def eager(model):
    step = eager_step(model, torch.optim.SGD(model.parameters(), lr=LR))
    return step, lambda: {k: v.detach().numpy() for k, v in model.named_parameters()}


def functional(model):
    state = {"params": {k: v.detach() for k, v in model.named_parameters()}}

    def loss_fn(params, x, y):
        return F.cross_entropy(functional_call(model, params, (x,)), y)

    def step(x, y):
        grads = grad(loss_fn)(state["params"], x, y)
        state["params"] = {k: p - LR * grads[k] for k, p in state["params"].items()}
    return step, lambda: {k: v.numpy() for k, v in state["params"].items()}


def compiled(model):
    step, params = eager(model)
    return torch.compile(step), params


def plain_jax(model):
    names = [k for k, _ in model.named_parameters()]
    state = {"params": {k: v.detach().jax() for k, v in model.named_parameters()}}
    linears = sorted({k.rsplit(".", 1)[0] for k in names}, key=int)

    def loss_fn(params, x, y):
        h = x
        for i, layer in enumerate(linears):
            h = h @ params[f"{layer}.weight"].T + params[f"{layer}.bias"]
            if i < len(linears) - 1:
                h = jax.nn.relu(h)
        return -jnp.take_along_axis(jax.nn.log_softmax(h), y[:, None], 1).mean()

    @jax.jit
    def update(params, x, y):
        g = jax.grad(loss_fn)(params, x, y)
        return jax.tree_util.tree_map(lambda p, d: p - LR * d, params, g)

    def step(x, y):
        state["params"] = update(state["params"], x, y)
        return state["params"]
    return step, lambda: {k: np.asarray(v) for k, v in state["params"].items()}


STYLES = {"eager": eager, "func.grad": functional, "compile": compiled, "plain JAX": plain_jax}


def train(make, model, batches, device, jax_inputs):
    step, params = make(model)
    times = []
    for x, y in batches:
        x, y = (jnp.asarray(x), jnp.asarray(y)) if jax_inputs else (torch.as_tensor(x).to(device), torch.as_tensor(y).to(device))
        start = time.perf_counter()
        step(x, y)
        jax.block_until_ready(params())
        times.append(time.perf_counter() - start)
    steady = float(np.median(times[len(times) // 2:]))
    return params(), sum(times), steady


def plot(results, path):
    plt = _common.pyplot()
    names = list(results)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    colors = ["C0", "C1", "C2", "C3"]
    ax.bar_label(ax.bar(names, [results[n][1] for n in names], color=colors), fmt="%.2f")
    ax.set(ylabel="s", title="whole run (includes compiling)")
    ax2.bar_label(ax2.bar(names, [results[n][2] * 1e3 for n in names], color=colors), fmt="%.2f")
    ax2.set(ylabel="ms per step", title="steady step (median of the second half)")
    for a in (ax, ax2):
        for label in a.get_xticklabels():
            label.set_rotation(15)
    _common.save(fig, path)


def main(argv=None):
    p = _common.parser(__doc__)
    p.add_argument("--steps", type=int, default=200)
    args = p.parse_args(argv)
    device = _common.setup(args)
    batches = make_batches(args.steps)
    base = make_model()
    results = {}
    for name, make in STYLES.items():
        results[name] = train(make, copy.deepcopy(base).to(device), batches, device, name == "plain JAX")
    reference = results["eager"][0]
    print(f"\n{'style':>10} | {'whole run (s)':>15} | {'steady (ms/step)':>16} | max |param - eager's|")
    print("-" * 72)
    worst = 0.0
    for name, (params, total, steady) in results.items():
        diff = max(float(np.abs(params[k] - reference[k]).max()) for k in reference)
        worst = max(worst, diff)
        print(f"{name:>10} | {total:15.2f} | {steady * 1e3:16.3f} | {diff:.2e}")
    assert worst <= TOLERANCE, f"parameters differ by {worst:.2e}"
    print(f"\nafter {args.steps} steps all four styles' parameters agree to {TOLERANCE:g} (largest difference {worst:.2e})")
    plot(results, args.out / "imperative_vs_functional.png")
    return results, worst


if __name__ == "__main__":
    main()
