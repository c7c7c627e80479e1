"""The dashboard's pages, one module per capability (``NAME``, ``PATH``, ``TITLE``,
``layout(ctx)``, ``register(app, ctx)``), in navigation order."""

from __future__ import annotations

from . import coupled, insitu, results, run, studies, workflows

PAGES = (run, results, insitu, workflows, coupled, studies)
