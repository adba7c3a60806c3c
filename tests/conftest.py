"""pytest configuration for the test suite.

``--doctest-modules`` (set in pyproject.toml so that the package's docstring examples run with
the tests) would import every Python file here; the seed tutorials in ``seeds/`` are scripts
that ``test_seeds.py`` runs in subprocesses, so they are not collected.
"""

collect_ignore = ["seeds"]
