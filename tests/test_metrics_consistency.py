"""One definition per number: metrics.json (via Result), the report and the comparison table
give the same slower-than-compact share and mean speedup on a co-location run, and the report
and the comparison table show what metrics.json holds (they read the file, not recompute)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from coschedlab import Cluster, Result, Workload, simulate
from coschedlab.cli.coloc import report as report_command
from coschedlab.coloc import App, Heatmap, Pool
from coschedlab.experiments.compare import comparison_table, run_metrics
from coschedlab.experiments.spec import spec_from_dict
from coschedlab.metrics import job_metrics
from coschedlab.report import figures
from coschedlab.report.figures import time_unit
from coschedlab.sweeps.store import RunKey, run_dir

KEY = RunKey("w", "easy", 0)


def hand_made() -> Result:
    """Speedups 1, 1 - 1e-13 (a compact run's float rounding: not slower), 0.99 (slower) and
    1.3: one job in four is slower than compact."""
    n = 4
    jobs = pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submit": np.zeros(n),
            "start": np.zeros(n),
            "end": np.array([10.0, 20.0, 30.0, 40.0]),
            "procs": np.full(n, 2),
            "nodes": np.ones(n, dtype=np.int64),
            "alloc": ["0", "1", "2", "3"],
            "requested_time": np.full(n, 60.0),
            "speedup": np.array([1.0, 1.0 - 1e-13, 0.99, 1.3]),
            "killed": np.zeros(n, dtype=bool),
            "placement": ["compact", "compact", "spread", "spread"],
        }
    )
    return Result(jobs=job_metrics(jobs), cluster=Cluster(4, 1, 2), scheduler="easy-coloc")


def engine_run() -> Result:
    """A real easy-coloc run: A beside B runs 2x, B beside A 0.5x (B ends slower than compact);
    jobs 3 and 4 (no measured application) run at speedup 1, which end - start rounds to
    1 - 1e-16 and 1 - 1.4e-14."""
    heat = Heatmap(["A", "B"], [[1.0, 2.0], [0.5, 1.0]])
    pool = Pool((App("A", 2, 100.0), App("B", 2, 100.0)), heat)
    rows = [(1, 0.0, 100.0, 2, 0), (2, 0.0, 100.0, 2, 1), (3, 0.1, 0.2, 2, -1),
            (4, 0.7, 0.1, 4, -1)]  # fmt: skip
    w = Workload.from_records(
        [
            {"id": i, "submit": s, "run": r, "requested_time": 1.4 * r + 10, "procs": p, "app": a}
            for i, s, r, p, a in rows
        ]
    )
    return simulate(w, Cluster(2, 2, 2), "easy-coloc", pool=pool, kill_at_walltime=True)


def _by_hand(speedups: np.ndarray) -> tuple[float, float]:
    """(slower share, mean speedup) of the finite speedups, a slower job being one a co-location
    really slowed (the 1e-13 roundings are not)."""
    s = speedups[np.isfinite(speedups)]
    return float((s < 0.999).mean()), float(s.mean())


@pytest.mark.parametrize("make", [hand_made, engine_run], ids=["hand-made", "engine"])
def test_three_consumers_agree(tmp_path, make):
    fresh = make()
    speedups = fresh.jobs["speedup"].to_numpy(dtype=float)
    near_one = speedups[(speedups != 1.0) & (np.abs(speedups - 1) < 1e-12)]
    assert len(near_one) and len(speedups[speedups < 0.999])  # both edge cases are present
    slower, mean = _by_hand(speedups)
    assert 0 < slower < 1

    # 1. metrics.json, read back through Result.load
    out = tmp_path / "cmp"
    d = run_dir(out, KEY)
    fresh.save(d)
    stored = Result.load(d).metrics
    assert stored == json.loads((d / "metrics.json").read_text())["metrics"]
    assert stored["slower_than_compact"] == pytest.approx(slower, abs=1e-15)
    assert stored["speedup_mean"] == pytest.approx(mean, rel=1e-15)
    assert fresh.metrics["slower_than_compact"] == stored["slower_than_compact"]
    assert fresh.metrics["speedup_mean"] == stored["speedup_mean"]

    # 2. the comparison table (runs.csv and its means over repetitions)
    spec = _spec(tmp_path)
    runs = run_metrics(spec, out)
    assert runs.loc[0, "slower_share"] == stored["slower_than_compact"]
    assert runs.loc[0, "speedup"] == stored["speedup_mean"]
    table = comparison_table(runs, spec)
    assert table.loc[0, "slower_share_mean"] == stored["slower_than_compact"]
    assert table.loc[0, "speedup_mean"] == stored["speedup_mean"]

    # 3. the report, as `coschedlab report DIR` writes it
    row = _report_row(tmp_path / "rep", d, fresh.scheduler)
    assert row["slower than compact (%)"] == f"{100 * slower:.1f}"
    assert row["mean speedup"] == f"{stored['speedup_mean']:.4f}" == f"{mean:.4f}"


def test_report_and_comparison_read_metrics_json(tmp_path):
    # edit the stored numbers in a copy: the report and the comparison table show the edits,
    # so they read metrics.json and do not recompute from jobs.parquet
    out = tmp_path / "cmp"
    d = run_dir(out, KEY)
    hand_made().save(tmp_path / "original")
    shutil.copytree(tmp_path / "original", d)
    edits = {"makespan": 72123.0, "speedup_mean": 0.5, "slower_than_compact": 0.75}
    meta = json.loads((d / "metrics.json").read_text())
    assert meta["metrics"]["makespan"] == 40.0  # computed from the table: 40 s
    meta["metrics"].update(edits)
    (d / "metrics.json").write_text(json.dumps(meta))

    row = _report_row(tmp_path / "rep", d, "easy-coloc")
    div, unit = time_unit(edits["makespan"])
    assert unit == "h" and row["makespan (h)"] == f"{edits['makespan'] / div:.3f}"
    assert row["mean speedup"] == "0.5000" and row["slower than compact (%)"] == "75.0"
    bars = figures.comparison({"run": Result.load(d)}).axes[0].patches
    assert bars[0].get_width() == pytest.approx(edits["makespan"] / div)  # horizontal bars

    runs = run_metrics(_spec(tmp_path), out)
    assert runs.loc[0, ["makespan", "speedup", "slower_share"]].tolist() == [
        edits["makespan"],
        0.5,
        0.75,
    ]


def test_old_runs_without_colocation_keys_give_nan(tmp_path):
    d = run_dir(tmp_path / "cmp", KEY)
    hand_made().save(d)
    meta = json.loads((d / "metrics.json").read_text())
    for key in ("speedup_mean", "speedup_median", "slower_than_compact"):
        del meta["metrics"][key]
    (d / "metrics.json").write_text(json.dumps(meta))
    runs = run_metrics(_spec(tmp_path), tmp_path / "cmp")
    assert np.isnan(runs.loc[0, "speedup"]) and np.isnan(runs.loc[0, "slower_share"])
    assert runs.loc[0, "makespan"] == 40.0
    row = _report_row(tmp_path / "rep", d, "easy-coloc")
    assert "mean speedup" not in row and "slower than compact (%)" not in row


def _report_row(out: Path, result_dir: Path, name: str) -> dict[str, str]:
    """The summary-table row of ``name`` in the report ``coschedlab report`` writes."""
    report_command([result_dir], out=out)
    html = (out / "report.html").read_text()
    table = re.search(r"<table>(.*?)</table>", html, re.S).group(1)
    head, *rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    columns = re.findall(r"<th>(.*?)</th>", head)[1:]
    for r in rows:
        cells = re.findall(r"<td>(.*?)</td>", r)
        if cells[0] == name:
            return dict(zip(columns, cells[1:], strict=True))
    raise AssertionError(f"no row {name!r} in the report's table")


def _spec(tmp: Path):
    trace = tmp / "t.swf"
    trace.write_text(
        "; MaxNodes: 4\n; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
    )
    return spec_from_dict(
        {
            "cluster": {"nodes": 4, "cores_per_socket": 2},
            "schedulers": ["easy"],
            "workloads": [{"name": "w", "trace": str(trace)}],
        },
        tmp / "spec.yaml",
    )
