"""``torch`` as another name of tensorgrad: an import hook that makes ``import torch``,
``import torch.nn as nn`` and ``from torch.utils.data import DataLoader`` give tensorgrad's
modules, so that a PyTorch script runs unmodified (``python -m tensorgrad SCRIPT``, or
``tensorgrad.install_as_torch()`` in a notebook).

Opt-in and explicit: nothing changes until it is installed. ``torch.X`` is ``tensorgrad.X``, the
same module object under both names (so ``torch.nn.Linear is tensorgrad.nn.Linear``); a
submodule tensorgrad lacks raises ``ModuleNotFoundError`` naming both names. It refuses to
install once the real PyTorch is imported, since the two would then mix.
"""

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install_as_torch", "installed"]

_ALIAS = "torch"
_PACKAGE = __name__.rpartition(".")[0]          # "tensorgrad"


class _Loader(importlib.abc.Loader):
    """Hands out the tensorgrad module already imported; keeps its own ``__spec__``."""

    def __init__(self, module):
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        module.__spec__ = self.spec     # the import system set the alias's spec on it


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``torch`` and ``torch.*`` as tensorgrad's modules of the same path."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _ALIAS and not fullname.startswith(_ALIAS + "."):
            return None
        own = _PACKAGE + fullname[len(_ALIAS):]
        try:
            module = importlib.import_module(own)
        except ModuleNotFoundError as error:
            if error.name != own:
                raise
            raise ModuleNotFoundError(
                f"No module named '{fullname}': tensorgrad, which stands in for torch, has no module "
                f"'{own}'", name=fullname) from None
        return importlib.util.spec_from_loader(fullname, _Loader(module))


_FINDER = _Finder()


def installed():
    """True when ``import torch`` gives tensorgrad."""
    return _FINDER in sys.meta_path


def install_as_torch():
    """From now on ``import torch`` (and every ``torch.*`` submodule) imports tensorgrad.

    Raises RuntimeError when the real PyTorch is already imported in this process. Installing
    twice is harmless.
    """
    present = sys.modules.get(_ALIAS)
    if present is not None and present is not sys.modules[_PACKAGE]:
        raise RuntimeError(
            "install_as_torch(): the real torch is already imported in this process; call it before "
            "anything imports torch (or run the script with python -m tensorgrad SCRIPT)")
    if installed():
        return
    sys.meta_path.insert(0, _FINDER)
    for name, module in list(sys.modules.items()):      # submodules imported so far
        if name == _PACKAGE or name.startswith(_PACKAGE + "."):
            sys.modules.setdefault(_ALIAS + name[len(_PACKAGE):], module)
