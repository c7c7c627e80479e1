"""Every co-location command of README.md and docs/coloc.md runs as written.

The commands are read from the documents (continuation lines joined, comments dropped) and run
in order in a scratch directory, with the real ARIS pool for ``POOL.json`` / ``$POOL``. The
README's workload runs at full size, and its claim holds: co-location gains on that example.
The default run covers the README's generate and simulate lines; ``-m slow`` runs every command
of both documents (report and compare included; docs/coloc.md with 60 jobs per workload).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from _coloc_data import real_pool_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _cli import doc_commands  # noqa: E402

from coschedlab.metrics import improvement

ROOT = Path(__file__).resolve().parents[2]
POOL_DIR = real_pool_dir()
pytestmark = pytest.mark.skipif(POOL_DIR is None, reason="real ELiSE pool files not available")


def commands(text: str) -> list[str]:
    """The documented commands of ``text`` (:func:`_cli.doc_commands`)."""
    return doc_commands(text)


def readme_coloc_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    start = text.index("# node co-location (ELiSE)")
    block = text[start : text.index("\n\n", start)]
    return commands(f"```bash\n{block}\n```")


def run(command: str, cwd: Path, jobs: str | None = None) -> subprocess.CompletedProcess:
    """Run a documented command with the real pool (and ``--jobs N`` for generate if given)."""
    pool = str(POOL_DIR / "lm-aris.compute-NAS.json")
    command = command.replace("$POOL", pool).replace("POOL.json", pool)
    args = shlex.split(command.replace("W.swf", "w.swf"))  # "W.swf": the workload made above
    assert args[0] == "coschedlab"
    if jobs is not None and args[1] == "generate":
        args[args.index("--jobs") + 1] = jobs
    p = subprocess.run(
        [sys.executable, "-m", "coschedlab.cli", *args[1:]],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )
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
    assert docs[-1].endswith("-s examples/best_fit_coloc.py")
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


@pytest.mark.slow
@pytest.mark.parametrize("doc", ["README.md", "docs/coloc.md"])
def test_every_coloc_command_runs_as_written(workdir, doc):
    """All of them, report and compare included, in order."""
    text = (ROOT / doc).read_text()
    found = readme_coloc_commands() if doc == "README.md" else commands(text)
    for c in found:
        run(c, workdir, jobs=None if doc == "README.md" else "60")
    assert (workdir / ("out/w/report" if doc == "README.md" else "out/w256/report")).is_dir()
