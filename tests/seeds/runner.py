"""Run a seed snippet under PyTorch (recording its random draws) or under tensorgrad
(replaying them), so both print the same numbers: ``runner.py torch|tensorgrad SNIPPET DRAWS``."""

import json
import runpy
import sys

import numpy as np


def main(mode, snippet, draws_path):
    if mode == "torch":
        import torch
        # seeded, so that every run compares the same numbers: unseeded, a draw now and then landed
        # where a last-bit difference of float32 rounding showed in the printed fourth digit
        torch.manual_seed(20261203)
        draws = []

        def recording(fn):
            def draw(*args, **kwargs):
                out = fn(*args, **kwargs)
                draws.append(out.detach().numpy().tolist())
                return out
            return draw
        torch.randn = recording(torch.randn)
        torch.rand = recording(torch.rand)
        try:
            runpy.run_path(snippet, run_name="__main__")
        finally:
            with open(draws_path, "w") as f:
                json.dump(draws, f)
        return
    import tensorgrad
    with open(draws_path) as f:
        draws = iter(json.load(f))

    def replaying(fn):
        def draw(*args, requires_grad=False, **kwargs):
            shape = tuple(fn(*args, **kwargs).shape)
            value = np.asarray(next(draws), dtype=np.float32).reshape(shape)
            return tensorgrad.tensor(value, requires_grad=requires_grad)
        return draw
    tensorgrad.randn = replaying(tensorgrad.randn)
    tensorgrad.rand = replaying(tensorgrad.rand)
    sys.modules["torch"] = tensorgrad
    runpy.run_path(snippet, run_name="__main__")


if __name__ == "__main__":
    main(*sys.argv[1:])
