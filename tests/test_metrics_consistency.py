"""One definition per number: metrics.json, the report and the comparison table agree, and the
report shows what metrics.json holds (it reads the file, it does not recompute)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from coschedlab import Cluster, Result
from coschedlab.experiments.compare import run_metrics
from coschedlab.experiments.spec import spec_from_dict
from coschedlab.experiments.store import RunKey, run_dir
from coschedlab.metrics import SPEEDUP_TOLERANCE, colocation_summary
from coschedlab.report import write_report
from coschedlab.report.figures import time_unit

CLUSTER = Cluster(4, 1, 2)


def _jobs() -> pd.DataFrame:
    # speedups: exactly 1, 1 - 1e-13 (rounding of a compact run: not slower), 0.99 (slower)
    n = 3
    return pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submit": np.zeros(n),
            "start": np.zeros(n),
            "end": np.array([10.0, 20.0, 30.0]),
            "procs": np.array([2, 2, 2]),
            "nodes": np.array([1, 1, 1]),
            "alloc": ["0", "1", "2"],
            "requested_time": np.array([10.0, 20.0, 40.0]),
            "speedup": np.array([1.0, 1.0 - 1e-13, 0.99]),
            "killed": np.zeros(n, dtype=bool),
        }
    )


def _save(tmp: Path, metrics_edit: dict | None = None) -> Path:
    from coschedlab.metrics import job_metrics

    r = Result(jobs=job_metrics(_jobs()), cluster=CLUSTER, scheduler="easy-coloc")
    r.save(tmp)
    if metrics_edit:
        meta = json.loads((tmp / "metrics.json").read_text())
        meta["metrics"].update(metrics_edit)
        (tmp / "metrics.json").write_text(json.dumps(meta))
    return tmp


def test_slower_than_compact_has_one_tolerance():
    m = colocation_summary(_jobs())
    assert m["slower_than_compact"] == pytest.approx(1 / 3)  # only the 0.99 job
    assert 1e-13 < SPEEDUP_TOLERANCE < 0.01
    assert m["speedup_mean"] == pytest.approx((2.0 - 1e-13 + 0.99) / 3)


def test_metrics_json_report_and_comparison_agree(tmp_path):
    spec = spec_from_dict(
        {
            "cluster": {"nodes": 4, "cores_per_socket": 2},
            "schedulers": ["easy"],
            "workloads": [{"name": "w", "trace": str(_trace(tmp_path))}],
        },
        tmp_path / "spec.yaml",
    )
    out = tmp_path / "cmp"
    _save(run_dir(out, RunKey("w", "easy", 0)))
    stored = json.loads((run_dir(out, RunKey("w", "easy", 0)) / "metrics.json").read_text())
    row = run_metrics(spec, out).iloc[0]
    assert row["slower_share"] == pytest.approx(stored["metrics"]["slower_than_compact"])
    assert row["speedup"] == pytest.approx(stored["metrics"]["speedup_mean"])
    report = _html(tmp_path / "rep", Result.load(run_dir(out, RunKey("w", "easy", 0))))
    assert f"{100 * stored['metrics']['slower_than_compact']:.1f}" in report


def test_the_report_shows_the_stored_numbers(tmp_path):
    # edit metrics.json's makespan: the report must show the edited value (it reads the file)
    d = _save(tmp_path / "run", {"makespan": 12345.0 * 60})
    html = _html(tmp_path / "rep", Result.load(d))
    table = re.search(r"<table>.*?</table>", html, re.S).group(0)
    div, unit = time_unit(12345.0 * 60)
    assert unit in table and f"<td>{12345.0 * 60 / div:.3f}</td>" in table
    assert unit != "s"  # computed from the table, the makespan would be 30 s


def _html(out: Path, r: Result) -> str:
    write_report({"run": (r.jobs, r.cluster)}, out, metrics={"run": r.metrics})
    return (out / "report.html").read_text()


def _trace(tmp: Path) -> Path:
    path = tmp / "t.swf"
    path.write_text(
        "; MaxNodes: 4\n; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
    )
    return path
