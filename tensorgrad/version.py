"""``torch.version``: the package's version (``__version__``, also ``tensorgrad.__version__``),
and ``cuda``: the CUDA version of JAX's GPU backend, or None where JAX has no GPU.

``__version__`` compares as a version with strings and tuples, as ``torch.__version__`` does:

>>> import tensorgrad
>>> tensorgrad.__version__ >= "0.1", tensorgrad.__version__ < (0, 10)
(True, True)
"""

import re

import jax

hip = None
debug = False


class Version(str):
    """A version string that compares by its release numbers with strings and tuples of numbers
    (``'0.10.0' > '0.9'``); against anything else, or with text that is no version, it compares
    as a string."""

    __slots__ = ()

    @staticmethod
    def _release(other):
        if isinstance(other, str):
            match = re.match(r"v?(\d+(?:\.\d+)*)", other.strip())
            return tuple(int(part) for part in match.group(1).split(".")) if match else None
        if isinstance(other, (tuple, list)) and all(isinstance(part, int) for part in other):
            return tuple(other)
        return None

    def _compare(self, other, method):
        mine = self._release(str(self))
        theirs = self._release(other)
        if mine is None or theirs is None:
            return getattr(str, method)(self, other)
        width = max(len(mine), len(theirs))
        mine = mine + (0,) * (width - len(mine))
        theirs = theirs + (0,) * (width - len(theirs))
        return getattr(tuple, method)(mine, theirs)

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")


__version__ = Version("0.1.0")  # keep equal to pyproject.toml's version (tests/test_runtime.py checks)


def _cuda():
    """The CUDA version JAX's GPU backend reports (``'12.8'``), or None without a GPU."""
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:  # JAX raises when it has no GPU backend
        return None
    text = str(gpus[0].client.platform_version)
    match = re.search(r"(\d+)\.(\d+)", text)
    if match:
        return f"{match.group(1)}.{match.group(2)}"
    number = re.search(r"\d{4,}", text)   # cudaRuntimeGetVersion's form: 12080
    return f"{int(number.group()) // 1000}.{int(number.group()) % 1000 // 10}" if number else text


def __getattr__(name):
    # asked for only when read: finding the GPU starts JAX's GPU backend
    if name == "cuda":
        return _cuda()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
