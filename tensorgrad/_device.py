"""Device objects printing as PyTorch's (``device(type='cpu')``), mapped onto JAX devices."""

import jax


class device:
    """Where a tensor lives: ``device('cpu')``, ``device('cuda', 0)``, ``device('cuda:0')``.

    ``cuda`` maps onto JAX's GPU backend; on a machine without one, asking for it raises.
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type.__class__.__name__})")
        if ":" in type:
            type, _, idx = type.partition(":")
            if index is not None or not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda", "gpu", "tpu", "meta", "mps"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
                f"vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}")
        self.type = "cuda" if type == "gpu" else type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # as in PyTorch, a device never equals a string (``device('cpu') == 'cpu'`` is False)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def jax_device(self):
        """The JAX device this names (raises RuntimeError when there is none)."""
        backend = {"cpu": "cpu", "cuda": "gpu", "tpu": "tpu"}.get(self.type)
        try:
            devs = jax.devices(backend)
        except RuntimeError:
            devs = []
        if not devs:
            raise RuntimeError(f"Found no {self.type.upper()} device: tensorgrad runs on the devices JAX sees ({jax.devices()})")
        return devs[self.index or 0]


CPU = device("cpu")


def of_array(arr):
    """The tensorgrad device of a jax array."""
    try:
        d = next(iter(arr.devices()))
    except (AttributeError, StopIteration):
        return CPU
    if d.platform == "cpu":
        return CPU
    return device("cuda" if d.platform == "gpu" else d.platform, d.id)


def to_device(obj):
    if obj is None or isinstance(obj, device):
        return obj
    if isinstance(obj, int):
        return device("cuda", obj)
    return device(obj)
