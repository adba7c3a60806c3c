"""Which public names of PyTorch tensorgrad lacks, and which it has that PyTorch lacks.

Compares ``torch``, ``torch.Tensor``, ``torch.nn.functional``, ``torch.linalg`` and
``torch.special`` with the same namespaces of tensorgrad. A public name is one in ``dir()``
without a leading underscore. In the module namespaces only functions and classes count:
submodules (``torch.cuda``, ``F.math``), dtype objects (``torch.float8_e4m3fn``) and other
constants (layouts, qschemes, build flags, docstring tables) are skipped, and so are names
imported from outside PyTorch (``F.Optional``) and classes re-exported from another namespace
(``torch.special.Tensor``). ``torch``'s classes are listed apart from its
functions: most are TorchScript and C++ binding types (``torch.AliasDb``). On ``torch.Tensor``
every public attribute counts (methods and properties).

Run: python benchmarks/surface_report.py [--counts] [--namespace NAME ...]
"""

import argparse
import inspect
import pathlib
import sys
import textwrap
import types

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # this checkout's tensorgrad

NAMESPACES = ("torch", "torch.Tensor", "torch.nn.functional", "torch.linalg", "torch.special")


def resolve(root, dotted):
    """``torch.nn.functional`` -> the object of that path under ``root`` (torch or tensorgrad)."""
    obj = root
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def public(obj):
    return {name for name in dir(obj) if not name.startswith("_")}


def kind(torch, obj, home):
    """``function``, ``class``, or what is skipped: ``module``, ``dtype``, ``constant``, ``foreign``
    (from outside PyTorch) or ``re-export`` (a class of another namespace than ``home``)."""
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, torch.dtype):
        return "dtype"
    if not callable(obj):
        return "constant"
    module = str(getattr(obj, "__module__", "torch"))
    if not module.startswith("torch"):
        return "foreign"
    if not inspect.isclass(obj):
        return "function"
    if home != "torch" and module != home and not issubclass(obj, BaseException):
        return "re-export"  # torch.Tensor in torch.special
    return "class"


def compare(torch, tensorgrad, dotted):
    """``(groups, skipped, extra)``: ``groups`` maps a label to ``(counted names, missing names)``;
    ``skipped`` counts the names left out by kind; ``extra`` is what tensorgrad has and torch lacks."""
    theirs = resolve(torch, dotted)
    ours = resolve(tensorgrad, dotted)
    have = public(ours)
    extra = sorted(have - public(theirs))
    if inspect.isclass(theirs):
        names = public(theirs)
        return {dotted: (names, sorted(names - have))}, {}, extra
    by_kind = {}
    for name in public(theirs):
        by_kind.setdefault(kind(torch, getattr(theirs, name), dotted), set()).add(name)
    functions = by_kind.get("function", set())
    classes = by_kind.get("class", set())
    if dotted == "torch":
        counted = {"torch (functions)": functions, "torch (classes)": classes}
    else:
        counted = {dotted: functions | classes}
    groups = {label: (names, sorted(names - have)) for label, names in counted.items()}
    skipped = {k: len(v) for k, v in by_kind.items() if k not in ("function", "class")}
    return groups, skipped, extra


def wrap(names):
    return textwrap.fill(", ".join(names), width=100, initial_indent="    ", subsequent_indent="    ")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", action="store_true", help="print the counts only, not the names")
    parser.add_argument("--namespace", nargs="*", default=list(NAMESPACES), choices=NAMESPACES,
                        help="only these namespaces")
    args = parser.parse_args()
    import torch

    import tensorgrad

    print(f"PyTorch {torch.__version__} against tensorgrad {tensorgrad.__file__}")
    total_counted = total_missing = total_extra = 0
    extras = []
    for dotted in args.namespace:
        groups, skipped, extra = compare(torch, tensorgrad, dotted)
        for label, (names, missing) in groups.items():
            share = 100 * (len(names) - len(missing)) / len(names) if names else 100.0
            print(f"\n{label}: {len(names)} names, tensorgrad lacks {len(missing)} ({share:.0f}% present)")
            if missing and not args.counts:
                print(wrap(missing))
            total_counted += len(names)
            total_missing += len(missing)
        if skipped:
            print("  skipped: " + ", ".join(f"{k} {n}" for k, n in sorted(skipped.items())))
        extras.append((dotted.replace("torch", "tensorgrad", 1), extra))
        total_extra += len(extra)
    print("\nnames tensorgrad has that PyTorch lacks:")
    for dotted, extra in extras:
        print(f"{dotted}: {len(extra)}")
        if extra and not args.counts:
            print(wrap(extra))
    print(f"\ntotal: {total_counted} PyTorch names counted, tensorgrad lacks {total_missing} "
          f"({100 * (total_counted - total_missing) / total_counted:.0f}% present); "
          f"{total_extra} tensorgrad names PyTorch lacks")


if __name__ == "__main__":
    main()
