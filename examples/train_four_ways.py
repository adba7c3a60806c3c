"""One model, one training loop, four ways to run it.

1. eager: PyTorch-style code on the tape (``loss.backward()``, ``optimizer.step()``).
2. ``tensorgrad.compile``: the same step function, run as one XLA program per call.
3. ``tensorgrad.func``: the loss as a function of the parameters (``functional_call``),
   differentiated by ``func.grad``, with the same optimizer; and that step under
   ``tensorgrad.compile``.
4. plain JAX: the same computation written with ``jax.numpy`` under ``jax.jit``.

All start from the same weights and see the same batches, so they print the same losses; the
last column is the time per step. Run: python examples/train_four_ways.py [steps] [--device cuda]
"""

import copy
import time

import jax
import jax.numpy as jnp
import numpy as np

import tensorgrad as torch
import tensorgrad.nn as nn
import tensorgrad.nn.functional as F
from tensorgrad.func import functional_call, grad_and_value

LR, MOMENTUM = 0.05, 0.9


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))


def make_batches(steps, batch=64, seed=0):
    rng = np.random.default_rng(seed)
    teacher = rng.standard_normal((32, 10))
    out = []
    for _ in range(steps):
        x = rng.standard_normal((batch, 32)).astype(np.float32)
        out.append((x, (x @ teacher).argmax(1)))
    return out


def eager_step(model, opt):
    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def func_step(model, opt):
    params = dict(model.named_parameters())

    def loss_fn(p, x, y):
        return F.cross_entropy(functional_call(model, p, (x,)), y)

    def step(x, y):
        grads, loss = grad_and_value(loss_fn)({k: v.detach() for k, v in params.items()}, x, y)
        for name, p in params.items():
            p.grad = grads[name]
        opt.step()
        return loss
    return step


def jax_trainer(model):
    """The same network and SGD with momentum, written directly in JAX."""
    params = [(l.weight.jax(), l.bias.jax()) for l in model if isinstance(l, nn.Linear)]
    momenta = jax.tree_util.tree_map(jnp.zeros_like, params)

    def loss_fn(params, x, y):
        h = x
        for k, (w, b) in enumerate(params):
            h = h @ w.T + b
            if k < len(params) - 1:
                h = jax.nn.relu(h)
        logp = jax.nn.log_softmax(h)
        return -jnp.take_along_axis(logp, y[:, None], 1).mean()

    @jax.jit
    def update(params, momenta, x, y):
        loss, g = jax.value_and_grad(loss_fn)(params, x, y)
        momenta = jax.tree_util.tree_map(lambda m, d: MOMENTUM * m + d, momenta, g)
        params = jax.tree_util.tree_map(lambda p, m: p - LR * m, params, momenta)
        return params, momenta, loss

    state = [params, momenta]

    def step(x, y):
        state[0], state[1], loss = update(state[0], state[1], x, y)
        return loss
    return step


STEPS = {
    "eager": eager_step,
    "tensorgrad.compile": lambda m, o: torch.compile(eager_step(m, o)),
    "tensorgrad.func": func_step,
    "func + compile": lambda m, o: torch.compile(func_step(m, o)),
}


def run(name, step, batches, to_input):
    losses = []
    times = []
    for x, y in batches:
        x, y = to_input(x), to_input(y)
        start = time.perf_counter()
        loss = step(x, y)
        jax.block_until_ready(loss.jax() if isinstance(loss, torch.Tensor) else loss)
        times.append(time.perf_counter() - start)
        losses.append(float(loss.detach() if isinstance(loss, torch.Tensor) else loss))
    steady = sorted(times[len(times) // 2:])[len(times[len(times) // 2:]) // 2]   # median of the second half
    print(f"{name:>18}: first loss {losses[0]:.6f}, last loss {losses[-1]:.6f}, {steady * 1e3:8.3f} ms/step")
    return losses, steady


def main(steps=40):
    batches = make_batches(steps)
    base = make_model()
    results = {}
    for name, make in STEPS.items():
        model = copy.deepcopy(base)
        opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
        step = make(model, opt)
        results[name] = run(name, step, batches, torch.as_tensor)
    results["jax.jit"] = run("jax.jit", jax_trainer(copy.deepcopy(base)), batches, jnp.asarray)
    reference = np.array(results["eager"][0])
    for name, (losses, _) in results.items():
        assert np.allclose(losses, reference, rtol=1e-4, atol=1e-5), name
    print(f"all {len(results)} give the same losses (rtol 1e-4)")
    return results


if __name__ == "__main__":
    import _common
    parser = _common.parser(__doc__, out=False)
    parser.add_argument("steps", type=int, nargs="?", default=40)
    args = parser.parse_args()
    _common.select_device(args.device)
    main(args.steps)
