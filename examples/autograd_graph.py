"""The ``grad_fn`` graph of a small network's loss, drawn by torchviz's ``make_dot``.

torchviz (``pip install -e ".[examples]"``) is PyTorch's ecosystem tool for pictures of the
autograd graph; it does ``import torch``, so tensorgrad is installed as ``torch`` first
(``tensorgrad.install_as_torch()``). It reads what PyTorch's graph offers and tensorgrad's
has too: ``grad_fn``, ``next_functions``, ``AccumulateGrad.variable``, ``Tensor._is_view()``
and ``_base``, ``torch.autograd.Variable`` and ``torch.is_tensor``. (Its ``show_attrs`` and
``show_saved`` options read the ``_saved_*`` attributes of PyTorch's C++ nodes, which
tensorgrad's nodes do not have: torchviz warns and draws the graph without them.)

The Graphviz source is always written (``autograd_graph.dot``); the picture
(``autograd_graph.png``) is rendered where Graphviz's ``dot`` program is installed
(``apt install graphviz``), and otherwise the example says so.

Run: python examples/autograd_graph.py [--device cuda] [--out FOLDER]
"""

import re
import shutil

import _common

import tensorgrad

tensorgrad.install_as_torch()

import torch                      # noqa: E402  (tensorgrad, installed as torch above)
from torch import nn              # noqa: E402


def main(argv=None):
    args = _common.parser(__doc__).parse_args(argv)
    device = _common.setup(args)
    from torchviz import make_dot

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2)).to(device)
    x = torch.randn(5, 4, device=device)
    target = torch.tensor([0, 1, 1, 0, 1], device=device)
    loss = nn.functional.cross_entropy(model(x), target)
    dot = make_dot(loss, params=dict(model.named_parameters()))
    functions = re.findall(r"label=(\w+)\]", dot.source)           # the grad_fn nodes (tensors are quoted)
    print(f"make_dot drew {len(functions)} autograd nodes: {', '.join(functions)}")
    path = args.out / "autograd_graph.dot"
    path.write_text(dot.source)
    print(f"saved {path}")
    if shutil.which("dot"):
        png = dot.render(args.out / "autograd_graph", format="png", cleanup=True)
        print(f"saved {png}")
    else:
        print("Graphviz's dot program is not installed: no PNG (render with: dot -Tpng -O " f"{path})")
    return dot


if __name__ == "__main__":
    main()
