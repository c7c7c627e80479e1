"""What README.md says co-location does holds on the README's own commands.

The co-location commands are read from the README (continuation lines joined, comments dropped)
and run as written, at full size, in a scratch directory; that every command of every document
runs is tests/test_docs_commands.py's business. Here: the README's claim holds (co-location
gains on that example, every job spread), and the documents keep the commands in the order the
text explains them.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _cli import cli_here, doc_commands  # noqa: E402

from coschedlab.metrics import improvement

ROOT = Path(__file__).resolve().parents[2]


def commands(text: str) -> list[str]:
    """The documented commands of ``text`` (:func:`_cli.doc_commands`)."""
    return doc_commands(text)


def readme_coloc_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    start = text.index("# node co-location (ELiSE)")
    block = text[start : text.index("\n\n", start)]
    return commands(f"```bash\n{block}\n```")


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run a documented command as written, by the command line's entry point in this process
    (tests/test_docs_commands.py runs the documents' commands in fresh processes)."""
    args = shlex.split(command)
    assert args[0] == "coschedlab"
    p = cli_here(*args[1:], cwd=cwd)
    assert p.returncode == 0, (command, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    return p


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    return tmp_path


def test_the_documents_have_the_commands():
    readme = readme_coloc_commands()
    assert [c.split()[1] for c in readme] == [
        "generate", "simulate", "simulate", "report", "compare"
    ]  # fmt: skip
    docs = commands((ROOT / "docs" / "coloc.md").read_text())
    assert [c.split()[1] for c in docs] == [
        "generate", "simulate", "report", "generate", "simulate", "report", "simulate"
    ]  # fmt: skip
    assert "-s examples/best_fit_coloc.py" in docs[-1]
    # the machine travels in the workload: simulate needs no machine options
    for c in readme + docs:
        if c.split()[1] == "simulate":
            assert "--nodes" not in c and "--cores-per-node" not in c


SLOW = ("report", "compare")  # plots and 48 runs: in the slow test (docs/coloc.md: all there)


def test_readme_coloc_commands_run_as_written(workdir):
    """Full size: 500 jobs, four schedulers and the user's co-scheduler."""
    outputs = [run(c, workdir).stdout for c in readme_coloc_commands() if c.split()[1] not in SLOW]
    text = " ".join(" ".join(outputs).split())
    assert "on 100 nodes x 2 sockets x 24 cores" in text and "best-fit" in text
    assert "note:" not in text  # every co-scheduler spread jobs
    base = pd.read_parquet(workdir / "out/w/easy/jobs.parquet")
    for name in ("easy-coloc", "best-pair"):  # what the README says co-location does here
        jobs = pd.read_parquet(workdir / f"out/w/{name}/jobs.parquet")
        assert improvement(jobs, base)["makespan_improvement"] > 2.0
        assert (jobs.placement == "spread").all()
