"""Builds ``tensorgrad/_compile_options.py`` from the installed PyTorch (the oracle):

    python tests/compile_tables.py > tensorgrad/_compile_options.py

``tests/test_compile_arguments.py`` checks that the module still says what PyTorch does."""

import json
import sys


def oracle_tables():
    """(options, modes, backends) as PyTorch has them: each inductor option's name with the
    builtin type its value is checked against (None where PyTorch checks none), the modes, and
    every backend name (debug and experimental ones too)."""
    import torch
    from torch._dynamo import list_backends
    from torch._inductor import config, list_mode_options

    current = config.get_config_copy()
    options = {}
    for name in current:
        kind = config.get_type(name)
        checked = torch._get_origin(kind) is None and isinstance(kind, type) and kind.__module__ == "builtins"
        options[name] = kind.__name__ if checked else None
    return options, tuple(list_mode_options()), tuple(list_backends(exclude_tags=()))


def render(options, modes, backends):
    import torch
    lines = ['"""PyTorch\'s names for ``tensorgrad.compile``\'s ``backend``, ``mode`` and ``options``.',
             "",
             f"Taken from PyTorch {torch.__version__.split('+')[0]} by ``python tests/compile_tables.py``: "
             "``torch.compile`` refuses a",
             "backend, mode or option it does not know, and an option value that is not of the option's",
             "type (None: not checked), so tensorgrad refuses the same ones. It is long because it lists",
             'all of inductor\'s options, one a line."""',
             "",
             "MODES = (" + ", ".join(json.dumps(m) for m in modes) + ")",
             "",
             "BACKENDS = ("]
    lines += [f"    {json.dumps(b)}," for b in backends]
    lines += [")", "", "# option -> the builtin type its value must have (None: any value)", "OPTIONS = {"]
    lines += [f"    {json.dumps(k)}: {json.dumps(v) if v else None}," for k, v in options.items()]
    lines += ["}", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(render(*oracle_tables()))
