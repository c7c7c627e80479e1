"""The ``coschedlab`` command line (typer + rich)."""

from __future__ import annotations

from .main import app, main

__all__ = ["app", "main"]
