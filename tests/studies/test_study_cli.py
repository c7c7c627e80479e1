"""``coschedlab study run|report|reproduce`` as a user meets them: results written, the table
at 80 columns, a real study killed and started again with nothing lost or redone."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from coschedlab.studies import load_spec, run_study
from coschedlab.studies.result import hours_minutes

ROOT = Path(__file__).resolve().parents[2]
COSCHEDLAB = [sys.executable, "-m", "coschedlab.cli"]


sys.path.insert(0, str(ROOT / "tests"))
from _cli import cli_here  # noqa: E402


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*COSCHEDLAB, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def test_study_run_writes_each_configuration(tmp_path):
    done = cli_here("study", "run", "helium", "-c", "O", "-c", "E", "--out", "h", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    for c in "OE":
        folder = tmp_path / "h" / c
        for name in ("runs.csv", "segments.csv", "metrics.json", "schedule.png", "pareto.png"):
            assert (folder / name).is_file(), name
    m = json.loads((tmp_path / "h" / "E" / "metrics.json").read_text())
    same = run_study(load_spec(ROOT / "src/coschedlab/data/helium_study.yaml"), "E").metrics
    assert m["total_time"] == pytest.approx(same["total_time"])
    assert m["info"]["config"].startswith("active sampler")
    total = hours_minutes(same["total_time"])
    assert total in done.stdout  # the table shows the study's own total
    again = cli_here("study", "report", "h", cwd=tmp_path)
    assert again.returncode == 0 and total in again.stdout


@pytest.mark.slow  # 10 s; table5() itself is tested in test_simulated_study.py
def test_study_reproduce_writes_table5(tmp_path):
    done = cli("study", "reproduce", "--out", "t5", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    df = pd.read_csv(tmp_path / "t5" / "table5.csv")
    assert len(df) == 12 and set(df.workers) == {32, 64}
    assert max(len(line) for line in done.stdout.splitlines()) <= 80


SLOW_CODE = """
import json, os, sys, time
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
params = dict(kv.split("=") for kv in args["--params"].split(","))
with open(os.environ["STUDY_LOG"], "a") as f:
    f.write(args["--params"] + "\\n")
time.sleep(0.25)
a, b = float(params["a"]), float(params["b"])
open(args["--checkpoint-out"], "w").write("final")
print(json.dumps({"objectives": [a + b, (a - 2) ** 2 + b], "steps": 10}))
"""


def _wait_until_no_process_runs_in(folder: Path, timeout: float = 15.0) -> None:
    import psutil

    deadline = time.monotonic() + timeout
    while True:
        left = [p for p in psutil.process_iter(["cwd"]) if p.info["cwd"] == str(folder)]
        if not left:
            return
        assert time.monotonic() < deadline, f"orphan processes left: {left}"
        time.sleep(0.1)


@pytest.mark.slow  # the study package's resume tests (tests/studies/test_real.py) run by default
def test_a_killed_real_study_resumes_with_nothing_lost_or_redone(tmp_path):
    (tmp_path / "code.py").write_text(SLOW_CODE)
    (tmp_path / "s.yaml").write_text(
        "design: {a: [1, 2, 3], b: [1, 2, 3, 4]}\n"
        "objectives: [f, g]\n"
        "scaling: {1: 1.0}\n"
        "processors: 2\n"
        "config: O\n"
        "command: '{python} code.py {params} --checkpoint-out {checkpoint_out}'\n"
    )
    log = tmp_path / "log.txt"
    env = {**os.environ, "STUDY_LOG": str(log)}
    args = [*COSCHEDLAB, "study", "run", "s.yaml", "--executor", "real", "--out", "r"]
    proc = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    store = tmp_path / "r" / "store.sqlite"
    deadline = time.monotonic() + 60
    stored = 0
    while time.monotonic() < deadline and stored < 4:
        time.sleep(0.05)
        if store.exists():
            try:
                with sqlite3.connect(store) as db:
                    stored = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            except sqlite3.Error:
                pass
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # the run in flight has a process group of its own: it notices the study is gone and
    # exits within a second (no orphan left), but may log its start before that
    _wait_until_no_process_runs_in(tmp_path)
    assert 4 <= stored < 12, "the study must be killed part-way"
    with sqlite3.connect(store) as db:
        finished = {r[0] for r in db.execute("SELECT design FROM runs")}
    first_calls = len(log.read_text().splitlines())
    done = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    runs = pd.read_csv(tmp_path / "r" / "runs.csv")
    assert len(runs) == 12 and runs.design.nunique() == 12  # every design once
    calls = log.read_text().splitlines()
    assert len(calls) == first_calls + 12 - len(finished)  # each unfinished design once
    second = calls[len(calls) - (12 - len(finished)) :]  # the rerun's invocations

    def design_of(call: str) -> str:
        p = dict(kv.split("=") for kv in call.split(","))
        return json.dumps([int(float(p["a"])) - 1, int(float(p["b"])) - 1])

    redone = [c for c in second if design_of(c) in finished]
    assert not redone
    # a third run of the same command finds everything done and runs nothing
    before = len(log.read_text().splitlines())
    third = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=120)  # fmt: skip
    assert third.returncode == 0, third.stderr
    assert len(log.read_text().splitlines()) == before
    # another study in the same directory is refused
    (tmp_path / "s2.yaml").write_text((tmp_path / "s.yaml").read_text().replace("[f, g]", "[f, h]"))
    other = subprocess.run([*COSCHEDLAB, "study", "run", "s2.yaml", "--executor", "real",
                            "--out", "r"], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=120)  # fmt: skip
    assert other.returncode == 2 and "already holds a result" in other.stderr


def test_the_example_specs_are_valid():
    heat_spec = load_spec(ROOT / "examples" / "heat_study.yaml")
    assert heat_spec.command is not None and "{python}" not in heat_spec.command
    assert sys.executable in heat_spec.command
    # its code beside it ({here}: the spec's folder), found from any working directory
    assert f"{ROOT / 'examples' / 'heat.py'} " in heat_spec.command
    assert len(heat_spec.space.designs()) == 25 and heat_spec.reuse == ("velocity",)


def test_force_replaces_a_finished_real_study_and_never_a_users_file(tmp_path):
    """A real study writes in place (its lock, store, checkpoints and logs): each file is in
    the folder's manifest, so --force replaces the study with another one, and a file the user
    put among the logs stops it, nothing deleted."""
    (tmp_path / "code.py").write_text(
        "import json, sys\n"
        "args = dict(zip(sys.argv[1::2], sys.argv[2::2]))\n"
        "open(args['--checkpoint-out'], 'w').write('final')\n"
        "print(json.dumps({'objectives': [1.0, 2.0]}))\n"
    )
    spec = (
        "design: {a: [1, 2], b: [1, 2]}\nobjectives: [f, g]\nscaling: {1: 1.0}\n"
        "processors: 2\nconfig: O\n"
        "command: '{python} code.py {params} --checkpoint-out {checkpoint_out}'\n"
    )
    (tmp_path / "s.yaml").write_text(spec)
    (tmp_path / "s2.yaml").write_text(spec.replace("[f, g]", "[f, h]"))
    first = cli("study", "run", "s.yaml", "--executor", "real", "--out", "r", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    r = tmp_path / "r"
    assert {"store.sqlite", ".lock", "runs.csv"} <= {p.name for p in r.iterdir()}
    assert any((r / "checkpoints").iterdir()) and any((r / "runs").iterdir())
    (r / "runs" / "notes.md").write_text("mine")
    refused = cli("study", "run", "s2.yaml", "--executor", "real", "--out", "r", "--force",
                  cwd=tmp_path)  # fmt: skip
    assert refused.returncode == 2 and "notes.md" in refused.stderr
    assert "Traceback" not in refused.stderr and (r / "store.sqlite").is_file()
    (r / "runs" / "notes.md").unlink()
    other = cli("study", "run", "s2.yaml", "--executor", "real", "--out", "r", "--force",
                cwd=tmp_path)  # fmt: skip
    assert other.returncode == 0, other.stderr
    assert json.loads((r / "metrics.json").read_text())["runs"] == 4
    assert "[f, h]" in json.loads((r / "study.json").read_text())["spec"]
