"""Every snippet of the seed tutorials prints under tensorgrad exactly what PyTorch prints.

Each snippet runs twice in a subprocess: under PyTorch, recording its random draws, and under
tensorgrad (imported as ``torch``), replaying them; stdout and stderr must match apart from
object addresses.
"""

import pathlib
import re
import subprocess
import sys

import pytest

SEEDS = pathlib.Path(__file__).parent / "seeds"
SNIPPETS = sorted(p for p in SEEDS.glob("*.py") if p.name != "runner.py")


def _run(mode, snippet, draws):
    proc = subprocess.run([sys.executable, str(SEEDS / "runner.py"), mode, str(snippet), str(draws)],
                          capture_output=True, text=True, timeout=300)
    text = proc.stdout + "\n--- stderr ---\n" + proc.stderr
    return proc.returncode, re.sub(r"0x[0-9a-f]+", "0x...", text)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda p: p.stem)
def test_seed_prints_what_pytorch_prints(snippet, tmp_path):
    pytest.importorskip("torch")
    draws = tmp_path / "draws.json"
    torch_rc, expected = _run("torch", snippet, draws)
    assert torch_rc == 0, expected
    rc, got = _run("tensorgrad", snippet, draws)
    assert rc == 0, got
    assert got == expected


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda p: p.stem)
def test_seed_runs_without_pytorch(snippet, tmp_path):
    """The snippets run under tensorgrad with its own random numbers (no PyTorch needed)."""
    code = ("import sys, runpy, tensorgrad; sys.modules['torch'] = tensorgrad; "
            f"runpy.run_path({str(snippet)!r}, run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
