"""Cold start in plain JAX: the same CNN and SGD-with-momentum steps as ``train_first_steps.py``,
written as a JAX user writes them (one ``jax.jit`` of the loss's ``value_and_grad`` and the update).
``benchmarks/run.py`` runs it beside the PyTorch and tensorgrad runs."""

import time

import jax
import jax.numpy as jnp


def conv(x, w, b):
    y = jax.lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
    return y + b[None, :, None, None]


def pool(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def loss_fn(p, x, y):
    h = pool(jax.nn.relu(conv(x, p[0], p[1])))
    h = pool(jax.nn.relu(conv(h, p[2], p[3])))
    h = h.reshape(h.shape[0], -1)
    h = jax.nn.relu(h @ p[4].T + p[5])
    logits = h @ p[6].T + p[7]
    return -jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1).mean()


@jax.jit
def step(p, buf, x, y):
    loss, g = jax.value_and_grad(loss_fn)(p, x, y)
    buf = [0.9 * b + gi for b, gi in zip(buf, g)]
    return [pi - 0.01 * b for pi, b in zip(p, buf)], buf, loss


def init(key, shape, fan_in):
    bound = 1 / fan_in ** 0.5
    return jax.random.uniform(key, shape, minval=-bound, maxval=bound)


shapes = [((6, 1, 5, 5), 25), ((6,), 25), ((16, 6, 5, 5), 150), ((16,), 150), ((120, 256), 256), ((120,), 256),
          ((10, 120), 120), ((10,), 120)]
keys = jax.random.split(jax.random.key(0), len(shapes) + 2)
params = [init(k, s, f) for k, (s, f) in zip(keys, shapes)]
x = jax.random.normal(keys[-2], (64, 1, 28, 28))
y = jax.random.randint(keys[-1], (64,), 0, 10)
buf = [jnp.zeros_like(q) for q in params]
start = time.perf_counter()
for i in range(5):
    params, buf, loss = step(params, buf, x, y)
    value = float(loss)
    if i == 1:
        print(f"METRIC first_two_steps {time.perf_counter() - start:.6f}")
print(f"METRIC five_steps {time.perf_counter() - start:.6f}")
print("loss", round(value, 4))
