"""The dashboard's pages, one module per capability (``NAME``, ``PATH``, ``TITLE``,
``layout(ctx)``, ``register(app, ctx)``), in navigation order; a registered capability whose
page is generated and that has no module here gets one (its sweep section:
:func:`~coschedlab.gui.sweeps.sweep_page`)."""

from __future__ import annotations

from typing import Any

from . import coupled, insitu, results, run, studies, workflows

#: the pages written by hand
PAGES = (run, results, insitu, workflows, coupled, studies)


def pages() -> tuple[Any, ...]:
    """Every page: :data:`PAGES`, then a generated page per registered capability that has
    no page of its own."""
    from ...sweeps.capability import capabilities
    from ..sweeps import sweep_page

    own = {p.NAME for p in PAGES}
    made = [sweep_page(c) for c in capabilities() if c.generated and c.name not in own]
    return (*PAGES, *made)
