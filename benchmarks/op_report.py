"""How much of the op surface exists and how much of the op table passes each check.

Runs every case of ``tests/op_table.py`` through the checks in ``tests/op_checks.py`` (the same
ones ``tests/test_ops.py`` runs) and prints counts. Checks that compare with PyTorch are
skipped when it is not installed; finite differences and kink gradients always run.
Run: python benchmarks/op_report.py [--failures] [--rows PATTERN ...]
"""

import argparse
import fnmatch
import inspect
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import tensorgrad  # noqa: E402
from tensorgrad._ops.registry import OPS as REGISTRY  # noqa: E402

import op_checks as C  # noqa: E402
from op_table import KINKS, OPS  # noqa: E402

LABELS = {
    "values": "values vs torch",
    "grad_torch": "gradients vs torch",
    "grad_fd": "finite differences",
    "grad_fn": "grad_fn names",
    "errors": "error types",
}


def torch_level_functions():
    """Public functions in the ``tensorgrad`` namespace (not classes, modules or dtypes)."""
    names = []
    for name in dir(tensorgrad):
        obj = getattr(tensorgrad, name)
        if not name.startswith("_") and callable(obj) and not inspect.isclass(obj):
            names.append(name)
    return names


def first_line(error):
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:160]


def run(rows, torch, show_failures):
    passed = {check: 0 for check in LABELS}
    total = {check: 0 for check in LABELS}
    known = {check: 0 for check in LABELS}
    failures = []
    for check, row, key, payload in C.cases(rows):
        if torch is None and check != "grad_fd":
            continue
        total[check] += 1
        try:
            C.run_case(check, row, payload, torch)
        except Exception as error:  # noqa: BLE001 - every failure is counted, whatever it is
            if C.xfail_reason(check, row, key):
                known[check] += 1
            failures.append(f"{check} {row.name}[{key}]: {first_line(error)}")
        else:
            passed[check] += 1
    kinks = 0
    for kink in KINKS:
        try:
            C.check_kink(kink)
            if torch is not None:
                C.check_kink_vs_torch(kink, torch)
        except Exception as error:  # noqa: BLE001
            failures.append(f"kink {kink.name}: {first_line(error)}")
        else:
            kinks += 1
    if show_failures:
        for line in failures:
            print("FAIL", line)
    return passed, total, known, kinks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--failures", action="store_true", help="list every failing case")
    parser.add_argument("--rows", nargs="*", default=["*"], help="only the rows whose name matches (fnmatch)")
    args = parser.parse_args()
    rows = [row for row in OPS if any(fnmatch.fnmatchcase(row.name, p) for p in args.rows)]
    try:
        import torch
    except ImportError:
        torch = None
    start = time.perf_counter()
    passed, total, known, kinks = run(rows, torch, args.failures)
    reached = C.reached_ops(rows)
    elapsed = time.perf_counter() - start
    functions = torch_level_functions()
    in_torch = [n for n in functions if torch is not None and hasattr(torch, n)]
    print(f"ops registered: {len(REGISTRY)}")
    print(f"torch-level functions: {len(functions)}" + (f" ({len(in_torch)} also in torch)" if torch else ""))
    print(f"table rows: {len(rows)}, reaching {len(reached & set(REGISTRY))}/{len(REGISTRY)} registered ops")
    for check, label in LABELS.items():
        if torch is None and check != "grad_fd":
            print(f"{label}: skipped (torch not installed)")
            continue
        note = f" ({known[check]} known failures, xfail in tests)" if known[check] else ""
        print(f"{label}: {passed[check]}/{total[check]}{note}")
    print(f"kink gradients (Appendix A): {kinks}/{len(KINKS)}")
    print(f"seconds: {elapsed:.1f}")


if __name__ == "__main__":
    main()
