"""Run every example once, each in a fresh process, and print how long each took.

``--device`` is passed to every example and ``--out`` to those that write files; the examples
run with their default sizes. An example whose optional dependency (``pip install -e
".[examples]"``) is missing, or that fails, is reported, and the exit status is then nonzero.

Run: python examples/run_all.py [--device cuda] [--out FOLDER]
"""

import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLES = ["autograd_tour.py", "tape_vs_func.py", "train_four_ways.py", "seed_tour.py", "linear_regression.py",
            "digits.py", "imperative_vs_functional.py", "higher_order.py", "custom_function.py", "autograd_graph.py"]
NO_FILES = {"autograd_tour.py", "tape_vs_func.py", "train_four_ways.py", "higher_order.py"}


def main(argv=None):
    import argparse
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("--device", default=None, help="passed to every example (default: each picks the best available)")
    p.add_argument("--out", default=None, help="passed to the examples that write files")
    args = p.parse_args(argv)
    times, failed = {}, []
    for name in EXAMPLES:
        extra = [] if args.device is None else ["--device", args.device]
        if args.out is not None and name not in NO_FILES:
            extra += ["--out", args.out]
        if name == "digits.py":
            extra.append("--no-bar")
        print(f"=== {name} {' '.join(extra)}", flush=True)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, str(HERE / name), *extra])
        times[name] = time.perf_counter() - start
        if proc.returncode:
            failed.append(name)
    print(f"\n{'example':>28} | seconds")
    for name, t in times.items():
        print(f"{name:>28} | {t:7.1f}{'  FAILED' if name in failed else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
