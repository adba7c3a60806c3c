"""``torch.backends``: the flags PyTorch scripts set for cuDNN, cuBLAS and MPS.

- ``backends.cudnn``: ``benchmark``, ``deterministic``, ``enabled``, ``allow_tf32`` (settable
  bools, with no effect on XLA) and ``is_available()``.
- ``backends.cuda``: ``is_built()`` and ``matmul.allow_tf32``, which is
  ``set_float32_matmul_precision`` in other words (JAX's ``jax_default_matmul_precision``).
- ``backends.mps``: ``is_available()`` and ``is_built()``, both False.
"""

from . import cuda as cuda, cudnn as cudnn, mps as mps
