"""``python -m tensorgrad SCRIPT`` and ``install_as_torch``: a PyTorch script runs unmodified, its
``torch`` imports giving tensorgrad, and prints what it prints under PyTorch."""

import os
import subprocess
import sys
import textwrap

import pytest

from oracle import torch, _oracle  # noqa: F401  (the fixture skips tests that need PyTorch)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent("""
    import sys
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.optim as optim
    from torch.utils.data import DataLoader, TensorDataset
    from torch import autograd

    print(__name__, sys.argv[1:])
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    with torch.device("meta"):
        sketch = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2))
    print(sketch(torch.empty(5, 2, device="meta")), sum(p.numel() for p in sketch.parameters()))
    x = torch.linspace(-1, 1, 32).reshape(16, 2).to(device)
    y = (x[:, :1] * 3 - x[:, 1:] * 2 > 0).long().squeeze(1)
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1) / 3)
    opt = optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=False)
    for epoch in range(3):
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
        print(epoch, f"{loss.item():.5f}")
    x.requires_grad_()
    g, = autograd.grad((x ** 2).sum(), x)
    print(model, g[:2], type(model[0].weight).__name__, isinstance(loss, torch.Tensor))
""")


def _run(args, cwd, **kw):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, **kw)


def test_a_pytorch_script_runs_unmodified_and_prints_what_pytorch_prints(tmp_path, _oracle):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT)
    ours = _run(["-m", "tensorgrad", str(path), "--lr", "1"], tmp_path)
    assert ours.returncode == 0, ours.stderr
    theirs = _run([str(path), "--lr", "1"], tmp_path)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == theirs.stdout
    assert ours.stdout.startswith("__main__ ['--lr', '1']")


def test_torch_submodules_are_tensorgrads_own_without_torch(tmp_path):
    code = textwrap.dedent("""
        import tensorgrad
        import tensorgrad.nn
        tensorgrad.install_as_torch()
        tensorgrad.install_as_torch()              # twice is harmless
        import torch, torch.nn as nn, torch.utils.data, torch.nn.functional as F
        from torch.utils.data import DataLoader
        import torch.optim.lr_scheduler as sched
        import torch.distributions as D
        from torch.distributions import Normal, constraints
        assert D is tensorgrad.distributions and Normal is D.Normal and constraints is D.constraints
        assert torch is tensorgrad and nn is tensorgrad.nn and F is tensorgrad.nn.functional
        assert DataLoader is tensorgrad.utils.data.DataLoader and sched is tensorgrad.optim.lr_scheduler
        assert tensorgrad.__spec__.name == "tensorgrad" and nn.__spec__.name == "tensorgrad.nn"
        try:
            import torch._dynamo
        except ModuleNotFoundError as error:
            print(type(error).__name__, error.name, "|", error)
    """)
    out = _run(["-c", code], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("ModuleNotFoundError torch._dynamo | No module named 'torch._dynamo': tensorgrad, "
                                  "which stands in for torch, has no module 'tensorgrad._dynamo'")


def test_install_refuses_once_the_real_torch_is_imported(tmp_path, _oracle):
    code = "import torch, tensorgrad\ntry:\n    tensorgrad.install_as_torch()\nexcept RuntimeError as e:\n    print(e)"
    out = _run(["-c", code], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "the real torch is already imported" in out.stdout


def test_command_line_usage_and_missing_script_without_torch(tmp_path):
    out = _run(["-m", "tensorgrad"], tmp_path)
    assert out.returncode == 2 and out.stderr.startswith("usage: python -m tensorgrad SCRIPT")
    out = _run(["-m", "tensorgrad", "--help"], tmp_path)
    assert out.returncode == 0 and out.stdout.startswith("usage:")
    out = _run(["-m", "tensorgrad", "nowhere.py"], tmp_path)
    assert out.returncode == 2 and "can't open file 'nowhere.py'" in out.stderr


def test_a_failing_script_fails_with_its_own_error_without_torch(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("import torch\nraise SystemExit(torch.tensor([3]).item())\n")
    assert _run(["-m", "tensorgrad", str(path)], tmp_path).returncode == 3
    path.write_text("import torch\ntorch.ones(2) @ torch.ones(3)\n")
    out = _run(["-m", "tensorgrad", str(path)], tmp_path)
    assert out.returncode == 1 and "RuntimeError" in out.stderr
