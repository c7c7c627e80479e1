"""The browser dashboard (``coschedlab gui``): set up, run, watch and compare simulations, and
plan in situ ensembles, without writing YAML (:mod:`.app` says how it is built)."""

from __future__ import annotations

from .app import Context, make_app
from .workspace import Workspace

__all__ = ["Context", "Workspace", "make_app"]
