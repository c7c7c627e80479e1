"""The examples no document runs (tests/test_docs_commands.py runs every ``python
examples/...`` line of README.md and docs/): each runs as its docstring says, in a folder of
its own, exits 0 and prints no traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_example(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    shutil.copytree(ROOT / "examples", cwd / "examples", dirs_exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, f"examples/{name}", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("name", "args", "says"),
    [
        ("simulate_a_trace.py", (), "conservative"),
        pytest.param("coupled_two_systems.py", (), "cluster", marks=pytest.mark.slow),
        pytest.param("heat_scaling.py", ("--grid", "48", "--steps", "40"), "scaling:",
                     marks=pytest.mark.slow),
    ],
)  # fmt: skip
def test_an_example_runs_as_its_docstring_says(tmp_path, name, args, says):
    done = run_example(name, *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert says in done.stdout
