"""Sweep tasks for the Dask executor tests: importable by name (``_dask_tasks``) on the
workers, which start with this folder on their PYTHONPATH."""

from __future__ import annotations

import os
import time


def slow_square(x: int, seconds: float, log: str) -> dict:
    """``x`` squared after ``seconds``; every call appends ``x pid`` to ``log``."""
    with open(log, "a") as f:
        f.write(f"{x} {os.getpid()}\n")
    time.sleep(seconds)
    return {"x": x, "y": x * x}


def total(table: list, x: int) -> dict:
    """A run reading a large shared input (shipped once per worker)."""
    return {"x": x, "sum": sum(table) + x, "pid": os.getpid()}


def exit_worker(x: int) -> dict:
    """A run that kills the process it runs in (on every worker it is sent to)."""
    if x == 3:
        os._exit(1)
    return {"x": x}


def read_input(config: dict) -> dict:
    """A run reading the file ``config["file"]`` by path (shipped to the workers)."""
    with open(config["file"]) as f:
        text = f.read()
    return {"config": config, "text": text, "in_cache": "coschedlab-inputs" in config["file"]}
