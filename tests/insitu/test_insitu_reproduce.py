from __future__ import annotations

import importlib.util

import pandas as pd
import pytest

from coschedlab.insitu.reproduce import build_tasks
from coschedlab.insitu.sweep import SWEEP, load_spec, report

# SimGrid looked up, not imported: its Python bindings change process-wide settings (the
# context factory, which runs now set themselves: test_context_factory.py) and need not load
if importlib.util.find_spec("simgrid") is None:
    pytest.skip("SimGrid's Python bindings are not installed", allow_module_level=True)


def test_tasks_deduplicate_shared_configurations():
    tasks, member = build_tasks(trials=2)
    # 23 sweep points, 20 distinct configurations x 8 scenarios x 4 pairs x 2 trials
    assert len(member) == 23 * 8 * 4 * 2
    assert len(tasks) == 20 * 8 * 4 * 2


@pytest.mark.slow  # the runner resume is also tested in tests/experiments; 13 s
def test_small_reproduction_resumes_without_duplicates(tmp_path):
    spec = load_spec(None, trials=1, sweeps="nodes", steps=3, scenarios=("ideal", "in-transit"),
                     pairs=(("co", "co"), ("ev", "ev")))  # fmt: skip
    seen = []
    summary, rows = SWEEP.run(spec, tmp_path, jobs=2, on_start=lambda *a: seen.append(a))
    assert len(rows) == len(summary.executed) == 5 * 2 * 2 and summary.ok
    report(spec, tmp_path, rows)
    for name in (
        "runs.csv",
        "fig4.csv",
        "fig5.csv",
        "table2.csv",
        "reference.csv",
        "fig4_makespan.png",
        "fig4_normalised.png",
        "fig5.png",
        "table2.png",
    ):
        assert (tmp_path / name).exists(), name
    runs = sorted((tmp_path / "runs").glob("*.json"))
    stamp = {f.name: f.stat().st_mtime_ns for f in runs}
    (runs[0]).unlink()  # a lost run is redone, the others are kept
    seen.clear()
    summary, rows = SWEEP.run(spec, tmp_path, jobs=2, on_start=lambda *a: seen.append(a))
    assert seen == [(1, 20)] and summary.executed == [runs[0].stem] and len(rows) == 20
    report(spec, tmp_path, rows)
    after = sorted((tmp_path / "runs").glob("*.json"))
    assert [f.name for f in after] == [f.name for f in runs]
    for f in after[1:]:
        assert f.stat().st_mtime_ns == stamp[f.name]
    df = pd.read_csv(tmp_path / "runs.csv")
    assert len(df) == 20 and not df.duplicated(["value", "scenario", "node", "core"]).any()
    f4 = pd.read_csv(tmp_path / "fig4.csv")
    ideal = f4[f4["scenario"] == "ideal"]
    assert (ideal["normalised"] == 1.0).all()
