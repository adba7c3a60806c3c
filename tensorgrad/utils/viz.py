"""``tensorgrad.utils.viz.make_dot``: the ``grad_fn`` graph of a tensor as Graphviz DOT source,
drawn as torchviz's ``make_dot`` draws it (PyTorch has no such module; torchviz, a separate
package, depends on PyTorch itself, which this writer spares).

Nodes and colours are torchviz's: a grey box per autograd node (``MulBackward0``,
``AccumulateGrad``, a custom ``Function``'s node), a light blue box per leaf reached through an
``AccumulateGrad`` (named after ``params`` where given, with its shape), a green box for the
output (dark green for the base of an output that is a view), and edges from each node's
``next_functions`` towards the output. torchviz itself works on tensorgrad tensors too (with
``tensorgrad.install_as_torch()`` first; see ``examples/autograd_graph.py``).

>>> import tensorgrad
>>> from tensorgrad.utils.viz import make_dot
>>> w = tensorgrad.ones(3, requires_grad=True)
>>> dot = make_dot((w * 2).sum(), params={"w": w})
>>> [line.strip() for line in dot.source.splitlines() if "label" in line][:3]
['n0 [label="\\\\n ()" fillcolor=darkolivegreen1]', 'n1 [label=SumBackward0]', 'n2 [label=MulBackward0]']
"""

import shutil
import subprocess

from .._tensor import Tensor

NODE_ATTR = 'align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled'


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class Dot:
    """DOT source of a graph: ``source``, ``save(path)``, and ``render(stem, format="png")``,
    which runs Graphviz's ``dot`` program (it must be installed) and returns the file's path."""

    def __init__(self, lines):
        self.body = lines
        self.source = "digraph {\n\tgraph [size=\"12,12\"]\n\tnode [" + NODE_ATTR + "]\n" + \
            "".join(f"\t{line}\n" for line in lines) + "}\n"

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.source)
        return str(path)

    def render(self, stem, format="png"):
        exe = shutil.which("dot")
        if exe is None:
            raise RuntimeError("Graphviz's dot program is not installed (e.g. apt install graphviz); "
                               "the DOT source is in .source")
        out = f"{stem}.{format}"
        subprocess.run([exe, f"-T{format}", "-o", out], input=self.source, text=True, check=True)
        return out


def make_dot(var, params=None):
    """The autograd graph that produced ``var`` (a tensor or a tuple of tensors) as a ``Dot``;
    ``params``: a dict of name to tensor, to name the leaves."""
    if params is not None and not all(isinstance(p, Tensor) for p in params.values()):
        raise TypeError("make_dot: params must map names to tensors")
    names = {id(v): k for k, v in (params or {}).items()}
    ids, lines, seen = {}, [], set()

    def node_id(obj):
        key = id(obj)
        if key not in ids:
            ids[key] = f"n{len(ids)}"
        return ids[key]

    def tensor_label(t, name=None):
        name = name if name is not None else names.get(id(t), "")
        return _quote(f"{name}\n ({', '.join(str(s) for s in t.shape)})")

    def add_fn(root):
        stack = [root]
        while stack:
            fn = stack.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            variable = getattr(fn, "variable", None)
            if variable is not None:
                seen.add(id(variable))
                lines.append(f"{node_id(variable)} [label={tensor_label(variable)} fillcolor=lightblue]")
                lines.append(f"{node_id(variable)} -> {node_id(fn)}")
            lines.append(f"{node_id(fn)} [label={type(fn).__name__}]")
            for nxt, _ in reversed(getattr(fn, "next_functions", ())):
                if nxt is not None:
                    lines.append(f"{node_id(nxt)} -> {node_id(fn)}")
                    stack.append(nxt)

    def add_output(t, color="darkolivegreen1"):
        if id(t) in seen:
            return
        seen.add(id(t))
        lines.append(f"{node_id(t)} [label={tensor_label(t)} fillcolor={color}]")
        if t.grad_fn is not None:
            add_fn(t.grad_fn)
            lines.append(f"{node_id(t.grad_fn)} -> {node_id(t)}")
        if t._base is not None:
            add_output(t._base, color="darkolivegreen3")
            lines.append(f"{node_id(t._base)} -> {node_id(t)} [style=dotted]")

    for t in (var if isinstance(var, tuple) else (var,)):
        add_output(t)
    return Dot(lines)
