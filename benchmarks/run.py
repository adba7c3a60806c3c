"""Every benchmark in one run, as ratios measured side by side.

    python benchmarks/run.py [--threads N] [--quick] [--only W1,W5]

- W1: 50 tiny elementwise ops, forward and backward (tensorgrad eager against PyTorch eager)
- W2: an MLP 784-512-512-10, batch 128, one SGD step (eager, ``tensorgrad.compile``, PyTorch,
  a hand-written ``jax.jit`` step)
- W3: four 2048x2048 matmuls, forward and backward
- W4: a small CNN's SGD step, batch 64 (as W2)
- W5: cold start: fresh processes running a model-building script, the seed tutorials and a
  short training script (``benchmarks/cold/``, ``tests/seeds/``) under PyTorch and under
  ``python -m tensorgrad``, with an empty and with a warm compilation cache. The training script
  also runs as plain JAX (``train_first_steps_jax.py``: one ``jax.jit`` of the step, with JAX's
  own persistent cache, empty and then warm): what XLA's compiles cost the same model.

Each workload runs in a fresh process whose PyTorch and XLA thread counts are pinned to the same
number (``--threads``, default 1: ``torch.set_num_threads``, ``OMP_NUM_THREADS``, XLA's
``--xla_cpu_multi_thread_eigen=false`` and ``PJRT_NPROC``). The load average is printed before
and after: the ratios mean little on a busy machine, where PyTorch's OpenMP threads suffer most.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _env(threads, cache=None):
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)    # as an installed package: imports read .pyc files
    env.update({"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads), "PJRT_NPROC": str(threads),
                "PYTHONPATH": ROOT + os.pathsep + env.get("PYTHONPATH", "")})
    flags = env.get("XLA_FLAGS", "")
    if threads == 1 and "multi_thread_eigen" not in flags:
        flags += " --xla_cpu_multi_thread_eigen=false"
    env["XLA_FLAGS"] = flags.strip()
    if cache is not None:
        env["TENSORGRAD_COMPILATION_CACHE"] = cache
    return env


def _load():
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def steady(name, threads, quick):
    args = [sys.executable, os.path.join(HERE, "workloads.py"), name, str(threads)] + (["--quick"] if quick else [])
    out = subprocess.run(args, env=_env(threads), capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{name} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _timed_run(argv, env):
    start = time.perf_counter()
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=False, cwd=ROOT)
    wall = time.perf_counter() - start
    if out.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{out.stderr[-3000:]}")
    metrics = {m.group(1): float(m.group(2)) for m in re.finditer(r"^METRIC (\S+) (\S+)$", out.stdout, re.M)}
    return wall, metrics


def _jax_env(threads, cache):
    """The environment of a plain JAX run whose persistent cache is ``cache`` (every program
    stored, as tensorgrad stores them)."""
    env = _env(threads)
    env.update({"JAX_COMPILATION_CACHE_DIR": cache, "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
                "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"})
    return env


JAX_TWINS = {"train_first_steps": os.path.join(HERE, "cold", "train_first_steps_jax.py")}


def cold(threads, quick):
    """Wall times (with import) of each cold script: PyTorch, tensorgrad with an empty cache,
    tensorgrad again with the cache that run filled, and where the script has a plain JAX twin,
    that twin with an empty and a warm cache of JAX's own. tensorgrad's bytecode is compiled
    first, as an install does (PyTorch's was, by pip)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "tensorgrad")], check=True,
                   env=_env(threads))
    seeds = sorted(f for f in os.listdir(os.path.join(ROOT, "tests", "seeds")) if f.endswith(".py") and f != "runner.py")
    scripts = {"build_models": [os.path.join(HERE, "cold", "build_models.py")],
               "train_first_steps": [os.path.join(HERE, "cold", "train_first_steps.py")],
               "seed_tutorials": [os.path.join(ROOT, "tests", "seeds", f) for f in (seeds[:3] if quick else seeds)]}
    rows = {}
    for name, paths in scripts.items():
        row = {"torch": 0.0, "empty": 0.0, "warm": 0.0, "metrics": {}}
        for path in paths:
            with tempfile.TemporaryDirectory() as cache:
                for mode in ("torch", "empty", "warm"):
                    argv = [sys.executable, path] if mode == "torch" else [sys.executable, "-m", "tensorgrad", path]
                    wall, metrics = _timed_run(argv, _env(threads, cache))
                    row[mode] += wall
                    for key, value in metrics.items():
                        row["metrics"][f"{key} ({mode})"] = value
        if name in JAX_TWINS:
            with tempfile.TemporaryDirectory() as cache:
                for mode in ("jax empty", "jax warm"):
                    wall, metrics = _timed_run([sys.executable, JAX_TWINS[name]], _jax_env(threads, cache))
                    row[mode] = wall
                    for key, value in metrics.items():
                        row["metrics"][f"{key} ({mode})"] = value
        rows[name] = row
    return rows


def _ratio(a, b):
    return f"{a / b:6.2f}x" if b else "   n/a"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (a smoke run)")
    parser.add_argument("--only", default="W1,W2,W3,W4,W5")
    args = parser.parse_args()
    chosen = args.only.split(",")
    print(f"threads {args.threads}; {_load()}; cpus {os.cpu_count()}")
    for name in [w for w in chosen if w != "W5"]:
        times = steady(name, args.threads, args.quick)
        base = times["torch"]
        print(f"\n{name}  (ms per step; ratio to PyTorch eager, to jax.jit)")
        for way, t in times.items():
            print(f"  {way:20s} {t * 1e3:10.3f}  {_ratio(t, base)}  {_ratio(t, times['jax.jit'])}")
    if "W5" in chosen:
        print("\nW5  cold start: wall seconds of fresh processes, import included (ratio to PyTorch)")
        for name, row in cold(args.threads, args.quick).items():
            print(f"  {name:18s} torch {row['torch']:6.2f}  tensorgrad empty cache {row['empty']:6.2f} "
                  f"{_ratio(row['empty'], row['torch'])}  warm cache {row['warm']:6.2f} {_ratio(row['warm'], row['torch'])}")
            if "jax empty" in row:
                print(f"  {'':18s} plain JAX (jax.jit)  empty cache {row['jax empty']:6.2f}  warm cache {row['jax warm']:6.2f}")
            for key, value in row["metrics"].items():
                print(f"      {key:34s} {value * 1e3:9.1f} ms")
    print(f"\n{_load()}")


if __name__ == "__main__":
    main()
