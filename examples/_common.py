"""What every example shares: the ``--device`` and ``--out`` options, and matplotlib set up to
write PNG files without a display.

``--device`` takes a PyTorch device string (``cpu``, ``cuda``, ``cuda:1``, ``gpu``, ``tpu``). By
default it is the best device JAX sees: a GPU, else a TPU, else the CPU. The chosen device is
printed with the JAX device it maps to, and made JAX's default device, so every tensor the
example creates lives there (``model.to(device)`` and ``x.to(device)`` in the examples then
change nothing, as in a PyTorch script whose default device is already right). A device that is
not here ends the example with one line naming the devices JAX sees and the install extra that
adds them, and exit status 2.
"""

import argparse
import pathlib
import sys

import jax

import tensorgrad as torch

OUT = pathlib.Path(__file__).resolve().parent / "out"
EXTRAS = {"cuda": 'pip install -e ".[cuda12]"', "tpu": 'pip install -e ".[tpu]"'}


def best_device():
    """'cuda' where JAX has a GPU, else 'tpu' where it has a TPU, else 'cpu'."""
    if torch.cuda.is_available():
        return "cuda"
    try:
        if jax.devices("tpu"):
            return "tpu"
    except RuntimeError:    # JAX raises for a backend it does not have
        pass
    return "cpu"


def parser(doc, out=True):
    """An ``argparse`` parser for an example: its docstring's first line as the description,
    ``--device``, and ``--out`` (unless ``out=False``: an example that writes no files)."""
    p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    p.add_argument("--device", default=None,
                   help="cpu, cuda, cuda:N, tpu (default: the best available: cuda, then tpu, then cpu)")
    if out:
        p.add_argument("--out", type=pathlib.Path, default=OUT,
                       help=f"folder for pictures and checkpoints (default {OUT})")
    return p


def fail(message):
    print(f"{pathlib.Path(sys.argv[0]).name}: {message}", file=sys.stderr)
    raise SystemExit(2)


def select_device(name=None):
    """The tensorgrad device named (default: the best available), printed with its JAX device
    and made JAX's default device; a device that is not here exits with one line."""
    name = best_device() if name is None else name
    try:
        dev = torch.device(name)
    except (RuntimeError, TypeError) as error:
        fail(f"--device {name}: {error}")
    try:
        jax_dev = dev.jax_device()
    except (RuntimeError, AssertionError, IndexError, NotImplementedError):
        what = {"cuda": "GPU", "tpu": "TPU"}.get(dev.type, dev.type)
        extra = f"; install {what} support with {EXTRAS[dev.type]}" if dev.type in EXTRAS else ""
        fail(f"--device {name}: no such {what} device here, JAX sees {jax.devices()}{extra}")
    jax.config.update("jax_default_device", jax_dev)
    print(f"device: {dev} (JAX device {jax_dev!r})")
    return dev


def setup(args):
    """Select ``args.device`` and create ``args.out``; returns the device."""
    dev = select_device(args.device)
    args.out.mkdir(parents=True, exist_ok=True)
    return dev


def pyplot():
    """matplotlib's pyplot on the Agg backend (PNG files, no display needed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, path):
    """Save a matplotlib figure as a PNG and say where."""
    fig.savefig(path, dpi=100, bbox_inches="tight")
    import matplotlib.pyplot as plt
    plt.close(fig)
    print(f"saved {path}")
