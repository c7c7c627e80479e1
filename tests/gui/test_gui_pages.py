"""What users see in the dashboard's pages: one time unit on the Compare page, its choices
in the table's order, a line saying why there is no speedup chart, each application in one
colour, the modes' note, the command that resumes a sweep with its real spec, paths named as
users name them, and upload names that stay inside the workspace."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from coschedlab.bundled import bundled
from coschedlab.gui import Workspace
from coschedlab.gui.app import Context, make_app


@pytest.fixture
def ws(tmp_path):
    return Workspace.at(tmp_path / "ws")


def _comparison(ws: Workspace) -> Path:
    """A stored comparison whose table lists workload zeta before alpha and fcfs before
    easy (spec.json keeps its names sorted)."""
    out = ws.root / "cmp"
    runs = {"schedulers": {"easy": {}, "fcfs": {}}, "workloads": {"alpha": {}, "zeta": {}}}
    for w in ("alpha", "zeta"):
        for s in ("easy", "fcfs"):
            (out / w / s / "rep0").mkdir(parents=True)
            (out / w / s / "rep0" / "metrics.json").write_text("{}")
    (out / "spec.json").write_text(json.dumps({"runs": runs, "baseline": "fcfs"}))
    rows = [{"workload": w, "scheduler": s, "runs": 1, "makespan_mean": 3600.0,
             "makespan_std": 0.0, "makespan_improvement_mean": 0.0,
             "makespan_improvement_std": 0.0, "wait_mean": 60.0, "wait_std": 0.0,
             "turnaround_mean": 120.0, "turnaround_std": 0.0, "bounded_slowdown_mean": 1.0,
             "bounded_slowdown_std": 0.0, "utilization_mean": 0.5, "utilization_std": 0.0}
            for w in ("zeta", "alpha") for s in ("fcfs", "easy")]  # fmt: skip
    pd.DataFrame(rows).to_csv(out / "comparison.csv", index=False)
    return out


def test_the_compare_page_starts_on_the_tables_first_workload(ws):
    from coschedlab.gui.results import open_comparison

    c = open_comparison(_comparison(ws))
    assert c.workloads() == ["zeta", "alpha"] and c.schedulers() == ["fcfs", "easy"]
    client = make_app(Context(ws)).server.test_client()
    deps = client.get("/_dash-dependencies").get_json()
    opened = next(d for d in deps if d["output"].startswith("..result-table.children"))
    outputs = [{"id": o.split(".")[0], "property": o.split(".")[1]}
               for o in opened["output"].strip(".").split("...")]  # fmt: skip
    body = {"output": opened["output"], "outputs": outputs, "changedPropIds": ["result-dir.value"],
            "inputs": [{"id": "result-dir", "property": "value", "value": "cmp"}]}  # fmt: skip
    answer = client.post("/_dash-update-component", json=body).get_json()["response"]
    assert answer["result-workload"]["options"] == ["zeta", "alpha"]
    assert answer["result-workload"]["value"] == "zeta"  # the table's first row
    assert answer["result-run"]["value"] == "fcfs"
    table = json.dumps(answer["result-table"]["children"])
    assert table.index('"zeta"') < table.index('"alpha"')


def _jobs(speedup: list[float] | None, spread: bool) -> pd.DataFrame:
    jobs = pd.DataFrame({"app": [0, 0, 1, 2, 2], "submit": 0.0, "start": 0.0,
                         "end": [7200.0] * 5, "procs": 4})  # fmt: skip
    if speedup is not None:
        jobs["speedup"] = speedup
        jobs["placement"] = ["spread" if spread else "compact"] * 5
    return jobs


def test_the_compare_page_draws_time_in_the_tables_unit():
    from coschedlab.gui.pages.results import page_axis
    from coschedlab.platform import Cluster
    from coschedlab.report.runs import Run
    from coschedlab.report.timeaxis import Window

    run = Run(_jobs(None, False), Cluster(nodes=4), {})
    assert (page_axis({"a": run}).unit, page_axis({"a": run}).div) == ("h", 3600.0)
    windowed = page_axis({"a": run}, Window.parse("0", "10m", ("from", "to")))
    assert windowed.unit == "min"  # a typed window: its own unit, as the report's


def test_no_speedup_chart_says_why_and_the_boxes_take_the_gantts_colours():
    from dash import html

    from coschedlab.gui.pages.results import speedups
    from coschedlab.platform import Cluster
    from coschedlab.report import figures as F
    from coschedlab.report.runs import Run
    from coschedlab.report.style import category_style

    cluster = Cluster(nodes=4)
    trace = speedups(Run(_jobs(None, False), cluster, {}), "easy")
    assert isinstance(trace, html.Div) and "carry no co-location speedups" in trace.children
    compact = speedups(Run(_jobs([1.0] * 5, False), cluster, {}), "easy")
    assert isinstance(compact, html.Div)
    assert "no job of this run shared a node (easy placed" in compact.children
    jobs = _jobs([1.1, 0.9, 1.2, 1.0, 1.3], True)
    box = speedups(Run(jobs, cluster, {}), "easy-coloc")
    apps = F.app_styles(jobs)[0]
    assert [t.marker.color for t in box.data] == [category_style(k)[0] for k in range(len(apps))]


def test_the_workflows_page_says_when_the_modes_look_alike():
    from coschedlab.gui.pages.workflows import DEFAULT_MACHINE, alike_note

    alike = {m: {"median_turnaround": 16000.0 + k} for k, m in enumerate(("a", "b", "c"))}
    assert DEFAULT_MACHINE in alike_note(alike)
    assert alike_note({"a": {"median_turnaround": 16000.0},
                       "b": {"median_turnaround": 21000.0}}) is None  # fmt: skip


def test_a_sweep_shows_the_command_that_resumes_it_with_its_spec(ws):
    from coschedlab.gui.launch import command_line
    from coschedlab.gui.sweeps import resume_hint, sweep_name
    from coschedlab.sweeps.capability import capability

    SWEEP = capability("workflows")

    out = ws.root / "sweeps" / "w"
    spec = str(bundled("coschedlab:sweeps/woas_small.yaml"))
    said = command_line(ws, SWEEP.command_args(spec, str(out)))
    assert said == "coschedlab workflows compare coschedlab:sweeps/woas_small.yaml --out sweeps/w"
    unknown = resume_hint(SWEEP, ws, out)  # made by the command line: the spec unknown
    assert "SPEC.yaml being the spec that made it" in unknown
    (ws.root / "specs").mkdir()
    (ws.root / "specs" / f"{sweep_name(SWEEP, ws, out)}.command").write_text(said + "\n")
    assert resume_hint(SWEEP, ws, out) == f"at the command line (resumes it): {said}"
    upload = ws.root / "uploads" / "ab12" / "my sweep.yaml"
    assert command_line(ws, SWEEP.command_args(str(upload), str(out))) == (
        "coschedlab workflows compare 'uploads/ab12/my sweep.yaml' --out sweeps/w"
    )


def test_messages_name_paths_as_users_do(ws):
    kth = bundled("coschedlab:KTH-SP2-1996-2.1-cln.swf.gz")
    text = f"kth: 10 jobs from {kth}; mine: from {ws.root / 'uploads' / 'x.swf'}"
    assert ws.words(text) == (
        "kth: 10 jobs from coschedlab:KTH-SP2-1996-2.1-cln.swf.gz; mine: from uploads/x.swf"
    )


SWF = b"; t\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"


@pytest.mark.parametrize("name", [
    "../../../../tmp/evil.swf", "/etc/cron.d/evil.swf", "..\\..\\evil.swf",
    "C:\\Users\\x\\..\\evil.swf", "..", ".", "", "a/../../b.swf", "\x00evil.swf",
    "é vil.swf", ".hidden.swf", "-rf.swf", "x" * 300 + ".swf",
])  # fmt: skip
def test_an_uploads_name_never_leaves_its_folder_in_the_workspace(ws, tmp_path, name):
    before = sorted(p.name for p in tmp_path.iterdir())
    path = ws.save_upload(name, "data:;base64," + base64.b64encode(SWF).decode(), "swf")
    assert path.parent.parent == ws.root / "uploads" and path.read_bytes() == SWF
    assert path.name == Path(path.name).name and not path.name.startswith((".", "-"))
    assert all(c.isascii() and (c.isalnum() or c in "_.+=,-") for c in path.name)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written beside
    assert np.all([ws.root in p.parents for p in ws.root.rglob("*")])
