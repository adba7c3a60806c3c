"""The package's structure: the import layers hold, and modules stay small enough to read."""

import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tensorgrad"
MAX_LINES = 600


def test_import_layers_hold_without_torch():
    """``lint-imports`` checks the contract in pyproject.toml: no upward import, no cycle across layers."""
    exe = shutil.which("lint-imports") or str(pathlib.Path(sys.executable).with_name("lint-imports"))
    if not pathlib.Path(exe).exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    result = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def _docstring_says_why(text):
    head = text[:3000].lower()
    return "long because" in head or "over 600 lines" in head


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_is_small_or_says_why_without_torch(path):
    text = path.read_text()
    lines = text.count("\n")
    assert lines <= MAX_LINES or _docstring_says_why(text), (
        f"{path.relative_to(ROOT)} has {lines} lines: split it along a seam, or say at its top why it is long "
        "('... long because ...')")


def test_no_function_level_imports_of_the_package_without_torch():
    """Imports inside functions hide cycles; the layers make them unnecessary."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            stripped = line.lstrip()
            if line != stripped and (stripped.startswith("from .") or stripped.startswith("import tensorgrad")):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {stripped}")
    assert not offenders, "\n".join(offenders)
