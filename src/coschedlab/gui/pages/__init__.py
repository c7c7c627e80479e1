"""The dashboard's pages, one module per capability (``NAME``, ``PATH``, ``TITLE``,
``layout(ctx)``, ``register(app, ctx)``), in navigation order. A registered capability's
sweep section (:func:`~coschedlab.gui.sweeps.sweep_page`) ends its page (its ``page``,
default its name): the module of that name, else a page generated for it."""

from __future__ import annotations

from typing import Any

from . import coupled, insitu, results, run, studies, workflows

#: the pages written by hand
PAGES = (run, results, insitu, workflows, coupled, studies)


def pages() -> tuple[Any, ...]:
    """Every page: :data:`PAGES` (each ending with its capability's sweep section), then a
    generated page per registered capability that has no page of its own."""
    from ...sweeps.capability import capabilities
    from ..sweeps import sweep_page

    sections = {c.page or c.name: c for c in capabilities() if c.page is not None}
    own = [sweep_page(sections.pop(p.NAME), p) if p.NAME in sections else p for p in PAGES]
    return (*own, *(sweep_page(c) for c in sections.values()))
