"""The differential program fuzzer (issue #11): random straight-line autograd programs, rendered
as Python source, run under ``import torch`` and ``import tensorgrad as torch``, compared.

- ``vocabulary``: the op-table rows the fuzzer calls, turned into source templates.
- ``generate``: draws a program instruction by instruction (hypothesis), running each line in
  PyTorch as it goes so the next instruction can pick arguments that fit.
- ``interpret``: runs source lines in one library's namespace, observes every tensor after each
  line (value, dtype, ``requires_grad``, ``is_leaf``, ``grad_fn``, ``_version``, ``.grad``,
  exceptions), compares the two traces and shrinks a finding to the fewest lines.
- ``known``: the bugs being fixed elsewhere that the fuzzer avoids or tolerates for now.
- ``opinfo``: PyTorch's OpInfo samples run through tensorgrad (a second fuzz source).

The tests are ``tests/test_fuzz_programs.py``, ``tests/test_fuzz_opinfo.py`` and the findings'
regression tests ``tests/test_fuzz_findings.py``.
"""
