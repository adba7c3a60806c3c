"""``python -m tensorgrad SCRIPT [ARGS...]``: run a PyTorch script unmodified, with ``torch`` and
every ``torch.*`` submodule resolving to tensorgrad (``tensorgrad.install_as_torch``).

The script runs as ``__main__`` with ``sys.argv`` set to ``[SCRIPT, ARGS...]`` and its folder
first on ``sys.path``, as ``python SCRIPT`` would run it.
"""

import os
import runpy
import sys

from ._as_torch import install_as_torch

USAGE = "usage: python -m tensorgrad SCRIPT [ARGS...]\nruns SCRIPT with `import torch` giving tensorgrad"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    script = argv[0]
    if not os.path.isfile(script):
        print(f"python -m tensorgrad: can't open file {script!r}: no such file", file=sys.stderr)
        return 2
    install_as_torch()
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
