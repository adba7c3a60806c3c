"""The OpInfo report: how much of PyTorch's op database tensorgrad resolves and agrees with.

``python tests/fuzz/opinfo_report.py [--samples N] [NAME_PREFIX ...]`` prints: the share of op_db's CPU ops
that tensorgrad resolves (and the ones it lacks), every sample's outcome counts (values and
gradients against PyTorch), and the ``error_inputs`` whose exception type matches PyTorch's; with
prefixes, only the ops whose names start with one of them (``fft.`` ``linalg.lu``), each listed;
with ``--samples N``, the first N samples of each OpInfo (all of them by default).
"""

import collections
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from fuzz import opinfo  # noqa: E402
from oracle import torch  # noqa: E402, F401


def main(prefixes, samples_per_op=None):
    ops = opinfo.cpu_ops()
    if prefixes:
        ops = {n: i for n, i in ops.items() if n.startswith(tuple(prefixes))}
    resolved = {n for n, infos in ops.items() if opinfo.resolve(infos[0]) is not None}
    print(f"ops: {len(resolved)} of {len(ops)} of op_db's CPU ops resolve ({len(resolved) / max(len(ops), 1):.1%})")
    print("missing:", " ".join(sorted(set(ops) - resolved)) or "none")
    entries = [e for e in opinfo.covered() if e[0].name in ops]
    start = time.perf_counter()
    samples = opinfo.sweep(entries, samples_per_op)
    counts = collections.Counter(o.status for o in samples)
    compared = counts["ok"] + counts["mismatch"]
    print(f"samples ({time.perf_counter() - start:.0f} s): {dict(counts)}; "
          f"{counts['ok'] / max(compared, 1):.2%} of {compared} compared agree; "
          f"{counts['raises']} raise in tensorgrad only")
    errors = opinfo.error_sweep(entries)
    ecounts = collections.Counter(o.status for o in errors)
    checked = sum(v for k, v in ecounts.items() if k != "skipped")
    print(f"error_inputs: {dict(ecounts)}; {ecounts['ok'] / max(checked, 1):.2%} of {checked} raise PyTorch's type")
    verbose = bool(prefixes) or os.environ.get("OPINFO_VERBOSE")
    for o in samples + errors:
        if o.status in ("mismatch", "raises", "wrong type", "accepted") or (verbose and o.status != "ok"):
            print(f"  {o.status}: {o.op} #{o.sample}: {o.detail}")


if __name__ == "__main__":
    args = sys.argv[1:]
    limit = None
    if args[:1] == ["--samples"]:
        limit, args = int(args[1]), args[2:]
    main(args, limit)
