"""The ``coschedlab`` command line (typer + rich)."""

from __future__ import annotations

import time

#: when the command started (``time.monotonic()``): progress bars count elapsed time from it
STARTED = time.monotonic()

from .main import main as _main  # noqa: E402 (STARTED first)

__all__ = ["app", "main"]


def main() -> None:
    """The ``coschedlab`` program (its entry point, and ``python -m coschedlab.cli``):
    :func:`.main.main`, a plain ``simulate`` ending the process without the interpreter's
    teardown."""
    _main(exit_process=True)


def __getattr__(name: str) -> object:
    """``app``: the whole typer app, made on first use (:func:`.main.build_app`)."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return import_module(".main", __name__).app  # the module (``main`` here is its function)
