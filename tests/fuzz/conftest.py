"""The fuzzer's modules are collected for their doctests only where PyTorch (the oracle) is."""

import importlib.util

if importlib.util.find_spec("torch") is None:
    collect_ignore_glob = ["*.py"]
