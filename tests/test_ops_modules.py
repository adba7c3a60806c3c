"""Every op the package reads from an ``_ops`` module exists there.

The facade reaches ops through module aliases (``from .._ops import elementwise as E`` then
``E.add``); a call site left pointing at the module an op moved out of fails only when that
line runs. This reads the sources instead, so every such reference is checked at once.
"""

import ast
import importlib
import pathlib

import tensorgrad

PACKAGE = pathlib.Path(tensorgrad.__file__).parent


def _ops_aliases(tree):
    """``{alias: module name}`` for the ``_ops`` modules a file imports."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "_ops":
            for name in node.names:
                aliases[name.asname or name.name] = name.name
    return aliases


def _references(path):
    tree = ast.parse(path.read_text())
    aliases = _ops_aliases(tree)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases):
            yield aliases[node.value.id], node.attr, node.lineno


def _module(name):
    try:
        return importlib.import_module(f"tensorgrad._ops.{name}")
    except ModuleNotFoundError:
        return None


def test_every_ops_attribute_exists():
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for module, attr, line in _references(path):
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            if _module(module) is None:
                missing.append(f"{where}: there is no module tensorgrad._ops.{module}")
            elif not hasattr(_module(module), attr):
                missing.append(f"{where}: tensorgrad._ops.{module} has no {attr}")
    assert not missing, "\n".join(missing)


def test_the_check_sees_the_facade():
    # the check above would pass vacuously if it found no references
    refs = {ref[:2] for ref in _references(PACKAGE / "_api" / "elementwise.py")}
    refs |= {ref[:2] for ref in _references(PACKAGE / "_api" / "matmul.py")}
    assert ("elementwise", "add") in refs
    assert ("products", "matmul") in refs
