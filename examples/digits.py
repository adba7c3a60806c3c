"""Handwritten digits: a real dataset, a DataLoader, an MLP and a small CNN, checkpoints.

scikit-learn's bundled 8x8 digits (1797 images, shipped inside the package: nothing is
downloaded; ``pip install -e ".[examples]"``) are split into training and test sets and served
by ``tensorgrad.utils.data.DataLoader`` over a ``TensorDataset``. An MLP and a small CNN are
trained with Adam, with tqdm progress bars; each epoch prints the training loss and the test
accuracy, and saves a checkpoint (``tensorgrad.save`` of the model's and optimizer's state
dicts, the epoch, the history and the random generator's state) to ``digits_<model>.pt`` (and, with ``--keep-epochs``, to ``digits_<model>_epoch<N>.pt``).
``--resume`` loads those and continues from the saved epoch up to ``--epochs``, with the same
batches a run without the interruption would have seen. The learning curves of both models
are drawn into ``digits_curves.png``.

Run: python examples/digits.py [--epochs N] [--resume] [--models mlp,cnn] [--device cuda] [--out FOLDER]
"""

import numpy as np

import _common

import tensorgrad as torch
import tensorgrad.nn.functional as F
from tensorgrad import nn
from tensorgrad.utils.data import DataLoader, TensorDataset


def load(device, test_fraction=0.2):
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]      # (N, 1, 8, 8), in [0, 1]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(y))
    n_test = int(len(y) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    as_t = lambda a: torch.from_numpy(a).to(device)
    return TensorDataset(as_t(x[train]), as_t(y[train])), TensorDataset(as_t(x[test]), as_t(y[test]))


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def cnn():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),     # 16 x 4 x 4
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),    # 32 x 2 x 2
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10))


MODELS = {"mlp": mlp, "cnn": cnn}


def accuracy(model, data):
    model.eval()
    with torch.no_grad():
        x, y = data.tensors
        acc = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def train(name, train_set, test_set, device, args):
    from tqdm import tqdm
    path = args.out / f"digits_{name}.pt"
    torch.manual_seed(0)
    model = MODELS[name]().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    history, start = [], 0
    if args.resume and path.exists():
        ckpt = torch.load(path)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        torch.set_rng_state(ckpt["rng"])
        history, start = ckpt["history"], ckpt["epoch"]
        print(f"{name}: resuming from {path} at epoch {start}")
    elif args.resume:
        print(f"{name}: no checkpoint at {path}, starting afresh")
    loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    for epoch in range(start, args.epochs):
        total, count = 0.0, 0
        bar = tqdm(loader, desc=f"{name} epoch {epoch + 1}/{args.epochs}", leave=False, disable=args.no_bar)
        for x, y in bar:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            total, count = total + loss.item() * len(y), count + len(y)
            bar.set_postfix(loss=f"{loss.item():.3f}", refresh=False)
        history.append({"epoch": epoch + 1, "loss": total / count, "test_accuracy": accuracy(model, test_set)})
        print(f"{name} epoch {epoch + 1}: train loss {history[-1]['loss']:.4f}, "
              f"test accuracy {history[-1]['test_accuracy']:.4f}")
        ckpt = {"epoch": epoch + 1, "model": model.state_dict(), "optimizer": opt.state_dict(),
                "history": history, "rng": torch.get_rng_state()}
        torch.save(ckpt, path)
        if args.keep_epochs:
            torch.save(ckpt, path.with_name(f"{path.stem}_epoch{epoch + 1}.pt"))
    return model, history


def plot(histories, n_test, path):
    plt = _common.pyplot()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for name, history in histories.items():
        epochs = [h["epoch"] for h in history]
        ax.plot(epochs, [h["loss"] for h in history], marker="o", label=name)
        ax2.plot(epochs, [h["test_accuracy"] for h in history], marker="o", label=name)
    ax.set(xlabel="epoch", ylabel="cross-entropy", title="training loss")
    ax2.set(xlabel="epoch", ylabel="accuracy", title=f"test accuracy ({n_test} images)")
    for a in (ax, ax2):
        a.grid(True, alpha=0.3)
        a.legend()
    _common.save(fig, path)


def main(argv=None):
    p = _common.parser(__doc__)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--models", default="mlp,cnn", help="comma-separated: mlp, cnn")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoints in --out")
    p.add_argument("--keep-epochs", action="store_true",
                   help="also keep each epoch's checkpoint (digits_<model>_epoch<N>.pt)")
    p.add_argument("--no-bar", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    device = _common.setup(args)
    train_set, test_set = load(device)
    print(f"digits: {len(train_set)} training and {len(test_set)} test images of 8x8 pixels")
    histories = {}
    for name in args.models.split(","):
        _, histories[name] = train(name, train_set, test_set, device, args)
    plot(histories, len(test_set), args.out / "digits_curves.png")
    return histories


if __name__ == "__main__":
    main()
