"""Known bugs that other work is fixing now: the fuzzer avoids or tolerates them.

``KNOWN`` maps a key to a one-line description. Each key is used in one of two ways:

- an *avoid* key (``avoid(key)``, used by ``generate``): the construct is not drawn at all;
- a *tolerate* key (a ``Pattern`` in ``TOLERATED``): a finding that matches it is counted,
  not failed (the bug depends on values, so it cannot be avoided while drawing).

The first entries are the bugs issue #11 lists; the rest were found by this fuzzer and each
has a strict xfail in ``tests/test_fuzz_findings.py``. When a fix merges, delete its entry
here (and the xfail mark there): the fuzzer then draws (or fails on) the construct again.
"""

import re
from dataclasses import dataclass

KNOWN = {
    # listed in issue #11
    "bool_0d_index": "indexing or setitem with a 0-d bool key (a 0-d mask, or True/False)",
    "retain_grad_then_inplace": "retain_grad() on a tensor (or the base of a view) later written in place",
    "expanded_view_write": "in-place writes into an expanded view (PyTorch raises: more than one element "
                           "of the written-to tensor refers to a single memory location)",
    "overlapping_inplace": "an in-place op whose argument overlaps the written tensor (PyTorch raises: some "
                           "elements of the input tensor and the written-to tensor refer to a single memory "
                           "location)",
    "nan_grad_at_zero": "NaN gradients of std/atan2/maximum/minimum/vector_norm at zero",
    "higher_order_requires_grad": "requires_grad/grad_fn of a create_graph gradient through max/min/clamp/abs/"
                                  "where and other kinks",
    "false_inplace_error": "a false 'modified by an inplace operation' error (hypot, lerp, addcmul, max(dim), ...)",
    # found by this fuzzer
    "grad_unreached_output_retain_grad": "autograd.grad whose inputs the outputs do not reach skips the outputs' "
                                         "retain_grad (PyTorch fills their .grad); likewise a non-leaf once passed "
                                         "as backward(inputs=[...]) keeps collecting .grad in PyTorch",
    "double_backward_grad_fn": "a create_graph gradient's grad_fn is named <Op>Backward0Backward where PyTorch "
                               "names the last op of the derivative formula (MulBackward0, ...)",
    "grad_duplicate_inputs_alias": "autograd.grad(y, [x, x]) returns two tensors; PyTorch returns one tensor twice "
                                   "(a write to one shows in the other, version included)",
    "grad_frees_unexecuted_graph": "autograd.grad without retain_graph frees nodes it did not run, so a later "
                                   "backward through them raises",
    "empty_create_graph_requires_grad": "backward(create_graph=True) through an empty tensor: its .grad requires "
                                        "grad, PyTorch's does not",
    "grad_output_not_requiring_grad": "autograd.grad of an output that does not require grad (a view made in no_grad) "
                                      "returns where PyTorch raises RuntimeError",
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


KINKS = r"\b(max|min|amax|amin|fmax|fmin|clamp|clamp_|clamp_min|clamp_max|abs|abs_|where|relu|relu_|maximum|" \
        r"minimum|sign|sgn|median|sort|cummax|floor|ceil|round|trunc|frac|fmod|remainder|copysign)\b"

TOLERATED = {
    "nan_grad_at_zero": Pattern(r"(grad\.)?values", nan_differs=True,
                                source=r"\b(std|atan2|maximum|minimum|norm|vector_norm)\b"),
    "grad_duplicate_inputs_alias": Pattern("version|values", source=r"torch\.autograd\.grad\(\w+, \[(\w+), \1\]"),
    "grad_frees_unexecuted_graph": Pattern("error", ours="backward through the graph a second time", theirs="^None$",
                                           source=r"torch\.autograd\.grad\("),
    "empty_create_graph_requires_grad": Pattern(r"grad\.requires_grad", source=r"torch\.zeros\(\(0,"),
    "grad_output_not_requiring_grad": Pattern("error", ours="^None$", theirs="does not require grad and does not "
                                                                             "have a grad_fn"),
    "higher_order_requires_grad": Pattern("requires_grad|grad_fn|is_leaf", source=KINKS + r"[\s\S]*create_graph=True"),
    "false_inplace_error": Pattern("error", ours="modified by an inplace operation", theirs="^None$"),
    "grad_unreached_output_retain_grad": Pattern(r"grad|grad\.values", source=r"(?s)(?=.*torch\.autograd\.grad\()"
                                                                           r"(?=.*(\.retain_grad\(\)|inputs=\[))"),
    "double_backward_grad_fn": Pattern(r"(grad\.)?grad_fn", ours=r"Backward\d*Backward|CopyBackwards",
                                       source="create_graph=True"),
}


def tolerated(finding, source):
    """The KNOWN key a finding matches (it is then counted, not failed), or None."""
    for key, pattern in TOLERATED.items():
        if key in KNOWN and pattern.matches(finding, source):
            return key
    return None


# OpInfo samples (tests/test_fuzz_opinfo.py) whose values or gradients differ from PyTorch's:
# the OpInfo's label -> the difference. Each bug is also in tests/test_fuzz_findings.py.
OPINFO = {
    "logcumsumexp": "not a bug: at |x| = 1e4 PyTorch's float32 gradient is 9e-4 off the float64 one "
                    "(tensorgrad's float32 gradient is within 1e-7 of it)",
    "nn.functional.layer_norm": "not a bug: over one element the gradient is 0; PyTorch's float32 one is 6e-5",
}
