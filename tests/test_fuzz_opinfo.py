"""PyTorch's OpInfo samples through tensorgrad: forward values and gradients (tests/fuzz/opinfo.py).

Profiles:
- the default run: every ``FUZZ_OPINFO_STRIDE``-th (20) OpInfo that tensorgrad has, its first
  ``FUZZ_OPINFO_SAMPLES`` (2) float32 samples;
- ``python -m pytest --long -m long -s tests/test_fuzz_opinfo.py``: every sample of every
  OpInfo tensorgrad has, with a summary (ops covered, samples, and each outcome).

A ``mismatch`` (a silent wrong answer) fails unless ``known.OPINFO`` lists the OpInfo; a sample
tensorgrad rejects (``raises``) is a missing feature, counted in the summary but not failed.
Every ``error_inputs`` entry of every covered OpInfo runs in the default run (about 600 bad
inputs, seconds): each must raise PyTorch's exception type.
The sweep needs PyTorch's test helpers (``expecttest``); without them it is skipped.
"""

import collections
import os
import time

import pytest

from fuzz import known, opinfo
from oracle import _oracle, torch  # noqa: F401 - _oracle skips these tests where PyTorch is absent

STRIDE = int(os.environ.get("FUZZ_OPINFO_STRIDE", "20"))
SAMPLES = int(os.environ.get("FUZZ_OPINFO_SAMPLES", "2"))


@pytest.fixture(scope="module")
def entries():
    if opinfo.load_op_db() is None:
        pytest.skip("PyTorch's OpInfo database (torch.testing._internal, which needs expecttest) is not importable")
    return opinfo.covered()


def failures(outcomes):
    return [o for o in outcomes if o.status == "mismatch" and o.op not in known.OPINFO]


def summary(entries, outcomes, seconds):
    counts = collections.Counter(o.status for o in outcomes)
    lines = [f"{len(entries)} OpInfos covered ({len({e[0].name for e in entries})} ops), {len(outcomes)} samples, "
             f"{seconds:.0f} s: {dict(counts)}"]
    for status in ("mismatch", "raises"):
        by_op = collections.defaultdict(list)
        for o in outcomes:
            if o.status == status:
                by_op[o.op].append(o)
        lines.append(f"--- {status}: {len(by_op)} OpInfos")
        for op, found in by_op.items():
            tag = " (known)" if op in known.OPINFO else ""
            lines.append(f"{op}{tag}: {len(found)} samples, e.g. sample {found[0].sample}: {found[0].detail}")
    return "\n".join(lines)


def test_opinfo_samples_match_torch(entries):
    outcomes = opinfo.sweep(entries[::STRIDE], SAMPLES)
    assert any(o.status == "ok" for o in outcomes), "no sample ran"
    bad = failures(outcomes)
    assert not bad, "\n".join(f"{o.op} sample {o.sample}: {o.detail}" for o in bad)


def test_opinfo_error_inputs_raise_torchs_type(entries):
    outcomes = opinfo.error_sweep(entries)
    assert sum(o.status == "ok" for o in outcomes) > 500, "the error inputs did not run"
    bad = [o for o in outcomes if o.status in ("wrong type", "accepted")]
    assert not bad, "\n".join(f"{o.op} error input {o.sample}: {o.status}: {o.detail}" for o in bad)


@pytest.mark.long
def test_opinfo_samples_match_torch_long(entries):
    start = time.perf_counter()
    outcomes = opinfo.sweep(entries)
    text = summary(entries, outcomes, time.perf_counter() - start)
    print(text)
    assert not failures(outcomes), text
