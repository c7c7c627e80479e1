"""``coschedlab elise``: the commands of docs/elise.md run as written, outputs, resuming (the
entry point in this process: tests/test_docs_commands.py runs the documents' commands in fresh
processes)."""

from __future__ import annotations

import csv
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
from _cli import cli_here, doc_commands  # noqa: E402


def elise_doc_commands() -> list[str]:
    return doc_commands((ROOT / "docs" / "elise.md").read_text(), inline=False)


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    p = cli_here(*args, cwd=cwd)
    assert p.returncode == 0 and "Traceback" not in p.stderr, (args, p.stdout, p.stderr)
    return p


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    return tmp_path


def test_docs_commands_run_as_written(workdir):
    found = elise_doc_commands()
    assert [c.split()[2] for c in found] == ["run", "run", "schedulers"]
    outs = [run(shlex.split(c)[1:], workdir) for c in found]
    for folder in ("out/elise-example", "out/elise-exact"):
        out = workdir / folder
        csvs = sorted(p.name for p in (out / "workloads").glob("*.csv"))
        assert csvs == [f"sim_{k}_input_0_scheduler_{k}.csv" for k in range(3)], folder
        pngs = sorted(p.name for p in (out / "waiting_queue").glob("*.png"))
        assert len(pngs) == 3
        assert (out / "time_reports.csv").is_file()
        summary = list(csv.DictReader((out / "coschedlab" / "summary.csv").open()))
        assert [r["scheduler"] for r in summary] == [
            "EASY Scheduler", "Random Ranks Co-Scheduler", "Filler Co-Scheduler"
        ]  # fmt: skip
        rows = list(csv.reader((out / "workloads" / csvs[2]).open()))
        assert rows[0][0] == "Job Number" and len(rows) == 1001  # ELiSE's layout, every job
    spec = json.loads((workdir / "out/elise-exact/coschedlab/spec.json").read_text())
    assert spec["compat"] == ["alone", "clock", "conservative", "late-kill"] and spec["seed"] == 7
    assert "bugs fixed" in outs[0].stdout and "bugs reproduced" in outs[1].stdout
    for name in ("Filler Co-Scheduler", "filler:extra=false,depth=100", "elise-conservative"):
        assert name in outs[2].stdout


def test_a_second_run_resumes_and_a_changed_one_is_refused(tmp_path):
    case = ROOT / "tests" / "coloc" / "elise" / "cases" / "smoke"  # 9 runs of 60 jobs
    out = tmp_path / "o"
    args = ["elise", "run", "experiment.yaml", "--out", str(out), "-j", "1"]
    run(args, case)
    sim = out / "workloads" / "sim_3_input_0_scheduler_3.csv"
    first = sim.read_text()
    again = run(args, case)
    assert "9 of 9 runs already stored; 0 to do" in " ".join(again.stderr.split())
    assert sim.read_text() == first
    p = cli_here(*args, "--seed", "3", cwd=case)
    assert p.returncode == 2 and "seed differs" in p.stderr
    assert sim.read_text() == first
    run([*args, "--seed", "3", "--fresh"], case)
    assert sim.read_text() != first


def test_the_dashboard_section_is_generated_and_finds_stored_experiments(tmp_path):
    """``elise run`` is a registered capability: its page (the sweep section) is generated, an
    output the command line made is found as an ELiSE sweep (its spec.json under
    OUT/coschedlab, ELiSE's own files beside it) and shown with its runs' table, and a folder
    inside it is refused as an output."""
    from coschedlab.errors import InputError
    from coschedlab.gui.app import Context
    from coschedlab.gui.pages import pages
    from coschedlab.gui.sweeps import sweep_view
    from coschedlab.gui.workspace import Workspace
    from coschedlab.sweeps.capability import capability, check_sweep
    from coschedlab.sweeps.sweep import sweep_kind

    case = ROOT / "tests" / "coloc" / "elise" / "cases" / "smoke"
    out = tmp_path / "ws" / "elise" / "smoke"
    ws = Workspace.at(tmp_path / "ws")
    page = next(p for p in pages() if p.NAME == "elise")
    assert page.TITLE == "ELiSE" and page.PATH == "/elise"
    shown = str(page.layout(Context(ws)))
    assert "el-sweep-run" in shown and "el-sweep-upload" in shown and "elise/run" in shown
    assert ws.outputs("elise") == [] and sweep_kind(out) is None
    run(["elise", "run", "experiment.yaml", "--out", str(out), "-j", "1"], case)
    assert sweep_kind(out) == "elise" and sweep_kind(out / "coschedlab") is None
    assert ws.outputs("elise") == ["elise/smoke"] and ws.outputs("comparison") == []
    view = str(sweep_view(capability("elise"), ws, out))
    assert "coschedlab elise run SPEC.yaml --out elise/smoke" in view
    assert "Filler (co)" in view and "makespan s" in view
    with pytest.raises(InputError, match="inside the stored sweep elise/smoke"):
        ws.output("elise/smoke/again")
    check_sweep("elise", str(case / "experiment.yaml"), str(tmp_path / "ws" / "other"))


def test_a_negative_requested_time_is_zero_as_in_elise_with_a_note(tmp_path):
    """ELiSE's batch runner copies every listed job through ``Job``, which keeps a negative
    ``wall_time`` as 0: the same schedule as a listed 0, and a note names the line."""
    header = (
        "Job Number,Submit Time,Wait Time,Run Time,Number of Allocated Processors,Average CPU "
        "Time Used,Used Memory,Requested Number of Processors,Requested Time,Requested Memory,"
        "Status,User ID,Group ID,Executable Number,Queue Number,Partition Number,Preceding Job "
        "Number,Think Time from Preceding Job,Assigned Processors"
    )
    rows = ["0,0,,,,,,,{},,1,,,cg.D.64,,,,,", "1,10,,,,,,,100,,1,,,lu.D.64,,,,,"]
    for name, wall in (("neg", "-5"), ("zero", "0")):
        lines = [header, rows[0].format(wall), rows[1]]
        (tmp_path / f"{name}.csv").write_text("\n".join(lines) + "\n")
        (tmp_path / f"{name}.yaml").write_text(
            f'name: "{name}"\ninputs:\n- cluster:\n    nodes: 10\n    socket-conf: [10, 10]\n'
            f'  generator:\n    type: "List Generator"\n    arg: "{name}.csv"\n'
            '  json: "coschedlab:pools/lm-aris.compute-NAS.json"\n'
            'schedulers:\n- base: "EASY Scheduler"\n'
            "actions:\n  get_workload:\n    inputs: all\n    schedulers: all\n"
            f'    dir: "o-{name}"\n'
        )
    neg = run(["elise", "run", "neg.yaml"], tmp_path)
    zero = run(["elise", "run", "zero.yaml"], tmp_path)
    assert "neg.csv:2: requested time -5 is taken as 0, as ELiSE does" in neg.stderr
    assert "requested time" not in zero.stderr
    (a,) = (tmp_path / "o-neg" / "workloads").iterdir()
    (b,) = (tmp_path / "o-zero" / "workloads").iterdir()
    assert a.read_text() == b.read_text()
