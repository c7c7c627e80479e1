"""``coschedlab compare`` as a user meets it: table, files, plots, one-line errors, exit codes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest
from _cli import cli_here
from _experiments_data import base_spec, write_spec

from coschedlab.experiments import load_spec, run_comparison, write_analysis


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """``coschedlab compare ARGS`` from ``tmp_path``, by the command line's entry point in this
    process (``cli_here``)."""
    return cli_here("compare", *args, cwd=tmp_path)


def trace_only(tmp_path: Path, **changes) -> dict:
    doc = base_spec(tmp_path)
    doc["workloads"] = [doc["workloads"][2]]
    doc["repetitions"] = 1
    doc.update(changes)
    return doc


def test_compare_command(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    write_spec(tmp_path / "cmp.yaml", trace_only(tmp_path, plots="comparison", output="res"))
    done = cli(tmp_path, "cmp.yaml", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert "vs fcfs %" in done.stdout and "trace" in done.stdout
    out = tmp_path / "res"
    assert len(pd.read_csv(out / "comparison.csv")) == 2
    assert (out / "improvement.png").stat().st_size > 10_000
    assert (out / "plots" / "trace" / "comparison.png").stat().st_size > 10_000
    from coschedlab.cli.sweeps import compare

    capsys.readouterr()
    compare(tmp_path / "cmp.yaml", jobs=2, out=out, fresh=False)  # resumes: nothing to do
    assert "2 of 2 runs already stored; 0 to do" in capsys.readouterr().out


def test_bad_spec_is_one_line_exit_2(tmp_path: Path) -> None:
    doc = trace_only(tmp_path)
    doc["workloads"][0]["limt"] = 3
    write_spec(tmp_path / "bad.yaml", doc)
    done = cli(tmp_path, "bad.yaml")
    assert done.returncode == 2
    line = 1 + (tmp_path / "bad.yaml").read_text().splitlines().index("  limt: 3")
    assert done.stderr.strip() == (
        f"error: bad.yaml:{line}: unknown key 'workloads[0].limt' (did you mean 'limit'?)"
    )
    assert not (tmp_path / "out").exists()


def test_changed_spec_is_one_line_exit_2(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path / "cmp.yaml", trace_only(tmp_path)))
    assert run_comparison(spec, tmp_path / "out" / "cmp", jobs=1).ok
    write_spec(tmp_path / "cmp.yaml", trace_only(tmp_path, kill_at_walltime=True))
    done = cli(tmp_path, "cmp.yaml", "-j", "1")
    assert done.returncode == 2 and "'kill_at_walltime' False -> True" in done.stderr
    assert "--fresh" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_full_plots(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path / "s.yaml", trace_only(tmp_path, plots="full")))
    out = tmp_path / "out"
    assert run_comparison(spec, out, jobs=1).ok
    _, paths = write_analysis(spec, out)
    names = {p.name for p in paths}
    assert {"report.html", "comparison.png", "fcfs_gantt.png", "easy_gantt.png"} <= names
