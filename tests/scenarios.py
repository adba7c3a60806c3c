"""Differential scenarios: one function run with ``torch`` bound to tensorgrad and to PyTorch.

A scenario is ``def scenario(torch, log): ...``; it logs whatever should agree (tensors print
as PyTorch prints them). The log entries, any exception (type and message) and any warnings
are compared line by line.
"""

import re
import warnings

import tensorgrad as tg


def normalize(text):
    return re.sub(r"0x[0-9a-fA-F]+", "0x...", text)


# PyTorch warns this the first time torch.func is used; it is not part of the behaviour compared
_ORACLE_NOISE = "`torch.jit.script` is deprecated"


def run_scenario(module, scenario):
    """Run ``scenario(module, log)``; the log, the exception and the warnings as strings."""
    log = []

    def record(entry):
        # repr at once: later in-place accumulation must not change what was logged
        log.append(normalize(repr(entry)))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            scenario(module, record)
        except Exception as e:  # noqa: BLE001 - the exception is part of the result
            record(("raised", type(e).__name__, str(e)))
    for w in caught:
        if str(w.message).startswith(_ORACLE_NOISE):
            continue
        record(("warning", w.category.__name__, str(w.message)))
    return log


def same_log(torch, scenario):
    """Assert that tensorgrad's log equals PyTorch's; returns it."""
    ours = run_scenario(tg, scenario)
    theirs = run_scenario(torch, scenario)
    assert ours == theirs, "\n ours:  " + "\n        ".join(ours) + "\n torch: " + "\n        ".join(theirs)
    return ours
