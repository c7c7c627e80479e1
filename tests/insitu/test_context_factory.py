"""A run chooses SimGrid's context factory itself, whatever the process imported before.

SimGrid's Python bindings set ``contexts/factory`` to ``thread`` when imported, for the life of
the process and of every child it forks; a compiled ``activities`` run left to that setting ran
~6x slower (in-transit, S=4, N=32: 1.5 s -> 8.8 s). The check runs in a fresh interpreter so
that this test process never imports the bindings (see test_insitu_simulate.py)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("simgrid") is None:
    pytest.skip("SimGrid's Python bindings are not installed", allow_module_level=True)

SRC = str(Path(__file__).resolve().parents[2] / "src")

SCRIPT = """
import simgrid  # sets contexts/factory to thread for this process
from coschedlab.insitu import pieces
from coschedlab.insitu.plan import make_plan
from coschedlab.insitu.simulate import simulate
from coschedlab.insitu.spec import generate_ensemble
before = pieces.context_factory()
plan = make_plan(generate_ensemble(2, 2, 4.0, 6, seed=2, steps=4), "in-transit")
simulate(plan, "paper", in_process=True)
print(before, pieces.context_factory())
"""


def test_run_sets_its_context_factory_after_the_bindings_were_imported() -> None:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    before, used = out.stdout.split()
    assert before == "thread"  # the bindings' setting, which the run must not keep
    assert used in ("raw", "ucontext")
