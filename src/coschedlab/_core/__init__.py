"""The compiled modules (Cython): every ``*.pyx`` under ``src/coschedlab`` is an extension
module built by the package's own build (``setup.py``: one list of modules, the compiler
directives set once), in place by the editable install (``pip install -e .``, which
``scripts/setup.sh`` runs, and which rebuilds a module whose source is newer than it).

Modules here: :mod:`.swf_parse` (the SWF reader's parse loop), :mod:`.textrows` (the rows of
jobs.csv and result.swf, and Arrow text buffers for jobs.parquet), :mod:`.checks` (the
validator's scans), :mod:`.kahan` (the metrics' per-group sums), :mod:`.order` (stable
orders of float columns, the event sweep of :func:`coschedlab.metrics.step_sum`). Importing
this package first checks that no compiled module is older than its source
(:mod:`coschedlab._build`).
"""

from .._build import check_built

check_built()  # imported before any compiled module: one older than its source is said
