"""Differential snippets: one piece of source run with ``torch`` bound to tensorgrad and to PyTorch.

A snippet is Python source; its last line, if an expression, is its value. The repr of that value
(or the exception's type and message) and any warnings must agree between the two modules.
"""

import ast
import operator
import warnings

import numpy as np

import tensorgrad as tg
from scenarios import normalize


def run(module, src):
    """Run ``src`` with ``torch`` bound to ``module`` (``np`` and ``operator`` are there too).

    Returns ``("ok", repr(last expression), warnings)`` or ``("error", type name, message,
    warnings)``; warnings are ``(category name, message)`` pairs.
    """
    tree = ast.parse(src)
    last = tree.body[-1]
    body = tree.body[:-1] if isinstance(last, ast.Expr) else tree.body
    ns = {"torch": module, "np": np, "operator": operator}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(compile(ast.Module(body, []), "<snippet>", "exec"), ns)
            value = None
            if isinstance(last, ast.Expr):
                value = eval(compile(ast.Expression(last.value), "<snippet>", "eval"), ns)
            result = ("ok", normalize(repr(value)))
        except Exception as e:  # noqa: BLE001 - the exception is the result
            result = ("error", type(e).__name__, normalize(str(e)))
    return result + (tuple((w.category.__name__, str(w.message)) for w in caught),)


def same(torch, src):
    """Assert that ``src`` gives the same result with tensorgrad as with ``torch``; returns it."""
    ours = run(tg, src)
    theirs = run(torch, src)
    assert ours == theirs, f"\n{src}\n ours:   {ours}\n torch:  {theirs}"
    return ours


def cases(text):
    """Snippets separated by lines holding only ``---``."""
    return [c.strip() for c in text.split("\n---\n") if c.strip()]


def ids(snippets):
    """Short one-line test ids for ``snippets``."""
    return [s.replace("\n", "; ")[:70] for s in snippets]
