"""``tensorgrad.autograd.graph``: the Node base class."""

from .._autograd.node import Node as Node
