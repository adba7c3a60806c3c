"""Op-table rows by family, one module each (``ROWS``, a list of ``op_table.Op``).

``tests/op_table.py`` appends every module's ``ROWS`` to ``OPS`` in name order, after its own
rows; a module here imports what it needs from ``op_table`` (``Op``, ``Sample``, ``Err``, ...).
"""
