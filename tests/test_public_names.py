"""The public names of tensorgrad's namespaces, pinned in ``tests/public_names.txt``.

A name added to or removed from one of ``NAMESPACES`` fails the test, which prints the
difference; after a deliberate change regenerate the file with
``python tests/test_public_names.py --update``. (``benchmarks/surface_report.py`` compares the
same namespaces with PyTorch's.) A public name is one in ``dir()`` without a leading underscore.

Also here: every function PyTorch also has as a Tensor method is a method here too, and the
in-place twins PyTorch has exist.
"""

import argparse
import importlib
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PINNED = pathlib.Path(__file__).with_name("public_names.txt")
NAMESPACES = ("tensorgrad", "tensorgrad.Tensor", "tensorgrad.nn", "tensorgrad.nn.functional", "tensorgrad.linalg",
              "tensorgrad.special", "tensorgrad.cuda", "tensorgrad.accelerator", "tensorgrad.mps", "tensorgrad.backends",
              "tensorgrad.backends.cuda", "tensorgrad.backends.cudnn")
HEADER = """\
# The public names of tensorgrad's namespaces, one per line under ``[namespace]``.
# tests/test_public_names.py fails on any name added or removed; after a deliberate change run
#     python tests/test_public_names.py --update
"""


def resolve(dotted):
    """The object a dotted name refers to: a module, or an attribute of one (``tensorgrad.Tensor``)."""
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for k, part in enumerate(parts[1:], start=1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[:k + 1]))
    return obj


def public_names(dotted):
    return sorted(name for name in dir(resolve(dotted)) if not name.startswith("_"))


def render():
    """The text of ``public_names.txt`` for the code as it is."""
    blocks = [HEADER]
    for dotted in NAMESPACES:
        blocks.append(f"[{dotted}]\n" + "".join(f"{name}\n" for name in public_names(dotted)))
    return "\n".join(blocks)


def pinned():
    """``{namespace: [names]}`` as recorded in ``public_names.txt``."""
    names = {}
    current = None
    for line in PINNED.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            names[current] = []
        else:
            names[current].append(line)
    return names


@pytest.mark.parametrize("dotted", NAMESPACES)
def test_public_names_are_pinned(dotted):
    want = set(pinned().get(dotted, ()))
    have = set(public_names(dotted))
    added = sorted(have - want)
    removed = sorted(want - have)
    assert not added and not removed, (
        f"the public names of {dotted} changed:\n"
        + "".join(f"  + {name}\n" for name in added) + "".join(f"  - {name}\n" for name in removed)
        + "if deliberate, regenerate tests/public_names.txt: python tests/test_public_names.py --update")


def test_every_pinned_namespace_is_checked():
    assert tuple(pinned()) == NAMESPACES


# --------------------------------------------------------------------------------------------
# methods and in-place twins where PyTorch has them

@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _declared():
    """``(torch-level names, method names)`` of every declaration of the surface."""
    from tensorgrad._api import surface

    names = []
    methods = []
    for decl in surface.DECLARATIONS:
        if decl.namespace == "torch":
            names.extend(decl.names)
        methods.extend(decl.methods)
    return names, methods


def test_every_function_is_exported_and_a_method_where_torch_has_one(torch):
    import tensorgrad as tg

    missing = []
    names, _ = _declared()
    assert names, "no declarations found: update _declared() to the declared surface"
    for name in names:
        assert getattr(tg, name) is not None
        if hasattr(torch, name) and hasattr(torch.Tensor, name) and not hasattr(tg.Tensor, name):
            missing.append(name)
    assert not missing, f"Tensor methods PyTorch has but tensorgrad lacks: {missing}"


# In-place twins of views change the tensor's shape or strides in place: not the generic twin
# (compute out of place, write back), so not made by a declaration.
VIEW_TWINS_MISSING = {"squeeze_", "unsqueeze_", "swapaxes_", "swapdims_", "transpose_", "t_"}


def test_inplace_twins_exist_where_torch_has_them(torch):
    import tensorgrad as tg

    missing = []
    names, methods = _declared()
    for name in names + methods:
        twin = name + "_"
        if hasattr(torch.Tensor, twin) and not hasattr(tg.Tensor, twin) and twin not in VIEW_TWINS_MISSING:
            missing.append(twin)
    assert not missing, f"in-place twins PyTorch has but tensorgrad lacks: {missing}"


def test_linalg_namespace_covers_the_issue(torch):
    import tensorgrad as tg

    for name in ("inv", "det", "slogdet", "solve", "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh", "pinv",
                 "lstsq", "matrix_rank", "norm", "vector_norm", "matrix_norm", "matrix_power", "matrix_exp",
                 "multi_dot", "cross", "solve_triangular", "vecdot", "diagonal", "LinAlgError"):
        assert hasattr(tg.linalg, name) and hasattr(torch.linalg, name), name


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help=f"rewrite {PINNED.name} for the code as it is")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))  # this checkout's tensorgrad, not an installed one
    text = render()
    if args.update:
        PINNED.write_text(text)
        print(f"wrote {PINNED}")
    elif text != PINNED.read_text():
        print(f"{PINNED.name} is out of date; run with --update")
        sys.exit(1)
    else:
        print(f"{PINNED.name} is up to date")


if __name__ == "__main__":
    main()
