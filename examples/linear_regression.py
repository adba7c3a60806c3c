"""Linear regression two ways: from scratch, then with ``nn`` and ``optim``.

1. From scratch (d2l 3.2): parameters ``w`` and ``b`` as leaves with ``requires_grad=True``,
   minibatches, ``loss.backward()``, and the SGD update written by hand under ``no_grad``
   (followed by ``grad.zero_()``).
2. Concisely (d2l 3.3): ``nn.Linear``, ``nn.MSELoss`` and ``optim.SGD`` on a ``DataLoader``.

Both fit noisy samples of y = 2.5 x + 0.8 and recover the slope and intercept; the data, both
fitted lines and both loss curves are drawn into ``linear_regression.png``.

Run: python examples/linear_regression.py [--epochs N] [--device cuda] [--out FOLDER]
"""

import _common

import tensorgrad as torch
from tensorgrad import nn
from tensorgrad.utils.data import DataLoader, TensorDataset

TRUE_W, TRUE_B = 2.5, 0.8


def make_data(n, device):
    torch.manual_seed(0)
    x = torch.rand(n, 1, device=device) * 4 - 2
    y = TRUE_W * x + TRUE_B + 0.3 * torch.randn(n, 1, device=device)
    return x, y


def from_scratch(x, y, epochs, lr=0.05, batch=32):
    w = torch.zeros(1, 1, device=x.device, requires_grad=True)
    b = torch.zeros(1, device=x.device, requires_grad=True)
    with torch.no_grad():
        losses = [((x @ w + b - y) ** 2 / 2).mean().item()]     # before training
    for epoch in range(epochs):
        perm = torch.randperm(len(x), device=x.device)
        for i in range(0, len(x), batch):
            idx = perm[i:i + batch]
            loss = ((x[idx] @ w + b - y[idx]) ** 2 / 2).mean()
            loss.backward()
            with torch.no_grad():          # the update is not part of the graph
                w -= lr * w.grad
                b -= lr * b.grad
                w.grad.zero_()
                b.grad.zero_()
        with torch.no_grad():
            losses.append(((x @ w + b - y) ** 2 / 2).mean().item())
        print(f"  scratch epoch {epoch + 1}: loss {losses[-1]:.5f}")
    return w.detach().item(), b.detach().item(), losses


def with_nn(x, y, epochs, lr=0.05, batch=32):
    model = nn.Linear(1, 1).to(x.device)
    loss_fn = nn.MSELoss()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loader = DataLoader(TensorDataset(x, y), batch_size=batch, shuffle=True)
    with torch.no_grad():
        losses = [loss_fn(model(x), y).item() / 2]              # before training
    for epoch in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()
        with torch.no_grad():
            losses.append(loss_fn(model(x), y).item() / 2)
        print(f"  nn/optim epoch {epoch + 1}: loss {losses[-1]:.5f}")
    return model.weight.item(), model.bias.item(), losses


def plot(x, y, fits, path):
    plt = _common.pyplot()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    xs = x.cpu().numpy()[:, 0]
    ax.scatter(xs, y.cpu().numpy()[:, 0], s=6, alpha=0.4, color="gray", label="data")
    grid = [xs.min(), xs.max()]
    ax.plot(grid, [TRUE_W * g + TRUE_B for g in grid], "k:", label=f"truth: y = {TRUE_W} x + {TRUE_B}")
    for (name, (w, b, losses)), style in zip(fits.items(), ("-", "--")):
        ax.plot(grid, [w * g + b for g in grid], style, label=f"{name}: y = {w:.3f} x + {b:.3f}")
        ax2.plot(range(len(losses)), losses, style, marker="o", label=name)
    ax.set(xlabel="x", ylabel="y", title="fitted lines")
    ax.legend(loc="upper left")
    ax2.set(xlabel="epochs trained", ylabel="loss (squared error / 2)", title="training loss", yscale="log")
    ax2.legend()
    _common.save(fig, path)


def main(argv=None):
    p = _common.parser(__doc__)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--samples", type=int, default=1000)
    args = p.parse_args(argv)
    device = _common.setup(args)
    x, y = make_data(args.samples, device)
    fits = {}
    print("from scratch (manual SGD under no_grad):")
    fits["from scratch"] = from_scratch(x, y, args.epochs)
    print("with nn.Linear, nn.MSELoss, optim.SGD, DataLoader:")
    fits["nn + optim"] = with_nn(x, y, args.epochs)
    for name, (w, b, _) in fits.items():
        print(f"{name:>12}: w = {w:.4f} (true {TRUE_W}), b = {b:.4f} (true {TRUE_B})")
        assert abs(w - TRUE_W) < 0.1 and abs(b - TRUE_B) < 0.1, name
    plot(x, y, fits, args.out / "linear_regression.png")
    return fits


if __name__ == "__main__":
    main()
