"""The ``grad_fn`` graph of a small network's loss, as a picture.

The graph is written by tensorgrad's own DOT writer, ``tensorgrad.utils.viz.make_dot``, which
draws what torchviz's ``make_dot`` draws (a grey box per autograd node, a blue one per
parameter, named, with its shape, a green one for the output). Where torchviz is installed
(``pip install torchviz``: it depends on PyTorch itself, which is why tensorgrad does not
need it), the graph is drawn by torchviz too, with tensorgrad installed as ``torch``
(``tensorgrad.install_as_torch()``; torchviz reads ``grad_fn``, ``next_functions``,
``AccumulateGrad.variable``, ``Tensor._is_view()``, ``_base``, ``torch.autograd.Variable``,
all of which tensorgrad has), and both drawings are checked to have the same nodes.

The DOT source is always saved (``autograd_graph.dot``, and ``autograd_graph_torchviz.dot``);
the PNG pictures are rendered where Graphviz's ``dot`` program is installed (``apt install
graphviz``); otherwise the example says so.

Run: python examples/autograd_graph.py [--device cuda] [--out FOLDER]
"""

import collections
import re
import shutil

import _common

import tensorgrad as torch
from tensorgrad import nn
from tensorgrad.utils.viz import Dot, make_dot


def node_labels(source):
    """The labels of a DOT source's nodes (ids and addresses left out)."""
    labels = re.findall(r"\[label=(\w+|\"[^\"]*\")", source)
    return collections.Counter(re.sub(r"\s|\\n", "", label) for label in labels)    # a newline or its escape


def torchviz_dot(loss, params):
    """torchviz's drawing, or None where torchviz is not installed."""
    try:
        torch.install_as_torch()      # torchviz does ``import torch``
        from torchviz import make_dot as torchviz_make_dot
    except ImportError:
        return None
    return torchviz_make_dot(loss, params=params)


def save(dot, stem):
    """Save ``dot``'s source, and its PNG where Graphviz's dot program is installed."""
    path = stem.with_suffix(".dot")
    path.write_text(dot.source)
    print(f"saved {path}")
    if shutil.which("dot"):
        # graphviz's Digraph (torchviz's) writes its source beside the picture unless told to clean up
        cleanup = {} if isinstance(dot, Dot) else {"cleanup": True}
        print(f"saved {dot.render(stem, format='png', **cleanup)}")
    else:
        print(f"Graphviz's dot program is not installed: no PNG (render with: dot -Tpng -O {path})")


def main(argv=None):
    args = _common.parser(__doc__).parse_args(argv)
    device = _common.setup(args)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2)).to(device)
    x = torch.randn(5, 4, device=device)
    target = torch.tensor([0, 1, 1, 0, 1], device=device)
    loss = nn.functional.cross_entropy(model(x), target)
    params = dict(model.named_parameters())

    dot = make_dot(loss, params=params)
    functions = re.findall(r"label=(\w+)\]", dot.source)       # the autograd nodes (tensors' labels are quoted)
    print(f"tensorgrad.utils.viz.make_dot: {len(functions)} autograd nodes: {', '.join(functions)}")
    save(dot, args.out / "autograd_graph")

    theirs = torchviz_dot(loss, params)
    if theirs is None:
        print("torchviz is not installed: only tensorgrad's own drawing")
    else:
        same = node_labels(theirs.source) == node_labels(dot.source)
        print(f"torchviz's make_dot on tensorgrad tensors: the same nodes: {same}")
        assert same
        save(theirs, args.out / "autograd_graph_torchviz")
    return dot


if __name__ == "__main__":
    main()
