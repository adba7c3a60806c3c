"""Smoke tests of ``examples/``: each example runs (small sizes where it takes options), writes
valid PNG pictures, and says what it must; ``--device`` with a device that is not here ends
with one line; ``digits.py --resume`` continues from the saved epoch and state. Examples whose
optional dependencies (the ``examples`` extra: matplotlib, tqdm, scikit-learn, torchviz) are
missing are skipped. Also what torchviz reads of tensorgrad (``autograd.Variable``,
``Tensor._is_view``), against PyTorch.
"""

import os
import pathlib
import re
import struct
import subprocess
import sys

import pytest

import tensorgrad as tg

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
ROOT = EXAMPLES.parent


CACHE = {}


@pytest.fixture(scope="module", autouse=True)
def compilation_cache(tmp_path_factory):
    """One folder of compiled programs for this file's example runs (the suite runs without a
    cache on disk): the examples compile many of the same kernels, and the file keeps to its
    time budget. (The examples' cold times, without a cache, are checked by hand.)"""
    CACHE["dir"] = tmp_path_factory.mktemp("xla")
    yield
    CACHE.clear()


def run(name, *args, rc=0):
    """Run ``examples/name`` with ``args`` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    if "dir" in CACHE:
        env["TENSORGRAD_COMPILATION_CACHE"] = str(CACHE["dir"])
    proc = subprocess.run([sys.executable, str(EXAMPLES / name), *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=300, cwd=ROOT)
    assert proc.returncode == rc, proc.stdout + proc.stderr
    return proc.stdout, proc.stderr


def check_png(path, min_size=200):
    """The file is a PNG (signature, IHDR) of a sensible size, and not empty."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= min_size and height >= min_size, (width, height)
    assert len(data) > 5000
    return width, height


def test_seed_tour(tmp_path):
    pytest.importorskip("matplotlib")
    out, _ = run("seed_tour.py", "--out", tmp_path)
    assert out.splitlines()[0].startswith("device: cpu (JAX device ")
    for name in ("pytorch_book_1", "pytorch_book_5", "d2l_2_5_1", "d2l_exercises"):
        assert f"=== {name}: " in out
    assert "RuntimeError Trying to backward through the graph a second time" in out
    assert "largest difference from cos(x): 0.00e+00" in out
    check_png(tmp_path / "seed_tour_sin.png")


def test_linear_regression(tmp_path):
    pytest.importorskip("matplotlib")
    out, _ = run("linear_regression.py", "--epochs", 3, "--out", tmp_path)
    fits = [line.split(": w = ")[1] for line in out.splitlines() if ": w = " in line]
    assert len(fits) == 2                   # the example itself asserts |w - 2.5| < 0.1, |b - 0.8| < 0.1
    assert all(abs(float(f.split()[0]) - 2.5) < 0.1 for f in fits)
    check_png(tmp_path / "linear_regression.png")


def test_imperative_vs_functional(tmp_path):
    pytest.importorskip("matplotlib")
    out, _ = run("imperative_vs_functional.py", "--steps", 20, "--out", tmp_path)
    for style in ("eager", "func.grad", "compile", "plain JAX"):
        assert f"{style:>10} | " in out
    assert "after 20 steps all four styles' parameters agree to 1e-05" in out
    check_png(tmp_path / "imperative_vs_functional.png")


def test_higher_order():
    out, _ = run("higher_order.py")
    assert out.count("e-1") >= 6 and "autograd.functional.hvp" in out


def test_custom_function(tmp_path):
    pytest.importorskip("matplotlib")
    out, _ = run("custom_function.py", "--steps", 300, "--out", tmp_path)
    assert "gradcheck(LegendreP3.apply): True; gradcheck(BrokenP3.apply): False" in out
    assert "LegendreP3Backward" in out
    check_png(tmp_path / "custom_function.png")


def test_autograd_graph(tmp_path):
    """tensorgrad's DOT writer always; torchviz's make_dot on tensorgrad tensors where installed."""
    out, _ = run("autograd_graph.py", "--out", tmp_path)
    stems = ["autograd_graph"]
    try:
        import torchviz  # noqa: F401
        stems.append("autograd_graph_torchviz")
        assert "torchviz's make_dot on tensorgrad tensors: the same nodes: True" in out
    except ImportError:
        assert "torchviz is not installed" in out
    for stem in stems:
        dot = (tmp_path / f"{stem}.dot").read_text()
        for node in ("NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "TanhBackward0", "AccumulateGrad"):
            assert node in dot
        assert re.search(r'"0\.weight(\n|\\n) \(3, 4\)"', dot)
        if "saved " + str(tmp_path / f"{stem}.png") in out:
            check_png(tmp_path / f"{stem}.png")
        else:
            assert "dot program is not installed" in out


def test_make_dot_of_a_view_and_a_tuple():
    from tensorgrad.utils.viz import make_dot
    x = tg.ones(2, 3, requires_grad=True)
    base = x * 2
    view = base[0]
    source = make_dot((view, base.sum()), params={"x": x}).source
    assert "fillcolor=darkolivegreen3" in source and "style=dotted" in source    # the view's base
    assert source.count("[label=MulBackward0]") == 1 and '"x\\n (2, 3)" fillcolor=lightblue' in source
    with pytest.raises(TypeError, match="params must map names to tensors"):
        make_dot(view, params={"x": 1})


def _digits_state(path):
    ckpt = tg.load(path)
    return ckpt["epoch"], ckpt["history"], {k: v.numpy() for k, v in ckpt["model"].items()}


def test_digits_trains_checkpoints_and_resumes(tmp_path):
    """Two epochs at once, and the first epoch's checkpoint then ``--resume`` to two, give the
    same history and parameters (the checkpoint keeps the model, the optimizer, the epoch and
    the generator's state)."""
    pytest.importorskip("matplotlib")
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    import shutil
    import numpy as np
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    out, err = run("digits.py", "--epochs", 2, "--models", "mlp,cnn", "--keep-epochs", "--out", whole)
    assert "digits: 1438 training and 359 test images" in out
    assert "mlp epoch 2/2" in err and "cnn epoch 1/2" in err      # tqdm's bars
    assert "cnn epoch 2: train loss" in out
    check_png(whole / "digits_curves.png")
    parts.mkdir()
    shutil.copy(whole / "digits_mlp_epoch1.pt", parts / "digits_mlp.pt")
    out, _ = run("digits.py", "--epochs", 2, "--models", "mlp", "--resume", "--no-bar", "--out", parts)
    assert f"mlp: resuming from {parts / 'digits_mlp.pt'} at epoch 1" in out
    assert "mlp epoch 1:" not in out and "mlp epoch 2: train loss" in out
    epoch, history, params = _digits_state(parts / "digits_mlp.pt")
    epoch2, history2, params2 = _digits_state(whole / "digits_mlp.pt")
    assert epoch == epoch2 == 2 and [h["epoch"] for h in history] == [1, 2]
    for a, b in zip(history, history2):
        assert a["loss"] == pytest.approx(b["loss"], rel=1e-5) and a["test_accuracy"] == pytest.approx(b["test_accuracy"])
    for k in params2:
        np.testing.assert_allclose(params[k], params2[k], rtol=1e-5, atol=1e-6)
    assert history[-1]["test_accuracy"] > 0.8


def test_unavailable_device_is_one_line(capsys):
    import jax
    if any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("a GPU is here")
    out, err = run("autograd_tour.py", "--device", "cuda", rc=2)      # the old examples take --device too
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("autograd_tour.py: --device cuda: no such GPU device here, JAX sees [CpuDevice(id=0)]")
    assert err.rstrip().endswith('install GPU support with pip install -e ".[cuda12]"')
    sys.path.insert(0, str(EXAMPLES))
    try:
        import _common
    finally:
        sys.path.remove(str(EXAMPLES))
    for name, line in {"cuda:01": "--device cuda:01: Invalid device string: 'cuda:01'",
                       "tpu": "--device tpu: no such TPU device here, JAX sees [CpuDevice(id=0)]; install TPU support "
                              'with pip install -e ".[tpu]"'}.items():
        with pytest.raises(SystemExit) as exit:
            _common.select_device(name)
        assert exit.value.code == 2 and capsys.readouterr().err.endswith(f": {line}\n")


# ------------------------------------------------------------------ what torchviz reads

VARIABLE = """
Variable = torch.autograd.Variable
x = torch.ones(2, requires_grad=True)
v = Variable(x)
w = Variable(torch.zeros(2), requires_grad=True)
y = x[1:]
print(isinstance(x, Variable), isinstance(3, Variable), v is x, v.requires_grad, v.grad_fn, w, Variable())
print(y._is_view(), x._is_view(), (x * 2)._is_view(), y._base is x)
try:
    Variable(3)
except TypeError as e:
    print(type(e).__name__, e)
"""


def _print_under(module, src):
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(src, {"torch": module})
    return buf.getvalue()


def test_variable_and_is_view_as_torch():
    torch = pytest.importorskip("torch")
    assert _print_under(tg, VARIABLE) == _print_under(torch, VARIABLE)
