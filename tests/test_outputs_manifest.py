"""``--force`` and ``--fresh`` replace only the files coschedlab wrote: the manifest that a
folder's marker keeps (``coschedlab.outputs.record``), for every writer.

Before it, any file named like an output (``*.md``, ``*.csv``, ...) in a folder coschedlab
made counted as its own: ``echo notes > fz/notes.md`` went with the next ``--force``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _cli import SMALL, cli_here
from conftest import workload

from coschedlab import Cluster, simulate
from coschedlab.errors import InputError
from coschedlab.outputs import MARKER, first_foreign, record, recorded, written


@pytest.fixture
def fz(tmp_path: Path) -> Path:
    """``coschedlab simulate small.swf --out fz`` in ``tmp_path``."""
    (tmp_path / "small.swf").write_text(SMALL)
    (tmp_path / "other.swf").write_text(SMALL.replace("1 0 -1 50", "1 0 -1 55"))
    done = cli_here("simulate", "small.swf", "--out", "fz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path / "fz"


def _force(fz: Path) -> object:
    return cli_here("simulate", "other.swf", "--out", "fz", "--force", cwd=fz.parent)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_result_lists_every_file_it_wrote(fz: Path) -> None:
    assert written(fz) == {"jobs.parquet", "jobs.csv", "result.swf", "metrics.json"}
    assert first_foreign(fz) is None
    done = _force(fz)  # nothing of the user's: replaced
    assert done.returncode == 0, done.stderr
    assert json.loads((fz / "metrics.json").read_text())["metrics"]["n_jobs"] == 3
    assert first_foreign(fz) is None


@pytest.mark.parametrize(
    "mine",
    ["notes.md", "summary.csv", "metrics.json.bak", "sub/summary.csv", "plots/x.png"],
)
def test_force_never_deletes_a_file_the_user_put_in_a_result(fz: Path, mine: str) -> None:
    """The repro (notes.md), a file named like an output written after the run
    (summary.csv), and one in a subfolder the user made: refused, in one line naming the
    file, exit 2; nothing is lost."""
    (fz / mine).parent.mkdir(exist_ok=True)
    (fz / mine).write_text("the user's\n")
    before = _snapshot(fz)
    done = _force(fz)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"fz/{mine}" in lines[0], done.stderr
    assert "coschedlab did not write" in lines[0] and "move it away" in lines[0]
    assert _snapshot(fz) == before


def test_a_manifest_naming_a_file_outside_its_folder_deletes_nothing_there(fz: Path) -> None:
    victim = fz.parent / "victim.md"
    victim.write_text("outside\n")
    with open(fz / MARKER, "a") as f:  # a hostile (or damaged) manifest
        f.write('"../victim.md"\n["report", "../victim.md"]\n"/etc/passwd"\n')
    assert _force(fz).returncode == 0
    assert victim.read_text() == "outside\n"
    assert recorded(fz, "report") == []  # never a path outside the folder


def test_what_a_killed_write_left_is_ours(fz: Path) -> None:
    """A temporary sibling a killed run left (a sweep's run file, a run's folder) is not
    listed, and is coschedlab's: it does not block --force (it did not before manifests)."""
    (fz / ".tmp-99999999-0badf00d-summary.csv").write_text("half\n")
    (fz / "w" / ".tmp-rep0-99999999-0badf00d").mkdir(parents=True)
    (fz / "w" / ".tmp-rep0-99999999-0badf00d" / "jobs.csv").write_text("half\n")
    assert first_foreign(fz) is None
    (fz / "w" / "mine.csv").write_text("mine\n")
    assert first_foreign(fz) == fz / "w" / "mine.csv"


def test_a_folder_written_before_manifests_keeps_the_rule_of_names(fz: Path) -> None:
    (fz / MARKER).write_text("written by coschedlab: --force may replace this directory\n")
    assert written(fz) is None
    (fz / "stale.md").write_text("named like ours\n")
    assert first_foreign(fz) is None  # docs/semantics.md: goes with --force, as before
    (fz / "notes.txt").write_text("mine\n")
    assert first_foreign(fz) == fz / "notes.txt"


def test_recording_into_a_folder_written_before_manifests_lists_what_was_there(
    tmp_path: Path,
) -> None:
    old = tmp_path / "old"
    old.mkdir()
    (old / MARKER).write_text("written by coschedlab: --force may replace this directory\n")
    (old / "summary.csv").write_text("a\n")
    (old / "notes.txt").write_text("mine\n")  # never ours: not listed
    record([old / "runs" / "k.json"])
    assert written(old) == {"summary.csv", "runs/k.json"}
    assert first_foreign(old) == old / "notes.txt"


def test_python_save_names_its_argument(tmp_path: Path) -> None:
    """``Result.save`` from Python said "--out o1 already holds a result; give --force"."""
    r = simulate(workload((1, 0, 10, 10, 1)), Cluster(2), "fcfs")
    r.save(tmp_path / "o1")
    with pytest.raises(InputError) as e:
        r.save(tmp_path / "o1")
    assert f"out_dir='{tmp_path / 'o1'}' already holds a result; give force=True" in str(e.value)
    assert "--" not in str(e.value)
    r.save(tmp_path / "o1", force=True)  # replaced


def test_reports_keep_their_files_in_the_manifest(fz: Path) -> None:
    """``report``: the files it wrote are listed (tag "report"); a second report replaces
    them, a user's file beside them is refused, and a list written before manifests
    (``.report-files``) still says what to replace, then goes."""
    cwd = fz.parent
    done = cli_here("report", "fz", "--out", "rep", cwd=cwd)
    assert done.returncode == 0, done.stderr
    rep = cwd / "rep"
    drawn = {p.name for p in recorded(rep, "report")}
    assert "report.html" in drawn and drawn == {p for p in written(rep)}
    assert not (rep / ".report-files").exists() and first_foreign(rep) is None
    # a report folder written before manifests: its marker without a list, its report's
    # files in .report-files (a hostile line naming a file outside)
    (rep / MARKER).write_text("written by coschedlab: --force may replace this directory\n")
    (rep / "old_gantt.png").write_bytes(b"png")
    (rep / ".report-files").write_text("old_gantt.png\n../victim.png\n")
    (cwd / "victim.png").write_bytes(b"mine")
    assert cli_here("report", "fz", "--out", "rep", cwd=cwd).returncode == 0
    assert not (rep / "old_gantt.png").exists() and not (rep / ".report-files").exists()
    assert (cwd / "victim.png").read_bytes() == b"mine"
    assert {p.name for p in recorded(rep, "report")} == drawn and first_foreign(rep) is None
    (rep / "notes.md").write_text("mine\n")
    done = cli_here("report", "fz", "--out", "rep", cwd=cwd)
    assert done.returncode == 2 and "rep/notes.md" in done.stderr
    assert (rep / "notes.md").read_text() == "mine\n"


def test_a_report_forgets_the_files_it_removed(fz: Path) -> None:
    """A report over two runs, then over one: the second run's figures are removed *and* leave
    the manifest (they stayed listed: a user's file given one of their names later was taken
    for the report's and deleted by the next report); a report written again lists each file
    once."""
    cwd = fz.parent
    assert cli_here("simulate", "other.swf", "-s", "fcfs", "--out", "fy", cwd=cwd).returncode == 0
    assert cli_here("report", "fz", "fy", "--out", "rep", cwd=cwd).returncode == 0
    rep = cwd / "rep"
    both = {p.name for p in recorded(rep, "report")}
    for _ in range(2):
        assert cli_here("report", "fz", "--out", "rep", cwd=cwd).returncode == 0
    one = {p.name for p in recorded(rep, "report")}
    assert one < both and written(rep) == one == {p.name for p in rep.iterdir()} - {MARKER}
    lines = (rep / MARKER).read_text().splitlines()
    assert len(lines) == len(set(lines))
    mine = rep / sorted(both - one)[0]
    mine.write_text("mine\n")
    done = cli_here("report", "fz", "--out", "rep", cwd=cwd)
    assert done.returncode == 2 and mine.name in done.stderr
    assert mine.read_text() == "mine\n"


def test_a_comparison_lists_its_runs_and_analysis_and_fresh_keeps_the_users(
    tmp_path: Path,
) -> None:
    """A comparison interrupted after some runs, and resumed: every file it wrote is listed
    (each run in its own folder's marker, the analysis in the top one); ``--fresh`` refuses a
    user's file named like its outputs, at the top or beside a run."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "experiments"))
    from _experiments_data import base_spec, write_spec

    from coschedlab.experiments import load_spec, run_comparison

    doc = base_spec(tmp_path)
    doc["workloads"], doc["repetitions"], doc["plots"] = doc["workloads"][2:], 1, "full"
    doc["schedulers"] = ["fcfs"]
    write_spec(tmp_path / "cmp.yaml", doc)
    out = tmp_path / "res"
    assert run_comparison(load_spec(tmp_path / "cmp.yaml"), out, jobs=1).ok  # "interrupted"
    assert first_foreign(out) is None
    doc["schedulers"] = ["fcfs", "easy"]
    write_spec(tmp_path / "cmp.yaml", doc)
    done = cli_here("compare", "cmp.yaml", "--out", "res", "-j", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert {"comparison.csv", "runs.csv", "spec.json"} <= written(out)
    assert first_foreign(out) is None
    for mine in ("plots/trace/mine.png", "trace/easy/rep0/notes.md"):
        (out / mine).write_text("mine\n")
        done = cli_here("compare", "cmp.yaml", "--out", "res", "--fresh", cwd=tmp_path)
        assert done.returncode == 2 and f"res/{mine}" in done.stderr, done.stderr
        assert (out / mine).read_text() == "mine\n"
        (out / mine).unlink()
    shutil.copy(out / "runs.csv", tmp_path / "runs.csv")
    done = cli_here("compare", "cmp.yaml", "--out", "res", "--fresh", "-j", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_record_once_lists_each_path_once(tmp_path: Path) -> None:
    """``record(..., once=True)`` (a real study's lock and store, recorded each time the study
    starts, resumed or not) adds only what the manifest does not list yet, per tag; plain
    ``record`` appends (a sweep's runs: no read of a growing marker)."""
    from coschedlab.outputs import mark

    out = mark(tmp_path / "study")
    names = [out / ".lock", out / "store.sqlite"]
    for _ in range(3):
        record(names, once=True)
    record([out / ".lock"], "other", once=True)
    lines = (out / MARKER).read_text().splitlines()[2:]
    assert lines == ['".lock"', '"store.sqlite"', '["other", ".lock"]']
    record([out / ".lock"])
    assert (out / MARKER).read_text().splitlines()[2:].count('".lock"') == 2
