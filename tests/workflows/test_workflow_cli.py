"""The workflows command line and examples, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from _cli import cli, cli_here  # noqa: E402


def test_show_json_matches_the_model():
    r = cli("workflows", "show", "cybershake", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["max_cores"] == 721 and round(d["critical_path_h"], 1) == 4.5
    assert [t["id"] for t in d["tasks"]] == ["S0", "S1", "S2", "S3", "S4"]
    assert d["profile"][0] == [0.0, 120]


def test_show_fits_80_columns_and_draws_the_profile(tmp_path):
    r = cli_here("workflows", "show", "floodplain", "--plot", str(tmp_path / "p.png"))
    assert r.returncode == 0, r.stderr
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    assert "critical path  32.50 h" in r.stdout
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_generate_simulate_and_compare(tmp_path):
    gen = cli_here("workflows", "generate", "-w", "B4", "--share", "0.3", "--machine", "80x24",
                   "--window", "21600", "--warmup", "3600", "--target-wait", "1800",
                   "--out", str(tmp_path / "wl"))  # fmt: skip
    assert gen.returncode == 0, gen.stderr
    assert "regular jobs" in gen.stderr
    sim = cli_here(
        "workflows", "simulate", str(tmp_path / "wl"), "--json", "--out", str(tmp_path / "r")
    )
    assert sim.returncode == 0, sim.stderr
    summaries = json.loads(sim.stdout)
    assert set(summaries) == {"chained", "pilot", "woas"}
    assert summaries["woas"]["waste_core_h"] == 0 and summaries["pilot"]["waste_core_h"] > 0
    compared = {s["workflows_compared"] for s in summaries.values()}
    assert len(compared) == 1  # the same workflows compared in every mode
    for mode in summaries:
        assert (tmp_path / "r" / mode / "workflows.csv").is_file()
    # the runs stop at the window's end: validate checks what started, and says so
    v = cli_here("validate", str(tmp_path / "r" / "woas"))
    assert v.returncode == 0 and "stopped at" in v.stdout and "all invariants hold" in v.stdout
    again = cli_here("workflows", "simulate", str(tmp_path / "wl"), "--out", str(tmp_path / "r"))
    assert again.returncode == 2 and "already holds a result" in again.stderr


@pytest.mark.parametrize("spec", ["woas_shares.yaml", "woas_groups.yaml", "woas_full.yaml"])
def test_the_reproduction_specs_load(spec):
    from coschedlab.workflows.sweep import load_workflow_spec

    s = load_workflow_spec(ROOT / "examples" / spec)
    assert s.machine == "edison" and set(s.modes) == {"chained", "pilot", "woas"}
    assert len(s.configs()) == len(s.workflows) * len(s.values) * len(s.seeds) * 3 + (
        len(s.seeds) if s.baseline else 0
    )


def test_figure1_example_runs():
    r = subprocess.run([sys.executable, str(ROOT / "examples" / "woas_figure1.py")],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = {line.split()[0]: line.split() for line in r.stdout.splitlines()[2:]}
    assert float(lines["woas"][4]) < float(lines["pilot"][4])  # turnaround
    assert float(lines["woas"][4]) < float(lines["chained"][4])


TINY = (
    "machine: 60x24\nworkflows: [A2]\nshares: [0.2]\nwindow: 3600\nwarmup: 0\n"
    "target_wait: 600\nseeds: 1\n"
)


@pytest.mark.slow  # the Sweep resume is also tested in tests/experiments; 11 s
def test_compare_resumes_only_its_own_sweep(tmp_path):
    (tmp_path / "s.yaml").write_text(TINY)
    out = str(tmp_path / "o")
    zero = cli("workflows", "compare", str(tmp_path / "s.yaml"), "--out", out, "--jobs", "0")
    assert zero.returncode == 2 and not (tmp_path / "o").exists()  # checked before writing
    first = cli("workflows", "compare", str(tmp_path / "s.yaml"), "--out", out, "-j", "1")
    assert first.returncode == 0, first.stderr
    runs = sorted(p.name for p in (tmp_path / "o" / "runs").iterdir())
    assert len(runs) == 4  # 3 modes + the no-workflow baseline
    summary = (tmp_path / "o" / "summary.csv").read_bytes()
    # another window is another sweep: refused, nothing changed
    (tmp_path / "t.yaml").write_text(TINY.replace("window: 3600", "window: 7200"))
    other = cli("workflows", "compare", str(tmp_path / "t.yaml"), "--out", out)
    assert other.returncode == 2 and "holds runs of another sweep (window" in other.stderr
    assert (tmp_path / "o" / "summary.csv").read_bytes() == summary
    # a failed run's error file does not block resuming; a damaged (unreadable) run file
    # holds no result: its run counts as not done and is run again (sweeps/store.py)
    (tmp_path / "o" / "runs" / "x.error.txt").write_text("boom\n")
    (tmp_path / "o" / "runs" / runs[0]).write_text('{"config": ')
    redo = cli("workflows", "compare", str(tmp_path / "s.yaml"), "--out", out, "-j", "1")
    assert redo.returncode == 0, redo.stderr
    assert (tmp_path / "o" / "runs" / runs[0]).read_text() != '{"config": '
    assert sorted(p.name for p in (tmp_path / "o" / "runs").glob("*.json")) == runs
    assert (tmp_path / "o" / "summary.csv").read_bytes() == summary  # the same run, redone


def test_spec_refuses_two_workflows_of_one_name_and_a_machine_too_small(tmp_path):
    from coschedlab.errors import InputError
    from coschedlab.workflows.sweep import load_workflow_spec

    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "x.json").write_text(
            '{"name": "same", "tasks": [{"id": "t", "cores": 24, "runtime": 60}]}'
        )
    (tmp_path / "s.yaml").write_text(TINY.replace("[A2]", "[a/x.json, b/x.json]"))
    with pytest.raises(InputError, match="both named 'same'"):
        load_workflow_spec(tmp_path / "s.yaml")
    (tmp_path / "m.yaml").write_text(TINY.replace("60x24", "1x24"))
    with pytest.raises(InputError, match="needs 240 cores; the machine 1x24 has 24"):
        load_workflow_spec(tmp_path / "m.yaml")


@pytest.mark.parametrize(
    ("name", "folder"), [("../x", "_x"), ("a/b", "a_b"), ("..", "sweep"), ("my sweep", "my sweep")]
)
def test_a_spec_name_is_one_folder_under_out(tmp_path, name, folder):
    """The spec's name (any text) is the default output out/NAME: 'name: ../x' wrote ./x,
    outside out/ (hostile18); a name that is one folder keeps it as it is."""
    from coschedlab.workflows.sweep import load_workflow_spec

    (tmp_path / "s.yaml").write_text(TINY + f"name: {json.dumps(name)}\n")
    spec = load_workflow_spec(tmp_path / "s.yaml")
    assert spec.name == name and spec.output == Path("out") / folder
