"""The dashboard's pages, one module per capability (``NAME``, ``PATH``, ``TITLE``,
``layout(ctx)``, ``register(app, ctx)``), in navigation order."""

from __future__ import annotations

from . import insitu, results, run

PAGES = (run, results, insitu)
