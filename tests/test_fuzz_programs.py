"""The differential program fuzzer: random autograd programs run in tensorgrad and in PyTorch.

Each program is drawn line by line (``tests/fuzz/generate.py``) and is plain Python source, so
a failure prints a program that runs under both ``import torch`` and ``import tensorgrad as
torch``. Hypothesis shrinks a failing program before it is shown.

Profiles:
- the default run: ``FUZZ_EXAMPLES`` programs (60) of up to 12 instructions, the same ones on
  every run;
- ``python -m pytest --long -m long -s tests/test_fuzz_programs.py``: ``FUZZ_LONG_EXAMPLES``
  programs (3000) of up to 20 instructions; it keeps going after a difference, shrinks each
  one by removing lines, and fails at the end listing every kind of difference it found.

Differences that match a bug being fixed elsewhere (``tests/fuzz/known.py``) are counted, not
failed.
"""

import collections
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tensorgrad

from fuzz import generate, interpret, known
from oracle import _oracle, torch  # noqa: F401 - _oracle skips these tests where PyTorch is absent

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))
LONG_EXAMPLES = int(os.environ.get("FUZZ_LONG_EXAMPLES", "3000"))
SETTINGS = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))


def draw_and_check(data, max_steps):
    """Draw one program (run in PyTorch while drawing), run it in tensorgrad; ``(lines,
    values_each_line, whether PyTorch raised, finding)``."""
    values_each_line = data.draw(st.booleans())
    theirs = interpret.Interpreter(torch, values_each_line)
    lines = generate.draw(generate.Choices(data), theirs, max_steps)
    ours = interpret.run(tensorgrad, lines, values_each_line)
    steps = theirs.finish()
    return lines, values_each_line, steps[-1].error is not None, interpret.compare(ours, steps)


# the default run draws the same programs every time (derandomize), so it cannot fail by chance
# on a difference nobody has seen; the long profile draws new ones on every run
@settings(max_examples=EXAMPLES, derandomize=True, **SETTINGS)
@given(data=st.data())
def test_programs_match_torch(data):
    lines, _, _, finding = draw_and_check(data, 12)
    if finding is not None and known.tolerated(finding, "\n".join(lines)) is None:
        raise AssertionError("tensorgrad and PyTorch differ:\n" + interpret.report(lines, finding))


class Tally:
    """What the long profile saw: programs, lines, errors compared, and the differences."""

    def __init__(self):
        self.programs = 0
        self.lines = 0
        self.raised = 0
        self.tolerated = collections.Counter()
        self.found = {}   # signature -> (count, shrunk lines, finding)

    def add(self, lines, values_each_line, raised, finding):
        self.programs += 1
        self.lines += len(lines)
        self.raised += raised
        if finding is None:
            return
        key = known.tolerated(finding, "\n".join(lines))
        if key is not None:
            self.tolerated[key] += 1
            return
        signature = finding.signature
        if signature in self.found:
            count, shrunk, first = self.found[signature]
            self.found[signature] = (count + 1, shrunk, first)
            return
        shrunk, first = interpret.shrink(tensorgrad, torch, lines, finding, values_each_line)
        self.found[signature] = (1, shrunk, first)

    def summary(self, seconds):
        out = [f"{self.programs} programs, {self.lines} lines, {self.raised} ending in an exception, {seconds:.0f} s; "
               f"tolerated (known): {dict(self.tolerated)}; {len(self.found)} kinds of difference"]
        for count, shrunk, finding in self.found.values():
            out.append(f"\n--- seen {count} times:\n" + interpret.report(shrunk, finding))
        return "\n".join(out)


@pytest.mark.long
def test_programs_match_torch_long():
    tally = Tally()
    start = time.perf_counter()

    @settings(max_examples=LONG_EXAMPLES, **SETTINGS)
    @given(data=st.data())
    def run(data):
        tally.add(*draw_and_check(data, 20))

    run()
    summary = tally.summary(time.perf_counter() - start)
    print(summary)
    assert not tally.found, summary
