"""The autograd engine: grad modes, graph nodes and the backward pass (private)."""
