"""DTensor's placements, as PyTorch's: ``Shard(dim)``, ``Replicate()``, ``Partial(reduce_op)``.

On a JAX mesh a ``Shard(d)`` on mesh dimension ``m`` names ``m``'s axis in entry ``d`` of the
array's ``PartitionSpec``; ``Replicate()`` names nothing. ``Partial`` has no JAX sharding: see
``tensorgrad.distributed.tensor`` for how a Partial DTensor is held.
"""


class Placement:
    """The base of the placements."""

    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self, reduce_op=None):
        return False

    def _key(self):
        """What tells two placements apart (their type, and ``Shard``'s dim or ``Partial``'s op)."""
        return (type(self).__name__,)

    def __eq__(self, other):
        return isinstance(other, Placement) and other._key() == self._key()

    def __hash__(self):
        return hash(self._key())


class Shard(Placement):
    """The tensor is split along ``dim`` over the mesh dimension (``torch.chunk``'s split)."""

    def __init__(self, dim):
        self.dim = dim

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def _key(self):
        return ("Shard", self.dim)

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"


class Replicate(Placement):
    """Every device of the mesh dimension holds the whole tensor."""

    def is_replicate(self):
        return True

    def __hash__(self):
        return -2           # PyTorch's hash of Replicate()

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


class Partial(Placement):
    """Each device holds a partial value; the tensor is their reduction (``reduce_op``: ``"sum"``,
    ``"avg"``, ``"max"``, ``"min"``)."""

    def __init__(self, reduce_op="sum"):
        if reduce_op not in ("sum", "avg", "max", "min"):
            raise NotImplementedError(f"Partial({reduce_op!r}): tensorgrad supports sum, avg, max and min")
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op=None):
        return reduce_op is None or reduce_op == self.reduce_op

    def _key(self):
        return ("Partial", self.reduce_op)

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"


__all__ = ["Placement", "Shard", "Replicate", "Partial"]
