"""The workflows command line and examples, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from _cli import cli  # noqa: E402


def test_show_json_matches_the_model():
    r = cli("workflows", "show", "cybershake", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["max_cores"] == 721 and round(d["critical_path_h"], 1) == 4.5
    assert [t["id"] for t in d["tasks"]] == ["S0", "S1", "S2", "S3", "S4"]
    assert d["profile"][0] == [0.0, 120]


def test_show_fits_80_columns_and_draws_the_profile(tmp_path):
    r = cli("workflows", "show", "floodplain", "--plot", str(tmp_path / "p.png"))
    assert r.returncode == 0, r.stderr
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    assert "critical path  32.50 h" in r.stdout
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_generate_simulate_and_compare(tmp_path):
    gen = cli("workflows", "generate", "-w", "B4", "--share", "0.3", "--machine", "80x24",
              "--window", "21600", "--warmup", "3600", "--target-wait", "1800",
              "--out", str(tmp_path / "wl"))  # fmt: skip
    assert gen.returncode == 0, gen.stderr
    assert "regular jobs" in gen.stderr
    sim = cli("workflows", "simulate", str(tmp_path / "wl"), "--json", "--out", str(tmp_path / "r"))
    assert sim.returncode == 0, sim.stderr
    summaries = json.loads(sim.stdout)
    assert set(summaries) == {"chained", "pilot", "woas"}
    assert summaries["woas"]["waste_core_h"] == 0 and summaries["pilot"]["waste_core_h"] > 0
    compared = {s["workflows_compared"] for s in summaries.values()}
    assert len(compared) == 1  # the same workflows compared in every mode
    for mode in summaries:
        assert (tmp_path / "r" / mode / "workflows.csv").is_file()
    # the runs stop at the window's end: validate checks what started, and says so
    v = cli("validate", str(tmp_path / "r" / "woas"))
    assert v.returncode == 0 and "stopped at" in v.stdout and "all invariants hold" in v.stdout
    again = cli("workflows", "simulate", str(tmp_path / "wl"), "--out", str(tmp_path / "r"))
    assert again.returncode == 2 and "already holds a result" in again.stderr


@pytest.mark.parametrize("spec", ["woas_shares.yaml", "woas_groups.yaml", "woas_full.yaml"])
def test_the_reproduction_specs_load(spec):
    from coschedlab.experiments.workflows import load_workflow_spec

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
