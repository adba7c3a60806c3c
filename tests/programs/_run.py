"""Runs corpus programs one after another in this interpreter (one import of torch for all).

``python _run.py OUTDIR PROGRAM...`` (PyTorch) or ``python -m tensorgrad _run.py OUTDIR PROGRAM...``
(tensorgrad as ``torch``). Each program runs as ``__main__`` in a fresh empty working folder, with
``sys.argv == [PROGRAM]``; its stdout goes to ``OUTDIR/<name>.out`` and, when it raises,
the traceback to ``OUTDIR/<name>.err``, and the CPU seconds it took to ``OUTDIR/<name>.cpu``.
"""

import contextlib
import io
import os
import pathlib
import runpy
import sys
import tempfile
import time
import traceback


def run_one(path, outdir):
    name = pathlib.Path(path).stem
    out = io.StringIO()
    failure = None
    cwd = os.getcwd()
    start = time.process_time()
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)
        sys.argv = [path]
        try:
            with contextlib.redirect_stdout(out):
                runpy.run_path(path, run_name="__main__")
        except BaseException:       # noqa: BLE001 - a program's failure is its result
            failure = traceback.format_exc()
        finally:
            os.chdir(cwd)
    (outdir / f"{name}.cpu").write_text(f"{time.process_time() - start:.2f}\n")
    (outdir / f"{name}.out").write_text(out.getvalue())
    if failure is not None:
        (outdir / f"{name}.err").write_text(failure)


def main(argv):
    outdir = pathlib.Path(argv[0])
    outdir.mkdir(parents=True, exist_ok=True)
    for path in argv[1:]:
        run_one(os.path.abspath(path), outdir)


if __name__ == "__main__":
    main(sys.argv[1:])
