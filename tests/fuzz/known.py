"""Known bugs that other work is fixing now: the fuzzer avoids or tolerates them.

``KNOWN`` maps a key to a one-line description. Each key is used in one of two ways:

- an *avoid* key (``avoid(key)``, used by ``generate``): the construct is not drawn at all;
- a *tolerate* key (a ``Pattern`` in ``TOLERATED``): a finding that matches it is counted,
  not failed (the bug depends on values, so it cannot be avoided while drawing).

Each entry was found by this fuzzer and has a strict xfail in ``tests/test_fuzz_findings.py``. When a fix merges, delete its entry
here (and the xfail mark there): the fuzzer then draws (or fails on) the construct again.
"""

import re
from dataclasses import dataclass

KNOWN = {
    # found by this fuzzer
    "double_backward_grad_fn": "a create_graph gradient's grad_fn is named <Op>Backward0Backward (CopySlicesBackward "
                               "through a setitem) where PyTorch names the last op of the derivative formula "
                               "(MulBackward0, ToCopyBackward0, ...)",
    "empty_create_graph_requires_grad": "backward(create_graph=True) through an empty tensor: its .grad requires "
                                        "grad, PyTorch's does not",
}


def avoid(key):
    """True while the known bug ``key`` is open: the generator leaves the construct out."""
    return key in KNOWN


@dataclass(frozen=True)
class Pattern:
    """A finding matches when its field is ``field`` and every given regular expression is found:
    ``ours``/``theirs`` in the two sides' text (``none`` matches a side that raised nothing),
    ``line`` in the line where they differ, ``source`` in the whole program."""

    field: str
    ours: str = None
    theirs: str = None
    line: str = None
    source: str = None
    nan_differs: bool = None

    def matches(self, finding, source):
        if not (finding.field == self.field or re.fullmatch(self.field, finding.field)):
            return False
        if self.nan_differs is not None and finding.nan_differs != self.nan_differs:
            return False
        texts = {"ours": str(finding.ours), "theirs": str(finding.theirs), "line": finding.line, "source": source}
        return all(re.search(getattr(self, key), text) for key, text in texts.items()
                   if getattr(self, key) is not None)


TOLERATED = {
    "empty_create_graph_requires_grad": Pattern(r"grad\.requires_grad", source=r"torch\.zeros\(\(0,"),
    "double_backward_grad_fn": Pattern(r"(grad\.)?grad_fn", source="create_graph=True",
                                       ours=r"Backward\d*Backward|CopyBackwards|CopySlicesBackward"),
}


def tolerated(finding, source):
    """The KNOWN key a finding matches (it is then counted, not failed), or None."""
    for key, pattern in TOLERATED.items():
        if key in KNOWN and pattern.matches(finding, source):
            return key
    return None


# OpInfo samples (tests/test_fuzz_opinfo.py) whose values or gradients differ from PyTorch's:
# the OpInfo's label -> the difference. Each bug is also in tests/test_fuzz_findings.py.
# none today: where PyTorch's float32 answer is the less accurate one (logcumsumexp next to 1e4,
# layer_norm over one element), the sweep checks tensorgrad against PyTorch in float64 and
# against central differences instead (tests/fuzz/opinfo.py, ``_wide_reference``)
OPINFO = {}
