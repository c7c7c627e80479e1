from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

# SimGrid looked up, not imported: its Python bindings change process-wide settings (the
# context factory, which runs now set themselves: test_context_factory.py) and need not load
if importlib.util.find_spec("simgrid") is None:
    pytest.skip("SimGrid's Python bindings are not installed", allow_module_level=True)

CLI = [sys.executable, "-c", "from coschedlab.cli import main; main()"]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _cli import cli_here  # noqa: E402


def run(*args):
    """``coschedlab insitu ARGS`` in this process (``cli_here``)."""
    return cli_here("insitu", *map(str, args))


def run_process(*args):
    """``coschedlab insitu ARGS`` in a fresh process."""
    return subprocess.run(
        [*CLI, "insitu", *map(str, args)], capture_output=True, text=True, timeout=120
    )


GENERATE = ("generate", "--simulations", 2, "--analyses", 2, "--data", 4, "--nodes", 6,
            "--steps", 10, "--seed", 1)  # fmt: skip


@pytest.fixture(scope="module")
def ensemble_file(tmp_path_factory):
    f = tmp_path_factory.mktemp("e") / "ens.yaml"
    r = run(*GENERATE, "--out", f)
    assert r.returncode == 0, r.stderr
    return f


def test_generate_is_deterministic(ensemble_file):
    a = run_process(*GENERATE)  # another process: no state of this one carried over
    assert a.stdout == ensemble_file.read_text()


def test_plan_json(ensemble_file):
    r = run("plan", ensemble_file, "--scenario", "increasing-50", "--node-alloc", "ev", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["model_makespan"] > 0 and d["node_alloc"] == "ev"
    assert sum(b["nodes"] for b in d["allocation"].values()) == 6
    r = run("plan", ensemble_file)
    assert r.returncode == 0 and "model makespan" in r.stdout


def test_simulate_json_and_outputs(ensemble_file, tmp_path):
    g, t = tmp_path / "g.png", tmp_path / "t.csv"
    r = run(
        "simulate",
        ensemble_file,
        "--scenario",
        "in-transit",
        "--network",
        "per-node",
        "--gantt",
        g,
        "--timeline",
        t,
        "--json",
    )
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["simulated_makespan"] > 0 and d["model_makespan"] > 0 and "allocation" in d
    assert d["network"] == "per-node"
    assert g.stat().st_size > 0
    # one row per (job, node): every component's 10 steps x 2 stages on each of its nodes
    import csv

    rows = list(csv.DictReader(t.read_text().splitlines()))
    nodes = {c: b["nodes"] for b in d["allocation"].values() for c in b["cores"]}
    assert len(rows) == sum(10 * 2 * n for n in nodes.values())
    assert {r["stage"] for r in rows} == {"compute", "data_write", "data_read", "analysis"}
    assert all(r["job"].endswith(f"_step_{r['step']}_node_{r['node']}") for r in rows)


@pytest.mark.slow  # 27 s: SimGrid runs of every scenario x heuristic pair
def test_search_recommends_best(ensemble_file):
    r = run("simulate", ensemble_file, "--search", "--json", "--jobs", 2)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert len(d["candidates"]) == 32
    best = min(c["simulated_makespan"] for c in d["candidates"])
    assert d["best"]["simulated_makespan"] == best


@pytest.mark.parametrize(
    "args, message",
    [
        (("plan", "missing.yaml"), "no such file"),
        (("plan", "{f}", "--scenario", "sideways"), "unknown scenario"),
        (("plan", "{f}", "--node-alloc", "greedy"), "unknown heuristic"),
        (("plan", "{f}", "--bandwidth-model", "B7"), "unknown bandwidth model"),
        (("simulate", "{f}", "--network", "torus"), "unknown network"),
        (
            ("generate", "--simulations", 4, "--analyses", 1, "--data", 1, "--nodes", 2),
            "cannot host",
        ),
        (
            ("generate", "--simulations", 1, "--analyses", 1, "--data", -1, "--nodes", 2),
            "data must be",
        ),
    ],
)
def test_errors_are_one_line_exit_2(ensemble_file, args, message):
    r = run(*[str(a).replace("{f}", str(ensemble_file)) for a in args])
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
