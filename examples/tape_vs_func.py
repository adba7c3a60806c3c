"""The same training loss differentiated two ways gives the same gradients.

1. The tape, as in any PyTorch script: leaves with ``requires_grad=True``, ``loss.backward()``,
   then read ``.grad``.
2. ``tensorgrad.func.grad``: the loss as a function of its parameters, transformed by JAX.

They agree to float64's last bits: both run the same derivative formulas, but the tape may run
its whole backward as one compiled XLA program, whose fused arithmetic can round the last bit
differently from the op-by-op evaluation of ``func.grad``.

Run: python examples/tape_vs_func.py [--device cuda]
"""

import numpy as np

import tensorgrad as torch
from tensorgrad.func import grad, vmap


def loss_fn(params, x, y):
    """A two-layer classifier's cross-entropy; plain PyTorch-style code."""
    h = (x @ params["w1"] + params["b1"]).tanh()
    logits = h @ params["w2"] + params["b2"]
    log_probs = logits - logits.exp().sum(-1, keepdim=True).log()
    return -(log_probs * y).sum(-1).mean()


def make_problem(seed=0):
    rng = np.random.default_rng(seed)
    params = {
        "w1": rng.standard_normal((4, 8)) * 0.5, "b1": np.zeros(8),
        "w2": rng.standard_normal((8, 3)) * 0.5, "b2": np.zeros(3),
    }
    x = torch.tensor(rng.standard_normal((16, 4)))
    y = torch.tensor(np.eye(3)[rng.integers(0, 3, 16)])
    return params, x, y


def compare():
    """Gradients from the tape and from func.grad, as two dicts of tensors."""
    arrays, x, y = make_problem()

    # 1. the tape
    leaves = {k: torch.tensor(v, requires_grad=True) for k, v in arrays.items()}
    loss = loss_fn(leaves, x, y)
    loss.backward()
    tape = {k: t.grad for k, t in leaves.items()}

    # 2. the functional transform
    params = {k: torch.tensor(v) for k, v in arrays.items()}
    func = grad(loss_fn)(params, x, y)
    return tape, func


def main():
    tape, func = compare()
    for name in tape:
        a, b = tape[name].numpy(), func[name].numpy()
        same = bool(np.allclose(a, b, rtol=1e-14, atol=1e-16))
        print(f"{name}: tape and func.grad agree: {same} (largest difference {np.abs(a - b).max():.1e})")
        assert same

    # per-sample gradients come for free on the functional side
    arrays, x, y = make_problem()
    params = {k: torch.tensor(v) for k, v in arrays.items()}
    per_sample = vmap(grad(lambda p, xi, yi: loss_fn(p, xi[None], yi[None])), in_dims=(None, 0, 0))(params, x, y)
    print("per-sample gradient of w1:", tuple(per_sample["w1"].shape))
    print("their mean equals the batch gradient:", bool(torch.allclose(per_sample["w1"].mean(0), tape["w1"])))


if __name__ == "__main__":
    import _common
    _common.select_device(_common.parser(__doc__, out=False).parse_args().device)
    main()
