"""The steady-state workloads of ``benchmarks/run.py``, each written for PyTorch, for tensorgrad
(eager and ``tensorgrad.compile``) and as a hand-written ``jax.jit`` step.

``python benchmarks/workloads.py NAME`` times one workload in this process and prints one JSON
line: seconds per step for each way it runs. ``run.py`` starts it with the thread counts pinned.
"""

import functools
import json
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import tensorgrad as tg
import tensorgrad.nn.functional as TF
from chain_bench import _JaxModule as _Jnp, chain as _chain     # the 50 ops (this folder is on sys.path)

jax.config.update("jax_enable_x64", True)


def _median_times(ways, warmup, repeats, inner):
    """Seconds per step of each way (``{name: (step, sync)}``): the median of ``repeats`` samples
    of ``inner`` steps each, taken in turns (one sample of every way, then the next round), so
    that a machine whose speed drifts during the run (a shared one) slows every way alike and the
    ratios hold."""
    for step, sync in ways.values():
        for _ in range(warmup):
            sync(step())
    samples = {name: [] for name in ways}
    for _ in range(repeats):
        for name, (step, sync) in ways.items():
            start = time.perf_counter()
            for _ in range(inner):
                out = step()
            sync(out)
            samples[name].append((time.perf_counter() - start) / inner)
    return {name: statistics.median(times) for name, times in samples.items()}


def _torch():
    import torch
    return torch


def _sync_tg(t):
    t._data.block_until_ready()


def _sync_torch(t):
    t.detach().numpy()


def _sync_jax(tree):
    jax.block_until_ready(tree)


# ---------------------------------------------------------------------- W1: 50 tiny ops

def w1(quick):
    torch = _torch()
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    x_tg = tg.tensor(data, requires_grad=True)
    x_t = torch.tensor(data, requires_grad=True)

    def tg_step():
        x_tg.grad = None
        _chain(tg, x_tg).sum().backward()
        return x_tg.grad

    def torch_step():
        x_t.grad = None
        _chain(torch, x_t).sum().backward()
        return x_t.grad

    grad = jax.jit(jax.grad(lambda x: _chain(_Jnp, x).sum()))
    x_j = jnp.asarray(data)
    n = (3, 5, 20) if quick else (5, 15, 25)
    return _median_times({"tensorgrad": (tg_step, _sync_tg), "torch": (torch_step, _sync_torch),
                          "jax.jit": (lambda: grad(x_j), _sync_jax)}, *n)


# ---------------------------------------------------------------------- models shared by W2 and W4

def _mlp(m):
    return m.nn.Sequential(m.nn.Linear(784, 512), m.nn.ReLU(), m.nn.Linear(512, 512), m.nn.ReLU(),
                           m.nn.Linear(512, 10))


def _cnn(m):
    return m.nn.Sequential(m.nn.Conv2d(1, 6, 5), m.nn.ReLU(), m.nn.MaxPool2d(2), m.nn.Conv2d(6, 16, 5),
                           m.nn.ReLU(), m.nn.MaxPool2d(2), m.nn.Flatten(), m.nn.Linear(256, 120), m.nn.ReLU(),
                           m.nn.Linear(120, 10))


def _copy_weights(src, dst):
    import torch
    with torch.no_grad():
        for p, q in zip(dst.parameters(), src.parameters()):
            p.copy_(torch.from_numpy(np.array(q.detach().numpy())))


def _jax_forward(kind):
    def linear(x, w, b):
        return x @ w.T + b

    def mlp(p, x):
        h = jax.nn.relu(linear(x, p[0], p[1]))
        h = jax.nn.relu(linear(h, p[2], p[3]))
        return linear(h, p[4], p[5])

    def conv_block(x, w, b):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
        y = jax.nn.relu(y + b[None, :, None, None])
        return jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def cnn(p, x):
        h = conv_block(conv_block(x, p[0], p[1]), p[2], p[3]).reshape(x.shape[0], -1)
        return linear(jax.nn.relu(linear(h, p[4], p[5])), p[6], p[7])
    return mlp if kind == "mlp" else cnn


def _jax_step(kind, lr):
    forward = _jax_forward(kind)

    def loss(p, x, y):
        logits = forward(p, x)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1))

    # the parameters are donated, as a JAX training step is written (XLA writes the new
    # parameters into the old buffers), and as tensorgrad.compile donates the state it writes
    @functools.partial(jax.jit, donate_argnums=0)
    def step(p, x, y):
        value, g = jax.value_and_grad(loss)(p, x, y)
        return [w - lr * gw for w, gw in zip(p, g)], value
    return step


def _training(kind, x_np, y_np, quick, lr=0.01):
    torch = _torch()
    tg.manual_seed(0)
    model = _mlp(tg) if kind == "mlp" else _cnn(tg)
    twin = _mlp(tg) if kind == "mlp" else _cnn(tg)
    twin.load_state_dict(model.state_dict())
    t_model = _mlp(torch) if kind == "mlp" else _cnn(torch)
    _copy_weights(model, t_model)
    opt, twin_opt = tg.optim.SGD(model.parameters(), lr=lr), tg.optim.SGD(twin.parameters(), lr=lr)
    t_opt = torch.optim.SGD(t_model.parameters(), lr=lr)
    x, y = tg.tensor(x_np), tg.tensor(y_np)
    xt, yt = torch.tensor(x_np), torch.tensor(y_np)

    def tg_step(model=model, opt=opt):
        opt.zero_grad()
        loss = TF.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    def torch_step():
        t_opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(t_model(xt), yt)
        loss.backward()
        t_opt.step()
        return loss

    compiled = tg.compile(lambda: tg_step(twin, twin_opt))
    params = [jnp.asarray(p.detach().numpy()) for p in model.parameters()]
    step = _jax_step(kind, lr)
    xj, yj = jnp.asarray(x_np), jnp.asarray(y_np)
    state = {"p": params}

    def jax_step():
        state["p"], value = step(state["p"], xj, yj)
        return value
    n = (3, 5, 5) if quick else (5, 15, 10)
    return _median_times({"tensorgrad": (tg_step, _sync_tg), "tensorgrad.compile": (compiled, _sync_tg),
                          "torch": (torch_step, _sync_torch), "jax.jit": (jax_step, _sync_jax)}, *n)


def w2(quick):
    rng = np.random.default_rng(0)
    return _training("mlp", rng.standard_normal((128, 784)).astype(np.float32), rng.integers(0, 10, 128), quick)


def w4(quick):
    rng = np.random.default_rng(0)
    return _training("cnn", rng.standard_normal((64, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, 64), quick)


# ---------------------------------------------------------------------- W3: four 2048x2048 matmuls

def w3(quick):
    torch = _torch()
    n = 1024 if quick else 2048
    rng = np.random.default_rng(0)
    mats = [(rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32) for _ in range(5)]
    tg_w = [tg.tensor(m, requires_grad=True) for m in mats]
    t_w = [torch.tensor(m, requires_grad=True) for m in mats]
    # a full-rank cotangent: with ``out.sum()`` the backward's products are rank one, which XLA
    # (inside one jit program) reduces to matrix-vector products, so no backward matmul would run
    weights = rng.standard_normal((n, n)).astype(np.float32)
    cot = {id(tg): tg.tensor(weights), id(torch): torch.tensor(weights), id(jnp): jnp.asarray(weights)}

    def chain(ws, m):
        out = ws[0]
        for w in ws[1:]:
            out = out @ w
        return (out * cot[id(m)]).sum()

    def tg_step():
        for w in tg_w:
            w.grad = None
        chain(tg_w, tg).backward()
        return tg_w[1].grad

    def torch_step():
        for w in t_w:
            w.grad = None
        chain(t_w, torch).backward()
        return t_w[1].grad

    # value and gradient, as W2's and W4's jit steps: the eager steps compute the loss, and with
    # ``jax.grad`` alone XLA drops the last product (its value is never returned): 11 of the 12
    grad = jax.jit(jax.value_and_grad(lambda ws: chain(ws, jnp)))
    j_w = [jnp.asarray(m) for m in mats]
    counts = (2, 3, 2) if quick else (2, 5, 3)
    return _median_times({"tensorgrad": (tg_step, _sync_tg), "torch": (torch_step, _sync_torch),
                          "jax.jit": (lambda: grad(j_w), _sync_jax)}, *counts)


WORKLOADS = {"W1": w1, "W2": w2, "W3": w3, "W4": w4}


if __name__ == "__main__":
    import torch
    torch.set_num_threads(int(sys.argv[2]))
    print(json.dumps(WORKLOADS[sys.argv[1]]("--quick" in sys.argv)))
