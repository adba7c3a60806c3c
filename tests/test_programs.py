"""The corpus of public PyTorch programs (``tests/programs/``) prints under tensorgrad what it
prints under PyTorch.

Each program is modelled on a public PyTorch tutorial or example (its header names the source);
downloads, random streams and sizes are replaced as marked by ``# tensorgrad-corpus:`` comments.
The programs run under PyTorch (``python _run.py``) and under ``python -m tensorgrad _run.py``,
which makes ``import torch`` give tensorgrad. ``_run.py`` runs a batch of programs in one
interpreter (one import of each library for the whole batch, as a program per process would
spend most of the test's time importing); each program still runs as ``__main__`` in a folder
of its own. Stdouts are compared line by line: the text between numbers exactly (runs of spaces
aside, as a tensor's column widths follow its printed values), each number to within float32
rounding (a relative 1e-4 and an absolute 1e-6, as a sum of float32 terms that cancel prints
its rounding noise) and one unit of its last printed digit.

tensorgrad compiles an XLA program per op and shape, so a program's first steps cost it seconds
of CPU where PyTorch takes a fraction of one: the programs that take it longest are marked
``long`` (``python -m pytest --long -m long tests/test_programs.py``), and the default run stays
within 90 s on two cores.
"""

import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys

import pytest

from oracle import torch, _oracle  # noqa: F401  (the fixture skips these tests without PyTorch)

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROGRAMS_DIR = ROOT / "tests" / "programs"
PROGRAMS = sorted(p.stem for p in PROGRAMS_DIR.glob("*.py") if not p.name.startswith("_"))

# programs whose compiles take tensorgrad over ~5 CPU seconds (each op compiles an XLA program
# per shape): run with ``--long -m long``, so that the default run stays within 90 s on 2 cores
LONG = {"blitz_autograd", "blitz_cifar10", "blitz_neural_networks", "buildmodel", "examples_dcgan", "examples_mnist",
        "examples_time_sequence", "examples_vae", "examples_word_language_model", "introyt_models",
        "recipe_multiple_models", "saveloadrun", "sequence_models", "word_embeddings"}

# program -> the precise failure under tensorgrad; strict, so that a fix shows as XPASS
XFAIL = {
}

# PyTorch's CPU build runs nn.LSTM through oneDNN, whose node names the output's grad_fn;
# tensorgrad has no oneDNN backend and names it as PyTorch does with torch.backends.mkldnn off
BACKEND_NAMES = {"MkldnnRnnLayerBackward0": "StackBackward0"}

RTOL, ATOL = 1e-4, 1e-6
_NUMBER = re.compile(r"[-+]?(?:nan|inf|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _batches(programs, n):
    """``n`` runs of consecutive names: programs of a family (polynomial_*, recipe_*) share most
    of their compiled kernels, which one process compiles once."""
    size = -(-len(programs) // n)
    return [programs[i:i + size] for i in range(0, len(programs), size)]


def _run_batch(library, programs, outdir):
    # no compilation cache on disk: a shared one serialises processes on its lock file
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TENSORGRAD_COMPILATION_CACHE="0")
    head = ["-m", "tensorgrad"] if library == "tensorgrad" else []
    paths = [str(PROGRAMS_DIR / f"{name}.py") for name in programs]
    proc = subprocess.run([sys.executable, *head, str(PROGRAMS_DIR / "_run.py"), str(outdir), *paths],
                          env=env, capture_output=True, text=True, timeout=900)
    return library, proc


def _run_all(programs, base):
    """Runs ``programs`` under both libraries: two batches each, two processes at a time (the
    two tensorgrad batches first, as they take longest)."""
    dirs = {library: base / library for library in ("tensorgrad", "torch")}
    jobs = [(library, batch) for library in dirs for batch in _batches(programs, 2)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda job: _run_batch(job[0], job[1], dirs[job[0]]), jobs))
    for library, proc in done:
        assert proc.returncode == 0, f"the {library} batch runner failed:\n{proc.stderr[-4000:]}"
    return dirs


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    if torch is None:
        pytest.skip("PyTorch (the oracle) is not installed")
    return _run_all([name for name in PROGRAMS if name not in LONG], tmp_path_factory.mktemp("programs"))


@pytest.fixture(scope="module")
def long_outputs(tmp_path_factory):
    if torch is None:
        pytest.skip("PyTorch (the oracle) is not installed")
    return _run_all(sorted(LONG), tmp_path_factory.mktemp("long_programs"))


def _read(outdir, name):
    out = outdir / f"{name}.out"
    err = outdir / f"{name}.err"
    assert out.exists(), f"{name} did not run"
    return out.read_text(), err.read_text() if err.exists() else None


def _unit(token):
    """One unit of the last printed digit of a number token (0 for an integer)."""
    mantissa, _, exponent = token.lower().partition("e")
    if "." not in mantissa:
        return 0.0 if not exponent else 10.0 ** int(exponent)
    decimals = len(mantissa.split(".")[1])
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def _numbers_agree(ours, theirs):
    if ours == theirs:
        return True
    if "." not in ours + theirs and "e" not in (ours + theirs).lower() and "n" not in (ours + theirs):
        return False                                     # integers (counts, indices, shapes) exactly
    a, b = float(ours), float(theirs)
    if a != a or b != b:
        return a != a and b != b
    return abs(a - b) <= RTOL * abs(b) + max(_unit(ours), _unit(theirs)) + ATOL


def _template(line):
    return " ".join(_NUMBER.sub("#", _ADDRESS.sub("0x", line)).split())


def compare_outputs(ours, theirs):
    """None when two stdouts agree, else a message naming the first line that differs."""
    for name, ours_name in BACKEND_NAMES.items():
        theirs = theirs.replace(f"<{name}", f"<{ours_name}")
    ours_lines, theirs_lines = ours.splitlines(), theirs.splitlines()
    for number, (mine, expected) in enumerate(zip(ours_lines, theirs_lines), 1):
        a, b = _ADDRESS.sub("0x", mine), _ADDRESS.sub("0x", expected)
        same = _template(a) == _template(b)
        if same:
            tokens = list(zip(_NUMBER.findall(a), _NUMBER.findall(b)))
            same = all(_numbers_agree(x, y) for x, y in tokens)
        if not same:
            return f"line {number} differs:\n tensorgrad: {mine}\n    pytorch: {expected}"
    if len(ours_lines) != len(theirs_lines):
        return f"{len(ours_lines)} lines from tensorgrad, {len(theirs_lines)} from PyTorch"
    return None


def _params(names):
    for name in names:
        marks = [pytest.mark.xfail(reason=XFAIL[name], strict=True)] if name in XFAIL else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_params(p for p in PROGRAMS if p not in LONG)))
def test_program_prints_what_pytorch_prints(name, outputs):
    _check(name, outputs)


@pytest.mark.long
@pytest.mark.parametrize("name", list(_params(sorted(LONG))))
def test_long_program_prints_what_pytorch_prints(name, long_outputs):
    _check(name, long_outputs)


def _check(name, outputs):
    expected, torch_error = _read(outputs["torch"], name)
    assert torch_error is None, f"{name} fails under PyTorch itself:\n{torch_error}"
    got, error = _read(outputs["tensorgrad"], name)
    assert error is None, f"{name} raised under tensorgrad:\n{error[-3000:]}"
    difference = compare_outputs(got, expected)
    assert difference is None, f"{name}: {difference}"
    assert expected.strip()


def test_the_comparison_tells_apart_what_differs_without_torch():
    assert compare_outputs("loss: 0.123456\ntensor([1.0000, 2.5000])", "loss: 0.123457\ntensor([1.0001, 2.5000])") is None
    assert compare_outputs("tensor([ 0.5000, -1.0000])", "tensor([-0.5000, -1.0000])") is not None
    assert compare_outputs("Accuracy: 47/64", "Accuracy: 48/64") is not None
    assert compare_outputs("<AddBackward0 object at 0x7f01>", "<AddBackward0 object at 0x5a3c>") is None
    assert compare_outputs("<AddBackward0 object>", "<MulBackward0 object>") is not None
    assert compare_outputs("a\nb", "a") is not None
    assert compare_outputs("1.5e-05", "1.8e-05") is not None
    assert compare_outputs("tensor([nan, 1.])", "tensor([nan, 1.])") is None
